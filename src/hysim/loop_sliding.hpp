// slide (simulator.hpp; events/sliding.hpp): a step of the simulator's own loop on a sliding
// surface, integrated with the equivalent (Filippov) field, and the exit of the motion.
#pragma once

#include <algorithm>
#include <optional>

#include "hysim/events/location.hpp"
#include "hysim/loop_context.hpp"
#include "hysim/loop_events.hpp"

namespace hysim {

template <class S>
class SlidingPhase {
 public:
  using Decision = CrossingDecision<S>;
  using Status = typename SlidingMotion<S>::SlideStatus;

  SlidingPhase(LoopContext<S>& run, StepOutput<S>& output, LoopEvents<S>& events)
      : run_(run), output_(output), events_(events) {}

  // A step [t, t_new] of the sliding motion: the exit is looked for at the step's end, and at
  // the strategy's interior samples first; the first point that does not slide ends the
  // bracket. Returns nothing when the motion goes on past the step, else how the run goes on.
  std::optional<Resume<S>> slide(const StepProposal<S>& step) {
    const S t = run_.t, t_new = run_.stepper->t_current();
    S t_hi = t_new;
    if (run_.sliding.status(t_new, run_.stepper->x_current()).status == Status::kSliding) {
      t_hi = t;
      const int interior = run_.strategy.interior_samples();
      for (int j = 1; j <= interior && t_hi == t; ++j) {
        const S tm = t + (t_new - t) * S(j) / S(interior + 1);
        run_.stepper->interpolate(tm, run_.x_mid.data());
        if (run_.sliding.status(tm, run_.x_mid.data()).status != Status::kSliding) t_hi = tm;
      }
      if (t_hi == t) {
        output_.advance(step.limit);
        return std::nullopt;
      }
    }
    return leave(step, t_hi);
  }

 private:
  // The motion left before t_hi: the strategy locates the exit [t_a, t_b] (by default bisection
  // on the motion's status), records it, and the run goes on in the mode it leaves into. The
  // exit is one-sided when x(t_a) still slides.
  Resume<S> leave(const StepProposal<S>& step, S t_hi) {
    const Bracket<S> bracket = exit_bracket(step, t_hi);
    S* x_a = run_.x_a.data();
    run_.stepper->interpolate(bracket.t_a, x_a);
    run_.stepper->interpolate(bracket.t_b, run_.x_b.data());
    const auto probe = run_.sliding.status(bracket.t_b, run_.x_b.data());
    bool one_sided = false;
    {
      const Uncounted measuring(run_.ledger.stats());  // the exit's x- still slides
      one_sided = run_.sliding.status(bracket.t_a, x_a).status == Status::kSliding;
    }
    output_.step_done(bracket.t_a, bracket.t_a == t_hi ? step.limit : StepLimit::kEvent);
    run_.t = bracket.t_a;
    run_.sample(run_.t, x_a);
    std::copy(run_.x_a.begin(), run_.x_a.end(), run_.scratch.begin());  // x- of a one-row exit
    const auto exit = run_.sliding.exit(probe, run_.t, x_a);
    if (exit.transition >= 0) {  // another guard of a or b: its chain
      run_.mode = exit.from;
      return events_.take(run_.t, x_a, bracket.t_b, run_.x_b.data(), exit.transition, one_sided);
    }
    run_.ledger.direct(exit.from, exit.to, exit.guard, run_.t, bracket.t_b, run_.scratch.data(), x_a, one_sided);
    run_.mode = exit.to;
    run_.restart(run_.t, x_a);
    run_.detector.arm(run_.mode, run_.t, run_.stepper->x_current(), run_.stepper->dxdt_current(), run_.t, nullptr);
    run_.sample(run_.t, run_.stepper->x_current());
    // A motion that ends at the time it started lasted less than the time resolution: its
    // surface is degenerate there (it ends where another atom of the guards sits at 0 too, a
    // corner of the switching surfaces, as the PWM servo's pulses at rounding level). Read at
    // one instant, the modes around the corner would send the run back and forth without end
    // (sliding, exit, the guard back, sliding again), so the run leaves it at the time
    // resolution: one step of that length in the exit mode, its event taken at the step's end.
    if (run_.t <= run_.sliding.started_at()) return {Resume<S>::Kind::kChatter};
    return {};
  }

  // The exit's bracket, as the strategy decides (on_sliding_exit): located on the dense
  // output, or [t_hi, t_hi] (the step's end, on the far side).
  Bracket<S> exit_bracket(const StepProposal<S>& step, S t_hi) {
    const Decision decision = run_.strategy.on_sliding_exit({run_.t, t_hi - run_.t, step.limit});
    if (decision.action != Decision::Action::kLocate) return {t_hi, t_hi};
    const S t_lo = t_hi == run_.stepper->t_current() ? run_.stepper->t_previous() : run_.t;
    return locate<S>(
        decision.locator, t_lo, t_hi, S(-1), S(1), run_.bracket_width(decision),
        [this](S tm) {
          run_.stepper->interpolate(tm, run_.x_mid.data());
          Probe<S> p;
          p.fired = run_.sliding.status(tm, run_.x_mid.data()).status != Status::kSliding;
          return p;
        },
        &run_.ledger.stats().root_iterations);
  }

  LoopContext<S>& run_;
  StepOutput<S>& output_;
  LoopEvents<S>& events_;
};

}  // namespace hysim
