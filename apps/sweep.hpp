// `hysim sweep` (apps/sweep.cpp) as a function, for the program and the Python module: many
// runs of one model over a grid or a sample of its parameters, on every core
// (hysim/ensemble/ensemble.hpp), one summary row per run (docs/sweeps.md).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "apps/cli_options.hpp"

namespace hysim::app {

struct SweepRequest {
  ModelChoice choice;          // choice.params: NAME=VALUE (fixed), FROM:TO:COUNT, V1,V2,..., uniform:A:B, normal:M:D
  SimulationOptions options;   // every run's
  std::int64_t samples = 0;    // --draws: runs drawn at random (0: the grid)
  std::uint64_t seed = 1;
  int jobs = 0;                // threads (0: every core)
  int event_columns = 3;       // the first event times in each row
  std::string out_dir;         // the program's: DIR/summary.csv and .json
  bool run_files = false;      // also DIR/runs/<run>/events.csv and trajectory.csv
  std::int64_t first = 0;      // a part of the sweep: runs [first, first + runs) of the whole
  std::int64_t runs = 0;       // 0: to the end
};

struct SweepSummary {
  std::int64_t runs = 0, failed = 0;
  std::int64_t not_run = 0;  // rows of runs a stop (SIGINT, SIGTERM, the time limit) left unstarted
  double seconds = 0;
  int threads = 0;
};

// Checks every input, then calls header(columns) once and row(cells) once per run, in the
// order of the runs, with each cell as text (numbers with 17 significant digits; an event
// that did not happen is ""). A run whose values the model rejects (its `require`) is a row
// with reason "failed" and the error in its message; once the stop flag is up (apps/stop.hpp)
// the runs not started are rows with reason "not_run". Both have empty numbers. Throws InvalidArgument before calling either for bad input.
SweepSummary run_sweep(const SweepRequest& request,
                       const std::function<void(const std::vector<std::string>&)>& header,
                       const std::function<void(std::vector<std::string>&&)>& row);

}  // namespace hysim::app
