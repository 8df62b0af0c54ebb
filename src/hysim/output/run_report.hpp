// A run's report as JSON: the model, the options, how the run ended and its statistics (the
// file stats.json of `hysim run --out`; its keys are listed in docs/cli.md, "stats.json", and
// the library's use in docs/library.md, "Outputs").
//
//   {"model": ..., "options": {<every SimulationOptions field>, ...},
//    "result": {"reason", "message", "t", "zeno_t"?}   or, after a failure, "error": message,
//    "stats": {"steps_accepted", ..., "wall_seconds"}}
#pragma once

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "hysim/run/observer.hpp"

namespace hysim {

// Every field of SimulationOptions under its name (run/option_table.hpp).
nlohmann::json options_json(const SimulationOptions& options);

// The counters of a run, and the wall time the caller measured.
nlohmann::json statistics_json(const RunStatistics& stats, double wall_seconds);

// The whole report. `options` is options_json(...), possibly with keys of the caller's own
// (the program adds scalar, preset and parameters).
template <class S>
nlohmann::json run_report_json(const std::string& model, nlohmann::json options, const RunResult<S>& result,
                               double wall_seconds);

// Writes `json` (indented, newline-terminated) to `file` whole or not at all: into a temporary
// file beside it, then renamed over it. Throws InvalidArgument naming the file when it cannot be
// created (a missing folder), Error("write failed: FILE: REASON") when it cannot be written (a
// full disk).
void write_json(const std::filesystem::path& file, const nlohmann::json& json);

// A run's transitions counted by the name of each (a component's COMPONENT.NAME, a switch
// part's name, a split mode's switchK): stats.json's "stats"."transitions_by_guard", the
// statistics of each part. A name is copied once, when first seen.
class TransitionCounts {
 public:
  void count(std::string_view guard) {
    if (const auto it = counts_.find(guard); it != counts_.end()) {
      ++it->second;
    } else {
      counts_.emplace(std::string(guard), 1);
    }
  }
  nlohmann::json json() const { return counts_; }

 private:
  std::map<std::string, std::int64_t, std::less<>> counts_;
};

// An Observer that writes the report to `file` when the run finishes (also when it fails).
// Its wall time runs from on_start to on_finish.
template <class S>
class ReportWriter final : public Observer<S> {
 public:
  explicit ReportWriter(std::filesystem::path file) : file_(std::move(file)) {}

  void on_start(const Model<S>& model, const SimulationOptions& options) override {
    model_ = model.name;
    options_ = options_json(options);
    started_ = std::chrono::steady_clock::now();
  }
  void on_event(const EventRecord<S>& record) override { counts_.count(record.guard); }
  void on_finish(const RunResult<S>& result) override {
    const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - started_).count();
    nlohmann::json report = run_report_json(model_, options_, result, wall);
    report["stats"]["transitions_by_guard"] = counts_.json();
    write_json(file_, report);
  }

 private:
  std::filesystem::path file_;
  std::string model_;
  nlohmann::json options_;
  std::chrono::steady_clock::time_point started_;
  TransitionCounts counts_;
};

extern template nlohmann::json run_report_json(const std::string&, nlohmann::json, const RunResult<double>&, double);
extern template nlohmann::json run_report_json(const std::string&, nlohmann::json, const RunResult<long double>&,
                                               double);
extern template nlohmann::json run_report_json(const std::string&, nlohmann::json, const RunResult<float128>&, double);

}  // namespace hysim
