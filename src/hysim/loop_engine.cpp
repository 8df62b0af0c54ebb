// The run loop of hysim/simulator.hpp. The class comment there is the algorithm; run() follows
// it step by step, each phase a named function (or class: StepOutput, CrossingLocation,
// LoopEvents, SlidingPhase) that returns what the loop does next, and asks the strategy
// (events/strategy.hpp) wherever strategies differ: the loop names none of them.
#include "hysim/loop_engine.hpp"

#include <algorithm>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>

#include "hysim/core/errors.hpp"
#include "hysim/core/log.hpp"
#include "hysim/events/certifier.hpp"
#include "hysim/events/step_limiter.hpp"
#include "hysim/loop_context.hpp"
#include "hysim/loop_events.hpp"
#include "hysim/loop_location.hpp"
#include "hysim/loop_sliding.hpp"
#include "hysim/solvers/starting_step.hpp"
#include "hysim/solvers/stiffness.hpp"

namespace hysim {

namespace {

template <class S>
class LoopEngine final : public Engine<S>, private Outlook<S> {
 public:
  explicit LoopEngine(const EngineSetup<S>& setup)
      : run_(setup),
        output_(run_),
        location_(run_),
        events_(run_),
        sliding_(run_, output_, events_),
        limiter_(setup.options, setup.strategy, run_.stepper->is_adaptive()) {
    if (setup.model.x0.size() != run_.n) throw ModelError("model '" + setup.model.name + "' is not finalized");
    if (run_.strategy.certification().on) make_certifier();
  }

  bool adaptive() const override { return run_.stepper->is_adaptive(); }

  RunResult<S> run(const std::atomic<bool>* stop) override {
    run_.stop = stop;
    const RunReason reason = loop(start());
    return run_.ledger.result(reason, run_.t, run_.mode, run_.stepper->x_current());
  }

 private:
  using Phase = typename StepLimiter<S>::Phase;
  using Decision = CrossingDecision<S>;
  using Kind = typename Resume<S>::Kind;

  // t0: the initial state, and the chain at t0 if a guard of the initial mode already fires
  // or sits at 0 and is driven across (CVODE's cvRcheck1).
  Resume<S> start() {
    output_.reset();
    events_.reset();
    stiffness_.reset();
    run_.sliding.stop();
    run_.t = run_.model.t0;
    run_.mode = run_.model.initial_mode;
    run_.restart(run_.t, run_.model.x0.data());
    check_finite(run_.model, run_.mode, run_.t, run_.stepper->x_current(), "the initial state");
    run_.ledger.started();
    const int at_start = run_.ledger.fires_at_start(run_.mode, run_.t, run_.stepper->x_current(),
                                                    run_.stepper->dxdt_current());
    run_.sample(run_.t, run_.stepper->x_current());
    if (at_start < 0) return {};
    std::copy(run_.stepper->x_current(), run_.stepper->x_current() + run_.n, run_.x_a.begin());
    return events_.take(run_.t, run_.x_a.data(), run_.t, nullptr, at_start);
  }

