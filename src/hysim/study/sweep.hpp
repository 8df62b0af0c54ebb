// Many runs of one model over a grid or a sample of its parameters, on every core
// (hysim/ensemble/ensemble.hpp), one summary row per run (docs/sweeps.md):
//
//   NAME=0.05:0.2:64      a linear grid: 64 values from 0.05 to 0.2, ends included
//   NAME=0.5,1,2          a list
//   NAME=0.7              one value for every run
//   NAME=uniform:A:B      with draws: a uniform draw in [A, B)
//   NAME=normal:M:D       with draws: a normal draw of mean M and deviation D
//   NAME=loguniform:A:B   with draws: exp of a uniform draw in [ln A, ln B), 0 < A < B
//   NAME=declared         with draws: a uniform draw over the range the model declares
//
// With draws, `declared_ranges` draws every parameter that declares a range and no --param
// names, and rtol_low/rtol_high draw each run's rtol log-uniformly (atol keeps its ratio to rtol).
//
// The grid is the Cartesian product of its axes, the last one varying fastest; draws of run i
// come from a stream seeded by (seed, i). Every field of a row but the wall time is the same
// whatever the number of threads.
#pragma once

#include <cstdint>
#include <functional>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "hysim/study/model.hpp"

namespace hysim::study {

struct SweepRequest {
  ModelChoice choice;          // choice.params: the specs above, NAME=SPEC
  SimulationOptions options;   // every run's
  std::int64_t samples = 0;    // runs drawn at random (0: the grid)
  std::uint64_t seed = 1;
  int jobs = 0;                // threads (0: every core)
  int event_columns = 3;       // the first event times in each row
  std::string out_dir;         // with run_files: DIR/runs/<run>/ (the program also writes DIR/summary.*)
  bool run_files = false;      // DIR/runs/<run>/events.csv and trajectory.csv
  std::int64_t first = 0;      // a part of the sweep: runs [first, first + runs) of the whole
  std::int64_t runs = 0;       // 0: to the end
  bool declared_ranges = false;  // with samples: draw every parameter over its declared range
  // With samples and rtol_low < rtol_high: each run's rtol is drawn log-uniformly in
  // [rtol_low, rtol_high) and its atol is rtol * (options.atol / options.rtol); both are
  // columns of the rows, after the swept parameters. 0, 0: every run has options' tolerances.
  double rtol_low = 0, rtol_high = 0;

  bool draws_tolerance() const { return rtol_low > 0 || rtol_high > 0; }

  // Throws InvalidArgument for what is wrong whatever the model: no swept parameter, a
  // negative count, run files without a folder, a bad option.
  void validate() const;
};

// A real number of a run: its text as the summary files write it (17 significant digits in the
// run's own scalar type; the wall time with 3), and the double that text reads as. Unknown (a
// run that did not run, an event that did not happen): NaN and "".
struct SweepReal {
  double value = std::numeric_limits<double>::quiet_NaN();
  std::string text;

  bool known() const { return !text.empty(); }
};

// The layout of the rows: run, the swept parameters, reason, message, t, mode, events,
// t_event1..t_eventN, the final state, steps, rejected, field_evals, guard_evals, wall_s.
struct SweepColumns {
  std::vector<std::string> swept;   // the swept parameters, in the order of choice.params (then
                                    // the declared ranges'), then rtol and atol when drawn
  int event_columns = 0;
  std::vector<std::string> states;  // the model's states
  std::int64_t runs = 0;            // the rows that follow (for a progress line)

  // The column names in that order.
  std::vector<std::string> names() const;
};

// One run. A run whose values the model rejects (its `require`) has reason "failed" and the
// error as its message; a run that a stop (stop_flag) left unstarted has reason "not_run"; a
// run that the engine refuses midway (UnsupportedModel) has reason "refused" and the refusal.
// Both leave every field after the message unknown.
struct SweepRow {
  std::int64_t run = 0;
  std::vector<SweepReal> swept;  // the values of the run, as text exactly as it used them
  std::string reason;            // run_reason_name of the run, or "failed" / "not_run" / "refused"
  std::string message;           // a failure's error; "" otherwise
  SweepReal t;                   // the final time
  std::string mode;              // the final mode ("" when unknown)
  std::optional<std::int64_t> events;
  std::vector<SweepReal> event_times;  // event_columns entries
  std::vector<SweepReal> state;        // the final state, one per column state
  std::optional<std::int64_t> steps, rejected, field_evals, guard_evals;
  SweepReal wall_s;
  // What the caller's `prepare` made of the row on the thread that ran it (run_sweep), e.g.
  // its lines of the summary files; empty without one.
  std::vector<std::string> prepared;

  bool ran() const { return events.has_value(); }
};

struct SweepSummary {
  std::int64_t runs = 0, failed = 0;
  std::int64_t refused = 0;  // rows of runs the engine refused (UnsupportedModel: cvode and sliding)
  std::int64_t not_run = 0;  // rows of runs a stop (SIGINT, SIGTERM, the time limit) left unstarted
  double seconds = 0;
  int threads = 0;
};

// Checks every input, then calls columns(layout) once and row(r) once per run, in the order of
// the runs. Throws InvalidArgument before calling either for bad input. The model is built
// once for the layout, then once per run with that run's values.
//
// `prepare` (optional) is called with each row on the thread that ran it, before `row`, and
// concurrently with other rows: work on the row alone (formatting it, into SweepRow::prepared)
// done there keeps the one ordered `row` call per run short, so that it does not limit how
// many threads a sweep of short runs can use.
SweepSummary run_sweep(const SweepRequest& request, const std::function<void(const SweepColumns&)>& columns,
                       const std::function<void(SweepRow&&)>& row,
                       const std::function<void(SweepRow&)>& prepare = {});

// The number of runs of the whole sweep, whatever request.first and request.runs say, after the
// checks run_sweep makes before its first run (InvalidArgument): what a caller that cuts the
// sweep into parts (a cluster's chunks) divides.
std::int64_t sweep_size(const SweepRequest& request);

}  // namespace hysim::study
