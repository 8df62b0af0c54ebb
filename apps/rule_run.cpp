#include "apps/rule_run.hpp"

#include "hysim/study/out_folder.hpp"
#include "apps/table.hpp"

#include <cerrno>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>

#include "hysim/study/stop.hpp"
#include "hysim/core/errors.hpp"
#include "hysim/core/scalar.hpp"
#include "hysim/output/run_report.hpp"
#include "hysim/rules/interpreter.hpp"
#include "hysim/core/printable.hpp"

namespace hysim::app {

namespace {

// Writes the trajectory (t, every real that is not a parameter, every logic variable as 0/1)
// and the switches (t, name, value) as the interpreter runs, and prints the switches. The first
// write that fails (a full disk, a file size limit) throws Error "write failed: FILE: why",
// which ends the run there (rules::InterpreterOutput).
class RuleWriter final : public rules::InterpreterOutput {
 public:
  RuleWriter(const rules::RuleTable& table, const std::filesystem::path& out_dir, bool print)
      : table_(table), print_(print), trajectory_path_(out_dir / "trajectory.csv"), events_path_(out_dir / "events.csv") {
    if (!out_dir.empty()) {
      // The engine's steps.csv of an earlier run in this folder goes: the folder never mixes runs.
      prepare_out_folder(out_dir, {"events.csv", "trajectory.csv", "steps.csv", "stats.json"},
                         {"events.csv", "trajectory.csv", "stats.json"});
      trajectory_.emplace(trajectory_path_);
      events_.emplace(events_path_);
      if (!*trajectory_ || !*events_) throw InvalidArgument("cannot write into " + out_dir.string());
      *trajectory_ << "t";
      for (const auto& v : table.reals) {
        if (!v.parameter) *trajectory_ << ',' << csv_cell(v.name);
      }
      for (const auto& v : table.logic) *trajectory_ << ',' << csv_cell(v.name);
      *trajectory_ << '\n';
      *events_ << "t,situation,value\n";
      check();
    }
  }

  void on_sample(double t, std::span<const double> reals, std::span<const char> logic) override {
    if (!trajectory_) return;
    line_.clear();
    append_scalar(line_, t, 17);
    for (std::size_t i = 0; i < reals.size(); ++i) {
      if (table_.reals[i].parameter) continue;
      line_ += ',';
      append_scalar(line_, reals[i], 17);
    }
    for (const char value : logic) line_ += value ? ",1" : ",0";
    line_ += '\n';
    trajectory_->write(line_.data(), static_cast<std::streamsize>(line_.size()));
    if (!*trajectory_) fail(trajectory_path_);
  }

  void on_switch(double t, int logic, bool value) override {
    const std::string& name = table_.logic[static_cast<std::size_t>(logic)].name;
    if (events_) {
      *events_ << format_scalar(t, 17) << ',' << csv_cell(name) << ',' << (value ? 1 : 0) << '\n';
      if (!*events_) fail(events_path_);
    }
    if (print_ && printed_ < kPrinted) {
      std::cout << "  t = " << format_scalar(t, 10) << "  " << printable(name) << " -> " << (value ? "True" : "False") << "\n";
      if (++printed_ == kPrinted) std::cout << "  ... (every switch is in events.csv with --out)\n";
    }
  }

  // Flushes both files; throws as a failed write does.
  void flush() {
    if (trajectory_) trajectory_->flush();
    if (events_) events_->flush();
    check();
  }

 private:
  void check() const {
    if (trajectory_ && !*trajectory_) fail(trajectory_path_);
    if (events_ && !*events_) fail(events_path_);
  }

  // errno still holds why the stream's write(2) failed (ENOSPC, EFBIG, EIO).
  [[noreturn]] static void fail(const std::filesystem::path& file) {
    const int error = errno;
    throw Error("write failed: " + file.string() + ": " + (error != 0 ? std::strerror(error) : "unknown error"));
  }

