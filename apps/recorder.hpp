// What `hysim run` writes: an observer that passes the run to the library's CsvWriter
// (hysim/output/csv_writer.hpp: events.csv, trajectory.csv, steps.csv, streamed), prints the
// event table as events come (each row once, in columns sized from the model, so memory does
// not grow with the horizon), shows progress on a terminal, and times itself so that the
// run's wall time can exclude it.
#pragma once

#include <chrono>
#include <cstdint>
#include <deque>
#include <filesystem>
#include <fstream>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "hysim/output/csv_writer.hpp"
#include "hysim/output/run_report.hpp"
#include "hysim/simulator.hpp"

namespace hysim::app {

// Which of the files of --out to write (--files).
struct OutputFiles {
  bool events = true, trajectory = true, steps = true, stats = true;
  // Parses "events,trajectory,steps,stats" (any subset, in any order). Throws InvalidArgument.
  static OutputFiles parse(const std::vector<std::string>& names);
};

// How the event table is printed (--table).
enum class TableMode {
  kAll,          // every row, as it comes
  kAbbreviated,  // the first kHeadRows rows as they come, then the last kTailRows at the end
  kNone,         // no table (--quiet)
};

template <class S>
class Recorder final : public Observer<S> {
 public:
  static constexpr std::int64_t kHeadRows = 40;
  static constexpr std::size_t kTailRows = 10;

  // out_dir empty: no files. `table` (null when mode is kNone) receives the event table.
  Recorder(const std::filesystem::path& out_dir, OutputFiles files, TableMode mode, std::ostream* table);

  void on_start(const Model<S>& model, const SimulationOptions& options) override;
  void on_sample(S t, int mode, std::span<const S> x) override;
  void on_event(const EventRecord<S>& record) override;
  void on_step(S t, S h, StepLimit limit) override;
  void on_finish(const RunResult<S>& result) override;

  // Flushes the files (also after a failed run).
  void flush();
  // Flushes, and throws Error naming a file that could not be written in full.
  void check_written() {
    if (csv_) csv_->check_written();
  }
  // "write failed: FILE: REASON" once a write failed (the run ends there); empty before.
  std::string write_error() const { return csv_ ? csv_->write_error() : std::string(); }
  // Prints what the abbreviated table held back: the last rows, after a line saying how many
  // were left out.
  void finish_table();

  // A progress line on `progress` (stderr on a terminal), rewritten at most twice a second
  // once the run has taken a second: model time, its fraction of [t0, t_end], events, rate.
  void show_progress(std::ostream* progress, double t0, double t_end);

  // Seconds spent inside the callbacks above.
  double seconds_in_observer() const { return seconds_; }
  S last_t() const { return csv_ ? csv_->last_t() : S(0); }
  // The transitions so far by name (stats.json's "transitions_by_guard").
  const TransitionCounts& transition_counts() const { return counts_; }
  // The files written, for the closing line of `run`.
  std::vector<std::filesystem::path> written() const;

 private:
  void print_row(const std::vector<std::string>& cells);

  const Model<S>* model_ = nullptr;
  std::filesystem::path out_dir_;
  OutputFiles files_;
  TableMode mode_;
  std::ostream* table_;
  std::vector<std::size_t> widths_;
  std::int64_t rows_ = 0;
  std::deque<std::vector<std::string>> tail_;
  std::optional<CsvWriter<S>> csv_;  // with --out
  std::ostream* progress_ = nullptr;
  double t0_ = 0, t_end_ = 1;
  std::int64_t events_seen_ = 0, last_index_ = -1, steps_seen_ = 0;
  double since_start_ = 0, printed_at_ = 0;  // seconds, by the steady clock
  bool progress_shown_ = false;
  std::chrono::steady_clock::time_point started_;
  std::uint32_t progress_calls_ = 0;  // the clock is read every kProgressStride calls
  static constexpr std::uint32_t kProgressStride = 256;
  void progress(S t);
  double seconds_ = 0.0;
  TransitionCounts counts_;
};

}  // namespace hysim::app
