// Writing a run to CSV files as it goes: an Observer (run/observer.hpp) that streams the
// event log, the trajectory and the step log into a folder, so that memory does not grow with
// the horizon and a run that fails keeps what it computed (docs/library.md, "Outputs"; the
// columns are those of docs/cli.md, "Output files").
//
//   events.csv      index,t,from,to,class,guard,one_sided,<states>,<states>+   one row per
//                   mode visited at an event, flushed row by row
//   trajectory.csv  t,mode,<states>   every sample the simulator passes on (the solver's step
//                   ends or the output grid, t0, t_end, both sides of each event)
//   steps.csv       t,h,limit         every accepted step and what limited it
//
// Numbers are written with the round-trip digits of S (17 for double, 21 for long double, 36
// for float128).
//
// A write that fails (a full disk, a file size limit) ends the run: the callback throws
// SimulationError("write failed: FILE: REASON"), so the run ends failed with that message at
// the last row written instead of computing rows that are lost.
#pragma once

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "hysim/run/observer.hpp"

namespace hysim {

// Which files a CsvWriter writes.
struct CsvFiles {
  bool events = true;
  bool trajectory = true;
  bool steps = true;
};

template <class S>
class CsvWriter final : public Observer<S> {
 public:
  // Creates `folder` (with its parents) and the chosen files in it, replacing old ones. Throws
  // InvalidArgument naming the folder or file that cannot be written.
  explicit CsvWriter(const std::filesystem::path& folder, CsvFiles files = {});

  void on_start(const Model<S>& model, const SimulationOptions& options) override;
  void on_sample(S t, int mode, std::span<const S> x) override;
  void on_event(const EventRecord<S>& record) override;
  void on_step(S t, S h, StepLimit limit) override;
  void on_finish(const RunResult<S>& result) override;

  // Flushes every file (on_finish does; call it after a run that threw).
  void flush();
  // Flushes, then throws Error("write failed: FILE: REASON") for the first file that could not
  // be written in full (a full disk): call it before reporting the files as written.
  void check_written();
  // "write failed: FILE: REASON" for the first write that failed; empty while none has.
  const std::string& write_error() const { return error_; }
  // The files being written.
  std::vector<std::filesystem::path> files() const;
  // The time of the last sample written.
  S last_t() const { return last_t_; }

 private:
  std::filesystem::path folder_;
  const Model<S>* model_ = nullptr;
  std::ofstream events_, trajectory_, steps_;
  S last_t_ = S(0);
  std::string line_;  // the row being written, reused
  std::string error_;  // the first write that failed

  // Throws SimulationError after a write to `stream` failed.
  void check(const std::ofstream& stream);
  std::string failure(const std::ofstream& stream, int error) const;
};

extern template class CsvWriter<double>;
extern template class CsvWriter<long double>;
extern template class CsvWriter<float128>;

}  // namespace hysim
