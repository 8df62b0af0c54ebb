// What a run produces (the run vocabulary, below the simulator and above the model): the
// classes of the modes visited at events (003, Tables 1 and 2), one record per mode visited,
// the step log's reasons, the counters every strategy reports, and the run's result.
//
// Lifetimes: an EventRecord's spans (x_pre, x_post) and its guard name point into the
// simulator's buffers and the model; they are valid during Observer::on_event only. Copy
// what you keep.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "hysim/core/scalar.hpp"

namespace hysim {

// 003, Tables 1 and 2: what kind of mode a transition chain visited.
enum class TransitionClass { kInterior, kBoundary, kSliding, kPinnacle, kMythical };
const char* transition_class_name(TransitionClass c);

// What the certified strategy proved (events/certifier.hpp, docs/certified.md); zero under
// the other strategies.
struct CertifiedStatistics {
  int level = 0;                       // 1: the computed trajectory (the dense output); 2: the exact flow
                                       // from each step's start; 0: none
  std::int64_t steps_proved = 0;       // steps proved free of guard changes up to their event or end
  std::int64_t steps_unproved = 0;     // steps with a part that could not be proved (--no-certified-strict)
  std::int64_t steps_at_resolution = 0; // steps of a few doubles of t, each double read as a point
  std::int64_t enclosures = 0;         // parts of steps enclosed
  std::int64_t subdivisions = 0;       // parts split in two
  int max_depth = 0;                   // the deepest split (a part of 2^-depth of its step)
  std::int64_t events_unique = 0;      // events in a part where one function, monotone, changes sign once
  std::int64_t events_bracketed = 0;   // events found at the depth limit without that proof
  std::int64_t rearm_points = 0;       // disarmed atoms read at their re-arming time by a point (not enclosed)
  double flow_error_max = 0;           // level 2: the largest bound of |x - p| over a step (the exact flow's)
  double flow_early_max = 0;           // level 2: the longest stretch before an event's part where the exact
                                       // flow's guards are undecided (it may fire that much earlier)
  std::int64_t flow_open_at_end = 0;   // level 2: the exact flow may fire just before t_end (within E of its
                                       // surface there), where the dense output does not: not reported
};

// Counters of a run; every strategy reports the same ones.
struct RunStatistics {
  std::int64_t steps_accepted = 0;
  std::int64_t steps_rejected = 0;
  std::int64_t rhs_evals = 0;        // evaluations of a mode's field f_a(t, x)
  std::int64_t guard_evals = 0;      // evaluations of an atom's event function e(t, x)
  std::int64_t root_iterations = 0;  // trial points of the locator (dense-output evaluations)
  std::int64_t events = 0;           // event times (a chain at one time counts once)
  std::int64_t transitions = 0;      // modes visited at events (rows of events.csv)
  std::int64_t one_sided_events = 0; // events whose x- satisfies the old mode (no guard fired)
  CertifiedStatistics certified{};
};

// One mode visited at an event. Rows of one chain share index and t.
template <class S>
struct EventRecord {
  std::int64_t index = 0;       // 1-based event number
  S t = S(0);                   // event time: t_a, the pre-event end of the location bracket
                                //   (double-sided: t_b; step: the step's end)
  S t_bracket = S(0);           // the bracket's other end (= t when there is none)
  int from = -1;                // mode left
  int to = -1;                  // mode entered
  TransitionClass kind = TransitionClass::kInterior;
  std::string_view guard;       // name of the transition taken
  std::span<const S> x_pre;     // state before the transition
  std::span<const S> x_post;    // state after its reset
  bool one_sided = true;        // x_pre satisfies the mode left (none of its guards fires)
};

// How a run ended. A run that cannot go on (a non-finite state or guard, a step size that
// underflows, a chain that loops, exceeds chain_limit or rests in an algebraic mode) ends
// with kFailed and the error in the message: failure is an outcome, as the others are; only
// bad input (options, model) throws, before the run starts.
// kInterrupted: the caller asked the run to stop (Simulator::stop_when, e.g. on SIGINT).
// kStopped: an event took a transition that ends the run (Transition::stop: a crossing written
// with `stop`, scipy's terminal events).
enum class RunReason { kReachedEnd, kEventLimit, kZeno, kFailed, kInterrupted, kStopped };
const char* run_reason_name(RunReason reason);

template <class S>
struct RunResult {
  RunReason reason = RunReason::kReachedEnd;
  std::string message;   // one line: what happened (kFailed: the error, naming model, mode, t, guard)
  S t = S(0);            // time reached (kFailed: the last point passed to the observer)
  S t_zeno = S(0);       // the estimated Zeno accumulation time, when zeno_detected
  bool zeno_detected = false;
  bool zeno_of_pinnacles = false;  // the accumulation was of pinnacles (else of ordinary switches)
  int mode = -1;         // mode at the end
  std::vector<S> x;      // state at the end
  RunStatistics stats;
  // What the run warned about, each once, in order (each also went to the log when it arose):
  // e.g. an explicit solver that found the field stiff (docs/concepts.md, section 3.1).
  std::vector<std::string> warnings;

  bool failed() const { return reason == RunReason::kFailed; }

  // One line for a log or a table: the reason, where (mode index), the work done, and for a
  // failed run its message (docs/concepts.md, section 3.6, has an example).
  std::string report() const {
    const RunStatistics& s = stats;
    return std::string(run_reason_name(reason)) + ": t = " + format_scalar(t, 10) + ", mode " + std::to_string(mode) +
           ", " + std::to_string(s.events) + " events (" + std::to_string(s.one_sided_events) + " one-sided), " +
           std::to_string(s.steps_accepted) + " steps (" + std::to_string(s.steps_rejected) + " rejected), " +
           std::to_string(s.rhs_evals) + " field and " + std::to_string(s.guard_evals) + " guard evaluations, " +
           std::to_string(s.root_iterations) + " root iterations" + (failed() ? "; " + message : "");
  }
};

// Why a step had the length it had (the step log, 004 Figs. 14-16).
enum class StepLimit {
  kIntegrator,  // the integrator's error control (or its first-step estimate)
  kFixed,       // the fixed step of a fixed-step solver
  kMaxStep,     // the max_step option
  kGamma,       // the gamma rule: h_ev = gamma |e / (de/dt)| of an approaching guard
  kMinimum,     // the minimum step (gamma's h_min, or a chattering mode's step)
  kEvent,       // cut short by the event located inside it
  kEnd,         // the end of the interval, t_end
};
const char* step_limit_name(StepLimit limit);

}  // namespace hysim
