// Matching the events of a run against a model's reference events (models/reference.hpp),
// for `hysim compare`, `hysim reproduce` and `hysim workprecision`.
//
// A run event is the first row of one event index (a chain of transitions at one time is one
// event): its time t_a, the guard that fired first and the state x- it left from.
//
// The rule (docs/cli.md, "Matching events"):
//   window     reference event j owns the window [t*_j - l_j, t*_j + r_j], where l_j is half the
//              gap to the previous reference event and r_j half the gap to the next one; the
//              first event borrows r_j for l_j, the last borrows l_j for r_j, and a lone event
//              has an unbounded window. Windows of neighbours meet but do not overlap.
//   match      run events are taken in time order; each matches the unmatched reference event
//              with the same guard name whose window holds its time and whose t* is nearest
//              (ties: the earlier reference event). A run event with none is spurious.
//   start      a run event at the run's start t0 (a guard that fires there: a chain at t0) is
//              compared only with reference events at t0 exactly; without one it is counted
//              as at_start, neither matched nor spurious (references list the events after
//              the start: a model that starts on a switching surface has its first chain there).
//   missed     an unmatched reference event is missed, unless its window reaches past the end
//              of the run (t*_j + r_j > t_end): the run stopped before it could report that
//              event within its window (an event at t_end itself, which rounding puts on either
//              side of t_end), so it is left out of the counts as open.
//
// Times and states are float128 so that double and long double runs convert exactly.
#pragma once

#include <cstddef>
#include <limits>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "hysim/core/scalar.hpp"
#include "hysim/models/reference.hpp"

namespace hysim::study {

// One event of a run: the first row of its index.
struct RunEvent {
  float128 t = 0;
  std::string guard;
  std::vector<float128> x;  // x-, in the model's state layout
};

inline constexpr std::ptrdiff_t kUnmatched = -1;

struct MatchResult {
  std::vector<std::ptrdiff_t> reference_of_run;  // per run event: its reference event, or kUnmatched
  std::vector<std::ptrdiff_t> run_of_reference;  // per reference event: its run event, or kUnmatched
  std::size_t matched = 0;
  std::size_t missed = 0;    // unmatched reference events whose window closed before t_end
  std::size_t open = 0;      // unmatched reference events whose window reaches past t_end
  std::size_t spurious = 0;  // unmatched run events
  std::size_t at_start = 0;  // run events at t0 that the reference has no event at t0 for
};

// Both lists in time order. t_end: the end of the run; t0: its start.
MatchResult match_events(std::span<const RunEvent> run, std::span<const ReferenceEvent> reference, float128 t_end,
                         float128 t0 = -std::numeric_limits<float128>::infinity());

// Signed errors of one matched event: t~ - t* and x~_i - x*_i (as in 004, Table 1).
struct EventError {
  double t = 0;
  std::vector<double> x;
};

// The errors of reference event `number` (1-based), or nothing when it does not exist or was
// not matched.
std::optional<EventError> event_error(const MatchResult& match, std::span<const RunEvent> run,
                                      std::span<const ReferenceEvent> reference, std::size_t number);

// max |t~ - t*| over the matched events; nothing when none matched.
std::optional<double> max_time_error(const MatchResult& match, std::span<const RunEvent> run,
                                     std::span<const ReferenceEvent> reference);

}  // namespace hysim::study
