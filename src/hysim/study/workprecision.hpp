// A work-precision study (`hysim workprecision`, docs/cli.md): every solver with every strategy
// over a sweep of tolerances, each run's event times measured against the model's reference.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "hysim/study/evaluation.hpp"

namespace hysim::study {

struct WorkPrecisionRequest {
  ModelChoice choice;
  SimulationOptions options;  // t_end and the strategies' tuning
  std::vector<std::string> solvers;     // empty: every adaptive solver
  std::vector<std::string> strategies;  // empty: every strategy but the CVODE peer unsuited to the model
  double rtol_from = 1e-3;
  double rtol_to = 1e-12;
  int per_decade = 1;
  double atol_factor = 1e-3;  // atol = atol_factor * rtol
  std::string out_dir;        // the program's: workprecision.csv, .gp and .png there
  int jobs = 0;               // threads (0: every core)

  // Throws InvalidArgument for a tolerance that is not positive, per_decade < 1, or a sweep of
  // more than kMostTolerances tolerances.
  void validate() const;
};

inline constexpr int kMostTolerances = 1000;  // a sweep longer than this is a typing mistake

// rtol_from, then every 1/per_decade of a decade toward rtol_to, ending at rtol_to.
std::vector<double> rtol_sweep(const WorkPrecisionRequest& request);

struct WorkPrecision {
  SimulationOptions base;  // the options shared by the runs (solver: the first one)
  std::vector<double> rtols;
  Reference reference;
  // One line per solver and strategy, one point per rtol: rows grouped by series, rtol inner;
  // atol = atol_factor * rtol.
  std::vector<Evaluation> runs;
};

// Validates, checks the options and the names, then runs every point against the reference.
// Throws InvalidArgument when the model has no reference for these parameters.
WorkPrecision work_precision(const WorkPrecisionRequest& request);

// Tolerance proportionality of one run, within its series (the same solver and strategy over
// the sweep). With e = max |t - t*| over the matched events:
//   error_per_rtol  e / rtol;
//   reversal        e / (the smallest e of the series at a looser rtol): above 1 the error grew
//                   while the tolerance fell (NaN at the loosest rtol, or with nothing to compare);
//   flagged         reversal > kMostReversal (the error is not monotone within that factor), or
//                   error_per_rtol > kMostDrift times the smallest error_per_rtol of the series at
//                   a looser rtol (the error falls slower than the tolerance, by more than that
//                   factor since: the error per step control of a low order method, whose global
//                   error goes as rtol^(p/(p+1)), shows so), or events missed or spurious.
// Runs that did not complete, or matched no event, have NaN measures and are not flagged.
struct Proportionality {
  static constexpr double kMostReversal = 3;
  static constexpr double kMostDrift = 10;
  double error = 0;
  double error_per_rtol = 0;
  double reversal = 0;
  bool flagged = false;
  std::string why;  // "", or what flagged it
};

// One per run of study.runs, in their order.
std::vector<Proportionality> proportionality(const WorkPrecision& study);

}  // namespace hysim::study
