// The simulator: runs a hybrid model (core/model.hpp) through Algorithm 1 of Mosterman et al.
// (docs/papers/README.md), made precise below, with a pluggable event-detection strategy
// (events/strategy.hpp). Where strategies differ, the loop asks the strategy (marked
// [strategy] below); the built-in ones are in events/strategies/, one file each. The top
// layer of the engine: docs/architecture.md maps every concept below to its file. The loop
// below is the engine "hysim" (loop_engine.cpp; its phases in loop_context.hpp,
// loop_location.hpp, loop_events.hpp, loop_sliding.hpp); a strategy's catalog entry may name
// another engine, as cvode does (events/engine.hpp). Every engine records into one ledger
// (events/ledger.hpp): the chain at t0, the events, Zeno, the counters and the result.
//
//   t = t0, x = x0, a = initial mode
//   resolve the chain at t0 if a guard of a already fires            (events/chain.hpp)
//   while t < t_end:
//     limit    h = the integrator's proposal, capped by max_step, by the strategy
//              [limit_step; gamma, gamma-refine: the gamma rule h_ev = gamma |e / (de/dt)|
//              of the approaching guards, 004 Algorithms 1-3, events/detection.hpp
//              time_to_fire], and by t_end - t; the cap that bound is the step log's `limit`
//              (events/step_limiter.hpp)
//     step     one accepted step [t, t + h] of the integrator, dense output kept
//     slide    on a sliding surface (below): if the step's end still slides, continue;
//              else locate the exit [on_sliding_exit], record it and go on in the mode entered
//     detect   the first point of the step where a guard of a fires: its end, after the
//              strategy's interior points of the dense output [interior_samples; sampled]
//     decide   [on_crossing] switch at the step's end, post-event side (step); take the
//              step back and retry shorter, or switch at the step's start once it is h_min
//              long (gamma); or
//     locate   shrink a bracket [t_a, t_b] on the dense output, guard not fired at t_a and
//              fired at t_b, with the strategy's root finder (bisection, Illinois, ITP;
//              events/location.hpp) until t_b is the next representable time after t_a (or
//              t_b - t_a <= the tolerance); the event is at t_a with x- = x(t_a), on the
//              PRE-event side (one-sided, 004), or at t_b (double-sided, Ptolemy II)
//     recurse  resolve the chain of transitions at the event (003, Eq. 3 and Table 2;
//              events/chain.hpp): x+ = reset(x) from the a priori x; mythical if a guard of
//              the mode entered fires strictly on (x, x+), else commit x := x+; pinnacle if a
//              guard fires on (x+, x+); boundary if one fires an instant later along the
//              field; sliding if the chain returns to a visited (mode, state) through
//              boundary links; else interior. Up to chain_limit modes
//     record   every mode visited, with its class, x-, x+, the guard that fired, and whether
//              x- satisfies the mode left (one-sided, measured at every event)
//     zeno     if the chain visited a pinnacle: test the last zeno_events intervals between
//              pinnacle events (below)
//     restart  the integrator at (t_a, x+) in the arrival mode, and re-arm its guards: an atom
//              that holds at the entry point only because the point lies within the location
//              bracket, and that the field drives out, is masked until it has left
//              (events/detection.hpp, arm)
//
// Slide (Mosterman et al., "Sliding Mode"; Filippov's equivalent dynamics): a sliding arrival on a two-mode
// cycle a -> b -> a names its surface S (the atom of a's guard to b on its surface). With
// options.sliding the state is projected onto S = 0 (Newton along grad S) and integrated
// with the equivalent (Filippov) field
//     f_s = (1 - lambda) f_a + lambda f_b,   lambda = r_a / (r_a - r_b),
// r_a, r_b the rates of S along f_a and f_b (Atom::rate, else a central difference); under
// gamma and gamma-refine the steps are capped by the gamma rule on the two rates. After
// each step (sampled: also at its interior points): if another guard of a or b fires, or
// a's or b's field drives away from S (lambda leaves [0, 1]; a rate exactly 0 still
// slides), the exit is located by bisection on the dense output, the state is moved by
// rounding-level amounts to the side of the mode the run goes on from, and the exit is the
// chain of the other guard, or one row into a ("end_of_sliding") or into b (a's guard to
// b). Longer cycles, and every sliding arrival without options.sliding, chatter: the next
// step is min_step long (h_min under gamma) and a guard that fires at its end switches
// there, on the far side (not one-sided). The cvode peer (peers/cvode.cpp) has no
// equivalent dynamics.
//
// Zeno (events accumulating in finite time; events/zeno.hpp): when zeno_events consecutive intervals
// d between pinnacle events shrink by ratios r < 1 that agree within zeno_ratio_tolerance (plus
// what the time resolution res of the run's events allows: h_min under gamma, else a few ulps),
// the events accumulate at t_inf = t_k + d r / (1 - r); once t_inf - t_k <= zeno_horizon (or
// d <= 64 res), and when all those intervals are already within max(zeno_horizon, 2 res)
// (t_inf = t_k), and t_inf < t_end, the run records a row to the model's continuation mode
// (guard "zeno") and goes on from (t_inf, reset(x)), or, without a continuation, stops with
// RunReason::kZeno. A continuation after which the pinnacles accumulate again at once at the
// same point is a SimulationError.
//
// Failure policy: bad options and ill-formed models throw InvalidArgument / ModelError before
// the run starts (the Simulator's constructor). A run that cannot go on (non-finite state or
// guard, step size underflow, a chain that loops, exceeds chain_limit or rests in an algebraic
// mode) returns its result with RunReason::kFailed, the message naming the model, the mode,
// the time and the guard, and the last point passed to the observer; everything recorded
// before has already been passed on. A Zeno accumulation is an outcome (zeno_detected,
// t_zeno), as is the event limit.
//
// Lifetimes: the model outlives the Simulator (it keeps a reference); the observer outlives
// run(); an EventRecord's spans and guard name are valid during Observer::on_event only.
// A Simulator is not shared between threads; several may run at once on one model.
#pragma once