  // The loop of the class comment: limit, step, then slide or detect, decide, locate and take
  // the event; returns why the run ended (the end reached: kReachedEnd).
  RunReason loop(Resume<S> resume) {
    const S t_end = run_.exact.t_end;
    S h = capped(first_step(), resume);
    while (run_.t < t_end) {
      if (resume.kind == Kind::kZenoStop) return RunReason::kZeno;
      if (resume.kind == Kind::kStopped) return RunReason::kStopped;
      if (resume.kind == Kind::kFreshStart) {  // a Zeno continuation restarted the run at t_inf
        resume = {};
        h = first_step();
        continue;
      }
      if (run_.ledger.stats().events >= run_.options.event_limit) return RunReason::kEventLimit;
      if (run_.stop_requested()) return RunReason::kInterrupted;
      // limit, then step
      h = run_.stepper->preferred_step(h);
      const StepProposal<S> step = limiter_.propose(h, phase(resume), *this, t_end);
      const S h_before = h;
      // The step as taken: h = (t + h) - t, exact (Sterbenz), so that t + h is representable and
      // the states the solver advances by h belong to the time it reports. Otherwise each step
      // moves t by its rounding, up to half an ulp of t, apart from the states: the saw of the
      // PWM servo fell 2.8e-14 s behind t over 20 s with bs3.
      const S t_step = run_.stepper->t_current();
      const StepOutcome<S> outcome = run_.stepper->try_step((t_step + step.h) - t_step);
      if (outcome.status == StepStatus::kRejected) {
        h = rejected(outcome);
        continue;
      }
      accepted(step, run_.stepper->t_current() - t_step);
      // An accepted step's proposal is not below min_step: the solver shrinks to it only after
      // a rejection, and fails below it (rejected()).
      h = std::max(limiter_.next(step, h_before, outcome.h_next), run_.exact.min_step);
      const bool chatter = resume.kind == Kind::kChatter;
      resume = {};
      // slide, or detect and locate
      if (run_.sliding.active()) {
        if (const auto left = sliding_.slide(step)) {
          resume = *left;
          h = capped(limiter_.after_event(h, h_before), resume);
        }
        continue;
      }
      const Crossing<S> crossing = detect();
      if (crossing.transition == kScanStopped) {  // the step is given back; the run ends at its start
        --run_.ledger.stats().steps_accepted;
        run_.take_back();
        return RunReason::kInterrupted;
      }
      if (crossing.transition < 0) {
        run_.detector.rearm_crossings(run_.mode, run_.stepper->t_current(), run_.stepper->x_current());
        output_.advance(step.limit);
        continue;
      }
      h = limiter_.after_event(h, h_before);
      const Decision decision =
          chatter ? Decision::switch_at_end() : run_.strategy.on_crossing({run_.t, step.h, step.limit});
      resume = apply(decision, crossing, step, &h);
      h = capped(h, resume);
    }
    return RunReason::kReachedEnd;
  }

  // The step after an impact is at most the Resume's cap (and not below the minimum step).
  S capped(S h, const Resume<S>& resume) const {
    if (!(resume.step_cap > S(0))) return h;
    return std::min(h, std::max(resume.step_cap, run_.min_step(run_.t)));
  }

  // A rejected step: the integrator's smaller proposal, unless it fell below the minimum.
  S rejected(const StepOutcome<S>& outcome) {
    ++run_.ledger.stats().steps_rejected;
    const S floor = run_.min_step(run_.t);
    if (!(outcome.h_next >= floor)) {  // NaN too
      throw SimulationError(where(run_.model, run_.mode, run_.t) + ": step size " + format_scalar(outcome.h_next) +
                            " fell below the minimum " + format_scalar(floor) +
                            " (stiff, singular or discontinuous field?)");
    }
    return outcome.h_next;
  }

  // An accepted step of length `taken`. One that does not move t, or that the error control
  // chose shorter than the minimum, fails as a rejection below it does: an explicit solver
  // accepts steps of length 0 when the field is huge against the tolerances (err = 0 there),
  // and the run would loop at one t, writing a row per step.
  void accepted(const StepProposal<S>& step, S taken) {
    const S floor = run_.min_step(run_.t);
    if (!(taken > S(0)) || (step.limit == StepLimit::kIntegrator && taken < floor)) {
      throw SimulationError(where(run_.model, run_.mode, run_.t) + ": " + std::string(run_.stepper->name()) +
                            " accepted a step of length " + format_scalar(taken) + ", below the minimum " +
                            format_scalar(floor) +
                            " (the field is too large for the tolerances, or the tolerances too small for the "
                            "scalar type)");
    }
    ++run_.ledger.stats().steps_accepted;
    check_finite(run_.model, run_.mode, run_.stepper->t_current(), run_.stepper->x_current(), "the state");
    HYSIM_LOG_DEBUG("step t = {:.17g} h = {:.3e} ({}) mode {}", to_double(run_.t), to_double(step.h),
                    step_limit_name(step.limit), run_.mode_name());
    if (stiffness_.due()) [[unlikely]] test_stiffness();
  }

  // Hairer's test (solvers/stiffness.hpp), on the steps it is due: when it declares the field
  // stiff for the explicit solver, says so once per run, and the run goes on. Out of line: the
  // step loop pays one decrement.
  [[gnu::noinline]] void test_stiffness() {
    if (!stiffness_.observe(to_double(run_.stepper->stiffness_ratio()))) return;
    run_.ledger.warn(where(run_.model, run_.mode, run_.stepper->t_current()) + ": " +
                     std::string(run_.stepper->name()) + " finds the problem stiff (h |lambda| beyond its stability " +
                     "bound on " + std::to_string(StiffnessDetector::kStiffSteps) +
                     " accepted steps, Hairer's test): stability, not accuracy, holds its steps; a stiff solver "
                     "takes far fewer: rosenbrock4 or ndf (--solver), or CVODE BDF (--strategy cvode)");
  }

