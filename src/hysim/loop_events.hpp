// recurse, record, zeno and restart (simulator.hpp): an event of the simulator's own loop goes
// to the ledger (the chain at t_a, its rows, the Zeno policy), and the integrator restarts in
// the arrival mode, on its sliding surface, or at a Zeno accumulation; the returned Resume says
// how the loop goes on.
#pragma once

#include <limits>

#include "hysim/core/log.hpp"
#include "hysim/loop_context.hpp"

namespace hysim {

template <class S>
class LoopEvents {
 public:
  explicit LoopEvents(LoopContext<S>& run) : run_(run) {}

  void reset() { last_pinnacle_t_ = -std::numeric_limits<S>::infinity(); }

  // An event at t_a: transition `transition` of the run's mode fired between (t_a, x_a) and
  // (t_b, x_b) (x_b null: no bracket). `left_sliding`: the event ends a sliding motion, which
  // x_a satisfies (measured by the caller).
  Resume<S> take(S t_a, const S* x_a, S t_b, const S* x_b, int transition, bool left_sliding = false) {
    using Kind = typename Resume<S>::Kind;
    run_.detector.rearm_crossings(run_.mode, t_a, x_a);  // x_a is on the trajectory the run accepts
    // One-sided (004): x- satisfies the mode being left, i.e. none of its guards fires there.
    const bool one_sided = left_sliding || run_.ledger.satisfies(run_.mode, t_a, x_a);
    const AfterEvent<S> after =
        run_.ledger.event(run_.mode, transition, t_a, x_a, t_b, x_b, one_sided, S(0), run_.time_resolution(t_a));
    run_.mode = after.arrival.mode;
    switch (after.next) {
      case AfterEvent<S>::Next::kStop:  // in the arrival mode at the event
        run_.restart(t_a, after.arrival.x);
        return {Kind::kZenoStop};
      case AfterEvent<S>::Next::kStopped:  // the same, the model's choice
        run_.restart(t_a, after.arrival.x);
        return {Kind::kStopped};
      case AfterEvent<S>::Next::kContinueZeno:  // at t_inf in the continuation
        run_.mode = after.zeno_mode;
        run_.t = after.t_zeno;
        run_.restart(run_.t, after.zeno_x);
        run_.detector.disarm();
        run_.sample(run_.t, run_.stepper->x_current());
        return {Kind::kFreshStart};
      case AfterEvent<S>::Next::kGoOn: break;
    }
    const S step_cap = after.pinnacle ? impact(t_a) : S(0);
    if (after.last_kind == TransitionClass::kSliding && run_.options.sliding && start_sliding(t_a, after.arrival)) {
      run_.sample(t_a, run_.stepper->x_current());
      return {Kind::kStep, step_cap};
    }
    run_.restart(t_a, after.arrival.x, after.arrival.dxdt);
    run_.detector.rearm_crossings_after(run_.mode, t_a, run_.stepper->x_current(), t_b, after.arrival.x_far,
                                        run_.stepper->dxdt_current());
    run_.detector.arm(run_.mode, t_a, run_.stepper->x_current(), run_.stepper->dxdt_current(), t_b,
                      after.arrival.x_far);
    run_.sample(t_a, run_.stepper->x_current());
    // A sliding arrival without equivalent dynamics, or a mode left at the very time it was
    // entered (its guard fired an instant after entry, below the time resolution), chatters
    // at the strategy's time resolution.
    const bool chatters = after.last_kind == TransitionClass::kSliding || after.repeated;
    return {chatters ? Kind::kChatter : Kind::kStep, step_cap};
  }

 private:
  // After an impact the next flight is shorter than the last one (a Zeno sequence) or
  // comparable, but the step proposal may be thousands of flights long: the next root is then
  // read off the dense output at theta ~ 1e-5 of the step, where an order-3 interpolant
  // (rosenbrock4) errs by more than the flight's height, and the bounces settle at that
  // accuracy floor (cam-follower --preset fig11: a constant 2.8e-7 s period, millions of
  // events) instead of accumulating. So the next step is at most twice the interval since
  // the previous pinnacle event: the cap returned (0: none).
  S impact(S t_a) {
    const S cap = last_pinnacle_t_ < t_a ? S(2) * (t_a - last_pinnacle_t_) : S(0);
    last_pinnacle_t_ = t_a;
    return cap;
  }

  // Starts the equivalent dynamics at a sliding arrival; false when it does not slide there.
  bool start_sliding(S t, const typename TransitionChain<S>::Arrival& arrival) {
    if (!run_.sliding.start(t, arrival, run_.x_a.data())) return false;
    run_.mode = run_.sliding.mode_a();
    run_.restart_sliding(t, run_.x_a.data());
    run_.detector.disarm();
    run_.detector.quiet_off();
    HYSIM_LOG_DEBUG("sliding from t = {:.17g} between '{}' and '{}'", to_double(t), run_.mode_name(),
                    run_.model.modes[static_cast<std::size_t>(run_.sliding.mode_b())].name);
    return true;
  }

  LoopContext<S>& run_;
  S last_pinnacle_t_ = -std::numeric_limits<S>::infinity();  // the last event through a pinnacle
};

}  // namespace hysim