#include <atomic>
#include <memory>

#include "hysim/core/model.hpp"
#include "hysim/events/strategy.hpp"
#include "hysim/run/observer.hpp"
#include "hysim/run/options.hpp"
#include "hysim/run/result.hpp"

namespace hysim {

template <class S>
class Simulator {
 public:
  // The model must be finalized and outlive the simulator; the options are validated here
  // (InvalidArgument names the culprit), the strategy looked up in strategy_catalog(), and
  // its own options checked. `settings`: the values of a registered strategy's own options
  // (StrategyOption, events/strategy.hpp) that SimulationOptions does not hold.
  // A model that is not finalized (Model::finalize: targets resolved, x0 sized) is a ModelError.
  Simulator(const Model<S>& model, SimulationOptions options);
  Simulator(const Model<S>& model, SimulationOptions options, StrategySettings settings);
  // The simulator keeps a reference to the model: a temporary would be gone before the run.
  Simulator(Model<S>&& model, SimulationOptions options) = delete;
  Simulator(Model<S>&& model, SimulationOptions options, StrategySettings settings) = delete;
  ~Simulator();
  Simulator(const Simulator&) = delete;
  Simulator& operator=(const Simulator&) = delete;

  // Runs from (model.t0, model.x0) to options.t_end. The observer may be null. Throws only
  // what the model's own functions throw that is not a SimulationError; a failed run is a result.
  RunResult<S> run(Observer<S>* observer = nullptr);

  // The run ends (RunReason::kInterrupted) at the first step it begins after *flag becomes
  // true, with everything computed so far passed to the observer. The flag is only read, and
  // may be set from another thread or a signal handler (std::atomic<bool> is lock-free).
  // Null: no such check. Every engine polls it (the CVODE peer after each internal step).
  void stop_when(const std::atomic<bool>* flag);

  // The counters of the current or last run (as in the result).
  const RunStatistics& statistics() const;

 private:
  class Impl;
  std::unique_ptr<Impl> impl_;
};

extern template class Simulator<double>;
extern template class Simulator<long double>;
extern template class Simulator<float128>;

}  // namespace hysim