  // A stop asked for while scanning a step's many samples (strategy sampled, --samples 1e9
  // takes minutes per step): detect() returns this transition, and the step is not taken.
  static constexpr int kScanStopped = -2;
  static constexpr int kSamplesBetweenPolls = 4096;

  // The certified strategy's prover (events/certifier.hpp), for a run in double of a model
  // with interval guards and a solver whose dense output is a polynomial of known degree.
  void make_certifier() {
    const std::string refused = "strategy certified: ";
    if constexpr (!std::is_same_v<S, double>) {
      throw InvalidArgument(refused + "runs in double only (its interval arithmetic is double's)");
    } else {
      if (!run_.model.guard_enclosure) {
        throw InvalidArgument(refused + "model '" + run_.model.name +
                              "' gives no interval enclosures of its guards; model files do (a built-in model's "
                              "twin: models/" + run_.model.name + ".hym)");
      }
      if (run_.stepper->dense_degree() < 0) {
        throw InvalidArgument(refused + "the dense output of " + std::string(run_.stepper->name()) +
                              " is not a polynomial of a known degree");
      }
      const auto tuning = run_.strategy.certification();
      guard_enclosure_ = run_.model.guard_enclosure();
      certifier_ = std::make_unique<Certifier>(run_.model, guard_enclosure_.get(), &run_.detector,
                                               &run_.ledger.stats().certified, tuning.max_depth, tuning.strict,
                                               tuning.level, static_cast<double>(run_.exact.t_end));
    }
  }

  // detect, certified: the first part of the step where a guard fires, each part before it
  // proved free of guard changes.
  Crossing<S> certified_detect() {
    if constexpr (std::is_same_v<S, double>) {
      const auto min_width = [&](double t) { return run_.min_step(t); };
      const auto warn = [&](std::string message) {
        run_.ledger.warn(where(run_.model, run_.mode, run_.t) + ": " + std::move(message));
      };
      const CertifiedScan scan = certifier_->scan(run_.mode, *run_.stepper, min_width, warn);
      if (scan.transition >= 0) return {scan.transition, scan.t_lo, scan.t_hi};
      return {run_.detector.fired(run_.mode, scan.t_hi, run_.stepper->x_current()), scan.t_lo, scan.t_hi};
    } else {
      return {};
    }
  }

  // detect: the first point of the step where a guard of the mode fires: the strategy's
  // interior samples of the dense output, in order, then the step's end.
  Crossing<S> detect() {
    if (certifier_) return certified_detect();
    const S t0 = run_.stepper->t_previous();
    const S t1 = run_.stepper->t_current();
    const int m = run_.strategy.interior_samples();
    S t_lo = t0;
    for (int j = 1; j <= m; ++j) {
      if (j % kSamplesBetweenPolls == 0 && run_.stop_requested()) return {kScanStopped, t0, t0};
      const S tj = t0 + (t1 - t0) * S(j) / S(m + 1);
      run_.stepper->interpolate(tj, run_.x_mid.data());
      const int k = run_.detector.fired(run_.mode, tj, run_.x_mid.data());
      if (k >= 0) return {k, t_lo, tj};
      run_.detector.rearm_crossings(run_.mode, tj, run_.x_mid.data());
      t_lo = tj;
    }
    return {run_.detector.fired(run_.mode, t1, run_.stepper->x_current()), t_lo, t1};
  }

