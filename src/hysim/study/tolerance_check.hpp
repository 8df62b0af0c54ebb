// The tolerance check of `hysim run --check-tolerance`: the same run again with every tolerance
// ten times tighter, and the events of the two matched against each other (the matching of
// `hysim compare`, hysim/study/matching.hpp, the tighter run standing as the reference).
//
// Why. An adaptive solver controls the error of each step; the error of the events, which is
// the state's global error divided by the speed at which the guard crosses its surface, is
// beyond its sight. Where a guard crosses slowly, or a crest barely reaches its surface, the
// tolerance can allow more error than the events can stand: crossings are missed, invented or
// paired wrongly, and nothing in the run says so. The practical way to see it is the one
// numerical analysts give for the global error: solve again with more stringent tolerances and
// compare (L. F. Shampine, I. Gladwell, S. Thompson, "Solving ODEs with MATLAB", Cambridge
// University Press 2003, section 1.4; E. Hairer, S. P. Norsett, G. Wanner, "Solving Ordinary
// Differential Equations I", section II.4, "Tolerance proportionality"). If the events differ
// (an event of one has no partner in the other), the tolerance does not resolve them. If they
// agree, max |t - t_tight| estimates the run's event-time error: the tighter run's own error is
// about ten times smaller when the solver's error is proportional to its tolerance. Where the
// rerun takes the very same steps (the tolerance does not limit them: events, the maximum step
// or stability do), the two agree whatever the error, and the check says it has no estimate.
//
// What it does not prove. Both runs can be wrong alike (a crest that neither reaches); the
// estimate assumes proportionality (hysim workprecision reports where a solver lacks it). A
// check that agrees is evidence, not a proof: for a proof of the computed trajectory's events,
// see the certified strategy.
//
// The rerun: rtol, atol and every state's atol divided by `factor` (10), and for the fixed-step
// solvers (rk4, euler) the step; every other option as given. Its output is not written.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>

#include <nlohmann/json.hpp>

#include "hysim/core/model.hpp"
#include "hysim/events/strategy.hpp"
#include "hysim/run/options.hpp"
#include "hysim/study/matching.hpp"

namespace hysim::study {

struct ToleranceCheckOptions {
  double factor = 10;                // the rerun's tolerances are the run's divided by this, > 1
  std::size_t max_events = 1000000;  // events kept in memory from each run, >= 1

  void validate() const;
};

// The verdict of one check.
struct ToleranceCheck {
  double rtol = 0, atol = 0;      // the rerun's (scalar) tolerances
  std::size_t events = 0;         // the run's events (first row of each index)
  std::size_t events_tight = 0;   // the rerun's
  std::size_t matched = 0, missed = 0, spurious = 0;  // the run's events against the rerun's
  std::optional<double> max_dt;   // max |t - t_tight| over the matched events: the estimated error
  std::string not_checked;        // why no verdict: the rerun failed, or too many events to keep
  std::string first_difference;   // the earliest event without a partner, as a sentence
  // The rerun took as many steps and field evaluations as the run: its tolerance did not limit
  // them (events, the maximum step or stability did), so max_dt says nothing of the error.
  bool same_steps = false;

  // The events agree: every one has its partner, and the check ran.
  bool resolved() const { return not_checked.empty() && missed == 0 && spurious == 0; }
  // One paragraph for the terminal.
  std::string summary() const;
  // For stats.json: {"factor", "rtol", "atol", "events", "events_tight", "matched", "missed",
  // "spurious", "max_dt", "same_steps", "resolved", "note"}.
  nlohmann::json to_json() const;
};

// `options` with its tolerances (and fixed step) divided by `factor`.
SimulationOptions tightened_options(const SimulationOptions& options, double factor);

// The run's side: its events in time order (as EventCollector keeps them), whether it had more
// than the check keeps, and the time it reached (a run that ended early, at the event limit or
// a Zeno accumulation, is compared up to there).
struct CheckedRun {
  std::span<const RunEvent> events;
  bool overflowed = false;
  double t_reached = 0;
  std::int64_t steps_accepted = -1;  // the run's steps and field evaluations (-1: not known)
  std::int64_t rhs_evals = -1;
};

// Runs `model` again under tightened_options(options, check.factor) to the run's t_reached,
// and matches the run's events against the rerun's. An event of either run without a partner
// whose window reaches past the end is left out (its partner may lie just after the end). double, long double and float128.
template <class S>
ToleranceCheck check_tolerance(const Model<S>& model, const SimulationOptions& options, const CheckedRun& run,
                               const ToleranceCheckOptions& check = {}, const StrategySettings& settings = {});

}  // namespace hysim::study