  static constexpr int kPrinted = 40;
  const rules::RuleTable& table_;
  bool print_;
  int printed_ = 0;
  std::filesystem::path trajectory_path_, events_path_;
  std::optional<std::ofstream> trajectory_, events_;
  std::string line_;
};

// The table with the --param values: a parameter's value or a variable's initial value.
rules::RuleTable table_with_values(const RuleRunRequest& request) {
  rules::RuleTable table = rules::read_rule_table(request.file);
  for (const std::string& assignment : request.values) {
    const std::size_t equals = assignment.rfind('=');
    const std::string name = equals == std::string::npos ? "" : assignment.substr(0, equals);
    const int index = table.real_index(name);
    if (index < 0) {
      throw InvalidArgument("--param " + assignment + ": expected NAME=VALUE with NAME a parameter or variable of the rule table " +
                            request.file);
    }
    table.reals[static_cast<std::size_t>(index)].initial = parse_decimal<double>(assignment.substr(equals + 1), "--param " + name);
  }
  return table;
}

const char* time_name(const RuleRunRequest& request) {
  return request.real_time ? "real" : request.paced ? "paced" : "model";
}

rules::InterpreterOptions interpreter_options(const RuleRunRequest& request, const rules::RuleTable& table) {
  rules::InterpreterOptions options;
  options.dt = request.dt;
  options.t_end = request.t_end;
  options.time = request.real_time ? rules::TimeMode::kMeasured
                 : request.paced    ? rules::TimeMode::kPaced
                                    : rules::TimeMode::kModel;
  const double dt = request.dt > 0 ? request.dt : table.dt;
  if (request.real_time) {
    if (request.dt > 0) throw InvalidArgument("--dt: in real time each cycle's dt is its measured duration (--paced keeps a fixed dt)");
    options.output_step = request.output_step > 0 ? request.output_step : table.dt;  // the table's dt as the output grid
  } else if (request.output_step > 0) {
    const double every = std::round(request.output_step / dt);
    if (!(every >= 1) || !(every < 1e15)) throw InvalidArgument("--output-step must be at least one cycle (dt)");
    options.output_every = static_cast<std::int64_t>(every);
  }
  return options;
}

// stats.json of the run: the interpreter's settings, how the run ended, and in paced or real
// time the cycles against the wall clock.
nlohmann::json rule_report(const RuleRunRequest& request, const std::string& name, const rules::Interpreter& interpreter,
                           const rules::InterpreterOptions& options, const rules::InterpreterResult& result) {
  nlohmann::json report = {{"model", name},
                           {"file", request.file},
                           {"status", "finished"},
                           {"interpreter",
                            {{"dt", request.real_time ? nlohmann::json(nullptr) : nlohmann::json(interpreter.dt())},
                             {"t_end", interpreter.t_end()},
                             {"time", time_name(request)},
                             {"output_every", options.output_every}}},
                           {"result",
                            {{"reason", rules::end_name(result.end)},
                             {"cycles", result.cycles},
                             {"t", result.t},
                             {"switches", result.switches}}}};
  if (!result.message.empty()) report["result"]["message"] = result.message;
  if (request.paced) {
    report["paced"] = {{"wall_seconds", result.wall_seconds},
                       {"mean_cycle_seconds", result.mean_cycle_seconds},
                       {"max_cycle_seconds", result.max_cycle_seconds},
                       {"max_lag_seconds", result.max_lag_seconds},
                       {"final_lag_seconds", result.final_lag_seconds}};
  }
  if (request.real_time) {  // each cycle's dt is its measured duration; t is their sum
    report["real_time"] = {{"wall_seconds", result.wall_seconds},
                           {"mean_dt", result.mean_cycle_seconds},
                           {"min_dt", result.min_cycle_seconds},
                           {"max_dt", result.max_cycle_seconds},
                           {"final_lag_seconds", result.final_lag_seconds}};
  }
  return report;
}

// The closing lines: cycles, the final values, and in real time the timing.
void print_rule_summary(const RuleRunRequest& request, const std::string& name, const rules::RuleTable& table,
                        const rules::Interpreter& interpreter, const rules::InterpreterResult& result) {
  std::cout << printable(name) << ": the rule interpreter ran " << result.cycles << " cycles of "
            << (request.real_time ? std::string("measured dt") : "dt = " + format_scalar(interpreter.dt(), 6)) << " to t = "
            << format_scalar(result.t, 10) << " (" << time_name(request) << " time); " << result.switches << " switches\n";
  for (std::size_t i = 0; i < table.reals.size(); ++i) {
    if (table.reals[i].parameter) continue;
    std::cout << "  " << printable(table.reals[i].name) << " = " << format_scalar(result.reals[i], 10) << "\n";
  }
  if (request.paced) {
    std::cout << "paced: wall " << format_scalar(result.wall_seconds, 6) << " s for model " << format_scalar(result.t, 6)
              << " s; cycle " << format_scalar(1e6 * result.mean_cycle_seconds, 3) << " us on average, "
              << format_scalar(1e6 * result.max_cycle_seconds, 3) << " us at most; largest lag "
              << format_scalar(1e3 * result.max_lag_seconds, 3) << " ms\n";
  }
  if (request.real_time) {
    std::cout << "real time: model t = " << format_scalar(result.t, 10) << " s, the sum of " << result.cycles
              << " measured cycles, wall " << format_scalar(result.wall_seconds, 6) << " s; dt "
              << format_scalar(1e6 * result.mean_cycle_seconds, 3) << " us on average, from "
              << format_scalar(1e6 * result.min_cycle_seconds, 3) << " to " << format_scalar(1e6 * result.max_cycle_seconds, 3)
              << " us\n";
  }
}

}  // namespace

int run_rule_table(const RuleRunRequest& request) {
  const rules::RuleTable table = table_with_values(request);
  const rules::InterpreterOptions options = interpreter_options(request, table);
  rules::Interpreter interpreter(table, options);  // checks the options before a file is written
  RuleWriter writer(table, request.out_dir, !request.quiet);
  const std::string name = table.name.empty() ? request.file : table.name;
  const std::filesystem::path out = request.out_dir;
  // Until the run ends, stats.json says so: a killed run leaves no report of an earlier one.
  if (!out.empty()) write_json(out / "stats.json", {{"model", name}, {"file", request.file}, {"status", "running"}});
  interpreter.stop_when(&stop_flag());  // SIGINT, SIGTERM, SIGHUP, SIGXFSZ, --time-limit (hysim/study/stop.hpp)
  rules::InterpreterResult result = interpreter.run(&writer);
  if (result.end != rules::InterpreterEnd::kFailed) {
    try {
      writer.flush();
    } catch (const Error& e) {
      result.end = rules::InterpreterEnd::kFailed;
      result.message = e.what();
    }
  }
  const auto write_stats = [&] { write_json(out / "stats.json", rule_report(request, name, interpreter, options, result)); };
  if (result.end == rules::InterpreterEnd::kFailed) {
    if (!out.empty()) {
      try {  // stats.json says why, when its own write still succeeds
        write_stats();
      } catch (const Error&) {
      }
    }
    throw Error(result.message);  // main reports it and exits 1
  }
  print_rule_summary(request, name, table, interpreter, result);
  if (!out.empty()) {
    write_stats();
    std::cout << "wrote " << printable((out / "trajectory.csv").string()) << ", "
              << printable((out / "events.csv").string()) << ", " << printable((out / "stats.json").string()) << "\n";
  }
  if (result.end == rules::InterpreterEnd::kInterrupted) {
    std::cerr << "hysim: " << stop_cause_text() << ": the rule interpreter stopped at t = " << format_scalar(result.t, 10)
              << (out.empty() ? "" : "; " + printable(out.string()) + " holds its output up to there") << "\n";
    return stop_exit_code();
  }
  return 0;
}

}  // namespace hysim::app