  // decide: what the strategy decided about a step [t, t_new] in which a guard fired; *h is
  // the next step's proposal (a retry's length after kRetry).
  Resume<S> apply(const Decision& decision, const Crossing<S>& crossing, const StepProposal<S>& step, S* h) {
    const S t_new = run_.stepper->t_current();
    switch (decision.action) {
      case Decision::Action::kSwitchAtEnd:  // on the far side, as a fixed-step rule interpreter
        output_.advance(step.limit);
        std::copy(run_.stepper->x_current(), run_.stepper->x_current() + run_.n, run_.x_a.begin());
        return events_.take(run_.t, run_.x_a.data(), run_.t, nullptr, crossing.transition);
      case Decision::Action::kRetry:  // the step is taken back
        ++run_.ledger.stats().steps_rejected;
        --run_.ledger.stats().steps_accepted;
        run_.take_back();
        *h = decision.h_retry;
        return {};
      case Decision::Action::kSwitchAtStart:  // [t, t_new] is the bracket the chain reads
        run_.keep_step_ends();
        return events_.take(run_.t, run_.x_a.data(), t_new, run_.x_b.data(), crossing.transition);
      case Decision::Action::kLocate: return locate(decision, crossing);
    }
    return {};
  }

  // locate, then take the event at the pre-event end of the bracket (one-sided, 004: x- =
  // x(t_a) satisfies the mode left) or at its post-event end (Ptolemy II).
  Resume<S> locate(const Decision& decision, const Crossing<S>& crossing) {
    int fired_at_b = crossing.transition;
    const Bracket<S> bracket = location_.bracket(crossing, decision, &fired_at_b);  // x_a, x_b at its ends
    const bool post_event = decision.side == Decision::Side::kPostEvent;
    const S t_event = post_event ? bracket.t_b : bracket.t_a, t_far = post_event ? bracket.t_a : bracket.t_b;
    S* x_event = (post_event ? run_.x_b : run_.x_a).data();
    S* x_far = (post_event ? run_.x_a : run_.x_b).data();
    output_.step_done(t_event, StepLimit::kEvent);
    run_.t = t_event;
    run_.sample(run_.t, x_event);
    return events_.take(run_.t, x_event, t_far, x_far, fired_at_b);
  }

  // The first step at t: options.initial_step, the fixed step, or the starting-step estimate
  // (Hairer & Wanner), which is not below min_step (the smallest step the adaptive solver may
  // take by its own choice).
  S first_step() {
    if (!run_.stepper->is_adaptive()) return run_.exact.fixed_step;
    if (run_.exact.initial_step > S(0)) return run_.exact.initial_step;
    return std::max(run_.exact.min_step,
                    starting_step<S>(run_.rhs_of(run_.mode), run_.t, run_.stepper->x_current(),
                                     run_.stepper->dxdt_current(), run_.n, run_.exact.t_end,
                                     run_.tolerances, run_.stepper->order(), run_.x_mid.data(), run_.scratch.data()));
  }

  Phase phase(const Resume<S>& resume) const {
    if (run_.sliding.active()) return Phase::kSliding;
    return resume.kind == Kind::kChatter ? Phase::kChattering : Phase::kInMode;
  }

  // --- the Outlook a strategy reads when it limits a step ------------------------------------

  S t() const override { return run_.t; }
  S min_step() const override { return run_.min_step(run_.t); }
  S time_to_guard() override {
    return run_.detector.time_to_fire(run_.mode, run_.t, run_.stepper->x_current(), run_.stepper->dxdt_current()).tau;
  }
  S time_to_sliding_exit() override {
    return run_.sliding.exit_time(run_.t, run_.stepper->x_current(), run_.stepper->dxdt_current());
  }

  LoopContext<S> run_;
  StepOutput<S> output_;
  CrossingLocation<S> location_;
  LoopEvents<S> events_;
  SlidingPhase<S> sliding_;
  StepLimiter<S> limiter_;
  StiffnessDetector stiffness_;  // Hairer's test over the run's accepted steps
  std::unique_ptr<GuardEnclosure> guard_enclosure_;  // the certified strategy's: the guards on intervals
  std::unique_ptr<Certifier> certifier_;              // ... and its prover; null under the others
};

template <class S>
EngineFactory<S> loop_factory() {
  return [](const EngineSetup<S>& setup) -> std::unique_ptr<Engine<S>> { return std::make_unique<LoopEngine<S>>(setup); };
}

}  // namespace

EngineInfo loop_engine_info() {
  EngineInfo info;
  info.name = StrategyInfo::kOwnEngine;
  info.make_double = loop_factory<double>();
  info.make_long_double = loop_factory<long double>();
  info.make_float128 = loop_factory<float128>();
  return info;
}

}  // namespace hysim
