// What `hysim run` writes: an observer that streams the trajectory, the event log and the
// step log to CSV files as the run goes (so a failed run keeps what it computed), keeps the
// event rows for the table printed at the end, and times itself so that the run's wall time
// can exclude it.
#pragma once

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "hysim/simulator.hpp"

namespace hysim::app {

// One row of events.csv, kept as text for the printed table.
struct EventRow {
  std::string index, t, from, to, kind, guard;
  std::vector<std::string> x_pre, x_post;
};

template <class S>
class Recorder final : public Observer<S> {
 public:
  // out_dir empty: no files, only the rows in memory.
  explicit Recorder(const std::filesystem::path& out_dir);

  void on_start(const Model<S>& model, const SimulationOptions& options) override;
  void on_sample(S t, int mode, std::span<const S> x) override;
  void on_event(const EventRecord<S>& record) override;
  void on_step(S t, S h, StepLimit limit) override;
  void on_finish(const RunResult<S>& result) override;

  // Flushes the files (also after a failed run).
  void flush();

  const std::vector<EventRow>& rows() const { return rows_; }
  // Seconds spent inside the callbacks above.
  double seconds_in_observer() const { return seconds_; }
  S last_t() const { return last_t_; }

 private:
  const Model<S>* model_ = nullptr;
  std::ofstream trajectory_, events_, steps_;
  std::vector<EventRow> rows_;
  double seconds_ = 0.0;
  S last_t_ = S(0);
};

}  // namespace hysim::app
