// The run loop of hysim/simulator.hpp. The class comment there is the algorithm; run_loop()
// follows it step by step, each step a named function below, and asks the strategy
// (events/strategy.hpp) wherever strategies differ: the loop names none of them.
#include "hysim/simulator.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <type_traits>

#include "hysim/core/errors.hpp"
#include "hysim/core/log.hpp"
#include "hysim/events/chain.hpp"
#include "hysim/events/detection.hpp"
#include "hysim/events/event_emitter.hpp"
#include "hysim/events/location.hpp"
#include "hysim/events/run_checks.hpp"
#include "hysim/events/sliding.hpp"
#include "hysim/events/step_limiter.hpp"
#include "hysim/events/zeno.hpp"
#include "hysim/run/exact_options.hpp"
#include "hysim/solvers/starting_step.hpp"
#include "hysim/solvers/stepper.hpp"

namespace hysim {

namespace {

SimulationOptions validated(SimulationOptions options) {
  options.validate();
  return options;
}

// Forwards everything to the caller's observer (if any) and keeps the last sample: where a
// failed run stood.
template <class S>
class LastSample final : public Observer<S> {
 public:
  explicit LastSample(std::size_t n) : x(n) {}
  void forward_to(Observer<S>* observer) {
    next_ = observer;
    seen = false;
  }
  void on_start(const Model<S>& model, const SimulationOptions& options) override {
    if (next_) next_->on_start(model, options);
  }
  void on_sample(S t_sample, int mode_sample, std::span<const S> x_sample) override {
    t = t_sample;
    mode = mode_sample;
    std::copy(x_sample.begin(), x_sample.end(), x.begin());
    seen = true;
    if (next_) next_->on_sample(t_sample, mode_sample, x_sample);
  }
  void on_event(const EventRecord<S>& record) override {
    if (next_) next_->on_event(record);
  }
  void on_step(S t_step, S h, StepLimit limit) override {
    if (next_) next_->on_step(t_step, h, limit);
  }
  void on_finish(const RunResult<S>& result) override {
    if (next_) next_->on_finish(result);
  }

  S t = S(0);
  int mode = -1;
  std::vector<S> x;
  bool seen = false;

 private:
  Observer<S>* next_ = nullptr;
};

}  // namespace

template <class S>
class Simulator<S>::Impl final : private Outlook<S> {
 public:
  Impl(const Model<S>& model, SimulationOptions options)
      : model_(model),
        options_(validated(std::move(options))),
        exact_(exact_options<S>(options_)),
        info_(find_strategy(options_.strategy)),
        strategy_(info_.is_driver() ? nullptr : info_.make<S>(options_)),
        n_(model.state_size()),
        stepper_(make_stepper<S>(options_.solver, n_,
                                 StepperTolerances<S>{exact_.rtol, exact_.atol})),
        detector_(model, &stats_.guard_evals, &stats_.rhs_evals),
        chain_(model, options_.chain_limit, &detector_, &stats_.rhs_evals),
        emitter_(model, options_, &chain_, &stats_),
        sliding_(model, &detector_, &stats_.rhs_evals),
        zeno_(model, options_, &emitter_),
        limiter_(options_, strategy_.get(), stepper_->is_adaptive()),
        last_(n_),
        x_a_(n_), x_b_(n_), x_mid_(n_), scratch_(n_), x_grid_(n_) {
    check_against_horizon<S>(options_, exact_, model.t0,
                             RunShape{stepper_->is_adaptive(), info_.is_driver() ? info_.name : std::string(),
                                      std::is_same_v<S, double>, uses_h_min(), options_.strategy});
    if (model.x0.size() != n_) throw ModelError("model '" + model.name + "' is not finalized");
  }

  // A run that cannot go on ends with RunReason::kFailed and the error's message, at the last
  // point passed to the observer; everything before it has been passed on.
  RunResult<S> run(Observer<S>* observer) {
    last_.forward_to(observer);
    observer_ = &last_;
    RunResult<S> result;
    try {
      if (info_.is_driver()) {
        if constexpr (std::is_same_v<S, double>) result = info_.driver(model_, options_, observer_, &stats_, stop_);
      } else {
        start();
        result = run_loop();
      }
    } catch (const SimulationError& error) {
      result = failed(error);
    }
    if (observer_) observer_->on_finish(result);
    return result;
  }

  const RunStatistics& statistics() const { return stats_; }
  void stop_when(const std::atomic<bool>* flag) { stop_ = flag; }

 private:
  using Phase = typename StepLimiter<S>::Phase;
  using Decision = CrossingDecision<S>;

  // --- the loop (the class comment's pseudocode) ---------------------------------------------

  // t0: the initial state, and the chain at t0 if a guard of the initial mode already fires
  // or sits at 0 and is driven across (CVODE's cvRcheck1).
  void start() {
    stats_ = RunStatistics{};
    emitter_.reset(observer_);
    detector_.disarm();
    sliding_.stop();
    zeno_.reset();
    chatter_next_step_ = zeno_stop_ = fresh_start_ = false;
    last_pinnacle_t_ = -std::numeric_limits<S>::infinity();
    pinnacle_step_cap_ = S(0);
    t_ = model_.t0;
    mode_ = model_.initial_mode;
    grid_step_ = exact_.output_step;
    next_grid_ = 1;
    stepper_->restart(rhs_of(mode_), t_, model_.x0.data(), nullptr);
    check_finite(model_, mode_, t_, stepper_->x_current(), "the initial state");
    observer_->on_start(model_, options_);
    const FiredTransition at_start =
        detector_.fired_after(mode_, t_, stepper_->x_current(), t_, nullptr, stepper_->dxdt_current());
    sample(t_, stepper_->x_current());
    if (at_start.index >= 0) {
      std::copy(stepper_->x_current(), stepper_->x_current() + n_, x_a_.begin());
      take_event(t_, x_a_.data(), t_, nullptr, at_start.index);
    }
  }

  RunResult<S> run_loop() {
    const S t_end = exact_.t_end;
    RunResult<S> result;
    S h = first_step();
    while (t_ < t_end) {
      if (zeno_stop_) {
        result.reason = RunReason::kZeno;
        break;
      }
      if (fresh_start_) {  // a Zeno continuation restarted the run at t_inf
        fresh_start_ = false;
        h = first_step();
        continue;
      }
      if (stats_.events >= options_.event_limit) {
        result.reason = RunReason::kEventLimit;
        break;
      }
      if (stop_requested()) {
        result.reason = RunReason::kInterrupted;
        break;
      }
      // limit, then step
      h = stepper_->preferred_step(h);
      const StepProposal<S> step = limiter_.propose(h, phase(), *this, t_end);
      const S h_before = h;
      // The step as taken: h = (t + h) - t, exact (Sterbenz), so that t + h is representable and
      // the states the solver advances by h belong to the time it reports. Otherwise each step
      // moves t by its rounding, up to half an ulp of t, apart from the states: the saw of the
      // PWM servo fell 2.8e-14 s behind t over 20 s with bs3.
      const S t_step = stepper_->t_current();
      const StepOutcome<S> outcome = stepper_->try_step((t_step + step.h) - t_step);
      if (outcome.status == StepStatus::kRejected) {
        h = rejected(outcome);
        continue;
      }
      accepted(step, stepper_->t_current() - t_step);
      // An accepted step's proposal is not below min_step: the solver shrinks to it only after
      // a rejection, and fails below it (rejected()).
      h = std::max(limiter_.next(step, h_before, outcome.h_next), exact_.min_step);
      const bool chatter = chatter_next_step_;
      chatter_next_step_ = false;
      // slide, or detect and locate
      if (sliding_.active()) {
        h = slide(step, h, h_before);
        continue;
      }
      const Crossing crossing = detect();
      if (crossing.transition == kScanStopped) {  // the step is given back; the run ends at its start
        --stats_.steps_accepted;
        std::copy(stepper_->x_previous(), stepper_->x_previous() + n_, x_a_.begin());
        stepper_->restart(rhs_of(mode_), t_, x_a_.data(), nullptr);
        result.reason = RunReason::kInterrupted;
        break;
      }
      if (crossing.transition < 0) {
        advance(step.limit);
        continue;
      }
      h = limiter_.after_event(h, h_before);
      const Decision decision = chatter ? Decision::switch_at_end() : strategy_->on_crossing({t_, step.h, step.limit});
      h = apply(decision, crossing, step, h);
      if (pinnacle_step_cap_ > S(0)) {  // take_event: the step after an impact
        h = std::min(h, std::max(pinnacle_step_cap_, min_step(t_)));
        pinnacle_step_cap_ = S(0);
      }
    }
    return finished(result);
  }

  // A rejected step: the integrator's smaller proposal, unless it fell below the minimum.
  S rejected(const StepOutcome<S>& outcome) {
    ++stats_.steps_rejected;
    if (!(outcome.h_next >= min_step(t_))) {  // NaN too
      throw SimulationError(where(model_, mode_, t_) + ": step size " + format_scalar(outcome.h_next) +
                            " fell below the minimum " + format_scalar(min_step(t_)) +
                            " (stiff, singular or discontinuous field?)");
    }
    return outcome.h_next;
  }

  // An accepted step of length `taken`. One that does not move t, or that the error control
  // chose shorter than the minimum, fails as a rejection below it does: an explicit solver
  // accepts steps of length 0 when the field is huge against the tolerances (err = 0 there),
  // and the run would loop at one t, writing a row per step.
  void accepted(const StepProposal<S>& step, S taken) {
    if (!(taken > S(0)) || (step.limit == StepLimit::kIntegrator && taken < min_step(t_))) {
      throw SimulationError(where(model_, mode_, t_) + ": " + std::string(stepper_->name()) +
                            " accepted a step of length " + format_scalar(taken) + ", below the minimum " +
                            format_scalar(min_step(t_)) +
                            " (the field is too large for the tolerances, or the tolerances too small for the "
                            "scalar type)");
    }
    ++stats_.steps_accepted;
    check_finite(model_, mode_, stepper_->t_current(), stepper_->x_current(), "the state");
    HYSIM_LOG_DEBUG("step t = {:.17g} h = {:.3e} ({}) mode {}", to_double(t_), to_double(step.h),
                    step_limit_name(step.limit), mode_name());
  }

  // The step ends without an event: the run moves to its end.
  void advance(StepLimit limit) {
    step_done(stepper_->t_current(), limit);
    t_ = stepper_->t_current();
    if (samples_step_end(t_)) sample(t_, stepper_->x_current());
  }

  // detect: the first point of the step where a guard of the mode fires: the strategy's
  // interior samples of the dense output, in order, then the step's end. Returns the
  // transition and a sub-interval [t_lo, t_hi] with no guard fired at t_lo and it fired at t_hi.
  struct Crossing {
    int transition = -1;
    S t_lo = S(0), t_hi = S(0);
  };

  // A stop asked for while scanning a step's many samples (strategy sampled, --samples 1e9
  // takes minutes per step): detect() returns this transition, and the step is not taken.
  static constexpr int kScanStopped = -2;
  static constexpr int kSamplesBetweenPolls = 4096;

  Crossing detect() {
    const S t0 = stepper_->t_previous();
    const S t1 = stepper_->t_current();
    const int m = strategy_->interior_samples();
    S t_lo = t0;
    for (int j = 1; j <= m; ++j) {
      if (j % kSamplesBetweenPolls == 0 && stop_requested()) return {kScanStopped, t0, t0};
      const S tj = t0 + (t1 - t0) * S(j) / S(m + 1);
      stepper_->interpolate(tj, x_mid_.data());
      const int k = detector_.fired(mode_, tj, x_mid_.data());
      if (k >= 0) return {k, t_lo, tj};
      t_lo = tj;
    }
    return {detector_.fired(mode_, t1, stepper_->x_current()), t_lo, t1};
  }

  // What the strategy decided about a step [t_, t_new] in which a guard fired; returns the
  // next step's proposal.
  S apply(const Decision& decision, const Crossing& crossing, const StepProposal<S>& step, S h) {
    const S t_new = stepper_->t_current();
    switch (decision.action) {
      case Decision::Action::kSwitchAtEnd:  // on the far side, as a fixed-step rule interpreter
        advance(step.limit);
        std::copy(stepper_->x_current(), stepper_->x_current() + n_, x_a_.begin());
        take_event(t_, x_a_.data(), t_, nullptr, crossing.transition);
        return h;
      case Decision::Action::kRetry:  // the step is taken back
        ++stats_.steps_rejected;
        --stats_.steps_accepted;
        std::copy(stepper_->x_previous(), stepper_->x_previous() + n_, x_a_.begin());
        stepper_->restart(rhs_of(mode_), t_, x_a_.data(), nullptr);
        return decision.h_retry;
      case Decision::Action::kSwitchAtStart:  // [t_, t_new] is the bracket the chain reads
        std::copy(stepper_->x_previous(), stepper_->x_previous() + n_, x_a_.begin());
        std::copy(stepper_->x_current(), stepper_->x_current() + n_, x_b_.begin());
        take_event(t_, x_a_.data(), t_new, x_b_.data(), crossing.transition);
        return h;
      case Decision::Action::kLocate: {
        int fired_at_b = crossing.transition;
        const Bracket<S> bracket = locate_crossing(crossing, decision, &fired_at_b);  // x_a_, x_b_ at its ends
        if (decision.side == Decision::Side::kPostEvent) {  // Ptolemy II
          step_done(bracket.t_b, StepLimit::kEvent);
          t_ = bracket.t_b;
          sample(t_, x_b_.data());
          take_event(t_, x_b_.data(), bracket.t_a, x_a_.data(), fired_at_b);
        } else {  // one-sided (004): x- = x(t_a) satisfies the mode left
          step_done(bracket.t_a, StepLimit::kEvent);
          t_ = bracket.t_a;
          sample(t_, x_a_.data());
          take_event(t_, x_a_.data(), bracket.t_b, x_b_.data(), fired_at_b);
        }
        return h;
      }
    }
    return h;
  }

  // locate: the strategy's root finder on [t_lo, t_hi] of the dense output. Interpolating
  // locators follow the atom whose crossing made the guard fire (events/detection.hpp,
  // changed_atom): that atom alone decides each trial point, one guard evaluation per
  // iteration, and the bracket found is then read on every guard of the mode (none fired at
  // t_a, one at t_b). When a guard already fires at t_a (another one fired first inside the
  // step), the event lies in [t_lo, t_a]; when none fires at t_b (another atom of the guard
  // changes its truth later), in [t_b, t_hi]: the atom that crossed there is followed in turn,
  // up to kAtomLocations times. Without such an atom the guards decide every trial point.
  // On return x_a_ and x_b_ hold the states at the bracket's ends: each trial point's state
  // is kept as the end it becomes (kept()), not interpolated again.
  static constexpr int kAtomLocations = 4;

  Bracket<S> locate_crossing(const Crossing& c, const Decision& decision, int* fired_at_b) {
    if (const auto computed = time_event(c, fired_at_b)) {
      stepper_->interpolate(computed->t_a, x_a_.data());
      stepper_->interpolate(computed->t_b, x_b_.data());
      return *computed;
    }
    Crossing at = c;
    const S width = tolerance(decision);  // of the final bracket
    for (int n = 0; decision.locator != Locator::kBisection && n < kAtomLocations; ++n) {
      const CrossingAtom crossing = crossing_atom(at);
      if (crossing.atom < 0) break;
      const Bracket<S> bracket = locate<S>(
          decision.locator, at.t_lo, at.t_hi, crossing.phi_lo, crossing.phi_hi, width,
          [this, &at, &crossing](S tm) {
            stepper_->interpolate(tm, x_mid_.data());
            return kept(detector_.atom_probe(mode_, at.transition, crossing.atom, tm, x_mid_.data()));
          },
          &stats_.root_iterations);
      if (const int k_a = detector_.fired(mode_, bracket.t_a, x_a_.data()); k_a >= 0) {
        at = {k_a, at.t_lo, bracket.t_a};
        continue;
      }
      if (const int k_b = detector_.fired(mode_, bracket.t_b, x_b_.data()); k_b >= 0) {
        *fired_at_b = k_b;
        return bracket;
      }
      at.t_lo = bracket.t_b;
    }
    *fired_at_b = at.transition;
    CrossingAtom crossing;
    if (decision.locator != Locator::kBisection) {
      crossing = crossing_atom(at);
    } else {
      stepper_->interpolate(at.t_lo, x_a_.data());
      stepper_->interpolate(at.t_hi, x_b_.data());
    }
    return locate<S>(
        crossing.atom >= 0 ? decision.locator : Locator::kBisection, at.t_lo, at.t_hi, crossing.phi_lo,
        crossing.phi_hi, width,
        [this, &at, &crossing, fired_at_b](S tm) {
          stepper_->interpolate(tm, x_mid_.data());
          const int k = detector_.fired(mode_, tm, x_mid_.data());
          if (k >= 0) *fired_at_b = k;
          Probe<S> p;
          p.fired = k >= 0;
          if (crossing.atom >= 0) p.phi = detector_.oriented(mode_, at.transition, crossing.atom, tm, x_mid_.data());
          return kept(p);
        },
        &stats_.root_iterations);
  }

  // The trial point's state, in x_mid_, becomes the end of the bracket that the locator moves
  // to it (events/location.hpp: t_b when it fired, else t_a).
  Probe<S> kept(const Probe<S>& p) {
    std::swap(x_mid_, p.fired ? x_b_ : x_a_);
    return p;
  }

  // The atom of the crossing's guard that does not hold at t_lo and holds at t_hi, with its
  // oriented values there; atom -1 when there is none. Leaves x(t_lo) in x_a_, x(t_hi) in x_b_.
  struct CrossingAtom {
    int atom = -1;
    S phi_lo = S(-1), phi_hi = S(1);
  };

  CrossingAtom crossing_atom(const Crossing& c) {
    stepper_->interpolate(c.t_lo, x_a_.data());
    stepper_->interpolate(c.t_hi, x_b_.data());
    CrossingAtom a;
    a.atom = detector_.changed_atom(mode_, c.transition, c.t_lo, x_a_.data(), c.t_hi, x_b_.data());
    if (a.atom >= 0) {
      a.phi_lo = detector_.oriented(mode_, c.transition, a.atom, c.t_lo, x_a_.data());
      a.phi_hi = detector_.oriented(mode_, c.transition, a.atom, c.t_hi, x_b_.data());
    }
    return a;
  }

  // A time event (core/guard.hpp, Atom::time): when the atom whose crossing fired the guard
  // depends on t alone with the closed-form root K, the bracket is computed, not searched:
  // [prev(t_b), t_b] for the first of prev(K), K, next(K) where the whole guard fires and
  // did not one ulp before (checked on the guard itself). Otherwise nothing: the locator runs.
  std::optional<Bracket<S>> time_event(const Crossing& c, int* fired_at_b) {
    const auto& atoms = model_.modes[static_cast<std::size_t>(mode_)].transitions[static_cast<std::size_t>(c.transition)]
                            .guard.atoms();
    if (std::none_of(atoms.begin(), atoms.end(), [](const Atom<S>& a) { return is_finite(a.time); })) return std::nullopt;
    stepper_->interpolate(c.t_lo, x_a_.data());
    stepper_->interpolate(c.t_hi, x_b_.data());
    const int atom = detector_.changed_atom(mode_, c.transition, c.t_lo, x_a_.data(), c.t_hi, x_b_.data());
    if (atom < 0 || !is_finite(atoms[static_cast<std::size_t>(atom)].time)) return std::nullopt;
    const S root = atoms[static_cast<std::size_t>(atom)].time;
    const auto fired_at = [this](S t) {
      stepper_->interpolate(t, x_mid_.data());
      return detector_.fired(mode_, t, x_mid_.data());
    };
    for (const S& t_b : {-next_up(-root), root, next_up(root)}) {
      const S t_a = -next_up(-t_b);
      if (t_a < c.t_lo || t_b > c.t_hi) continue;
      const int k = fired_at(t_b);
      if (k < 0 || fired_at(t_a) >= 0) continue;
      *fired_at_b = k;
      return Bracket<S>{t_a, t_b};
    }
    return std::nullopt;
  }

  S tolerance(const Decision& decision) const {
    return decision.tolerance >= S(0) ? decision.tolerance : exact_.event_tolerance;
  }

  // recurse and record: resolves the chain at t_a, records it, and restarts the stepper in
  // the arrival mode (or on its sliding surface, or at a Zeno accumulation). `left_sliding`:
  // the event ends a sliding motion, which x_a satisfies (measured by the caller).
  void take_event(S t_a, const S* x_a, S t_b, const S* x_b, int transition, bool left_sliding = false) {
    // One-sided (004): x- satisfies the mode being left, i.e. none of its guards fires there.
    // Measured, not assumed; the check is not counted as work of the strategy.
    const std::int64_t guard_evals = stats_.guard_evals;
    const bool one_sided = left_sliding || detector_.fired(mode_, t_a, x_a, /*literal=*/true) < 0;
    stats_.guard_evals = guard_evals;
    const EventOrigin origin{mode_, transition};
    const auto outcome = emitter_.take(mode_, transition, t_a, x_a, t_b, x_b, one_sided);
    mode_ = outcome.arrival.mode;
    if (at_zeno(t_a, outcome.arrival.x, outcome.pinnacle, origin)) return;
    // After an impact the next flight is shorter than the last one (a Zeno sequence) or
    // comparable, but the step proposal may be thousands of flights long: the next root is then
    // read off the dense output at theta ~ 1e-5 of the step, where an order-3 interpolant
    // (rosenbrock4) errs by more than the flight's height, and the bounces settle at that
    // accuracy floor (cam-follower --preset fig11: a constant 2.8e-7 s period, millions of
    // events) instead of accumulating. So the next step is at most twice the interval since
    // the previous pinnacle event.
    if (outcome.pinnacle) {
      if (last_pinnacle_t_ < t_a) pinnacle_step_cap_ = S(2) * (t_a - last_pinnacle_t_);
      last_pinnacle_t_ = t_a;
    }
    if (outcome.last_kind == TransitionClass::kSliding && options_.sliding && start_sliding(t_a, outcome.arrival)) {
      sample(t_a, stepper_->x_current());
      return;
    }
    // A sliding arrival without equivalent dynamics, or a mode left at the very time it was
    // entered (its guard fired an instant after entry, below the time resolution), chatters
    // at the strategy's time resolution.
    chatter_next_step_ = outcome.last_kind == TransitionClass::kSliding || outcome.repeated;
    stepper_->restart(rhs_of(mode_), t_a, outcome.arrival.x, outcome.arrival.dxdt);
    detector_.arm(mode_, t_a, stepper_->x_current(), stepper_->dxdt_current(), t_b, outcome.arrival.x_far);
    sample(t_a, stepper_->x_current());
  }

  // zeno: after an event at t with arrival state x (events/zeno.hpp, ZenoPolicy); `pinnacle`:
  // its chain visited one. True when Zeno is declared: the run then stops, or goes on at t_inf
  // in the continuation.
  bool at_zeno(S t, const S* x, bool pinnacle, EventOrigin origin) {
    switch (zeno_.observe(t, time_resolution(t), mode_, x, pinnacle, origin)) {
      case ZenoPolicy<S>::Verdict::kNone: return false;
      case ZenoPolicy<S>::Verdict::kStop:  // in the arrival mode at the event
        stepper_->restart(rhs_of(mode_), t, x, nullptr);
        zeno_stop_ = true;
        return true;
      case ZenoPolicy<S>::Verdict::kContinue:
        mode_ = model_.zeno.mode;
        chatter_next_step_ = false;
        t_ = zeno_.t_zeno();
        stepper_->restart(rhs_of(mode_), t_, zeno_.continuation_state(), nullptr);
        detector_.disarm();
        sample(t_, stepper_->x_current());
        fresh_start_ = true;
        return true;
    }
    return false;
  }

  // --- slide (events/sliding.hpp) ------------------------------------------------------------

  // Starts the equivalent dynamics at a sliding arrival; false when it does not slide there.
  bool start_sliding(S t, const typename TransitionChain<S>::Arrival& arrival) {
    if (!sliding_.start(t, arrival, x_a_.data())) return false;
    mode_ = sliding_.mode_a();
    chatter_next_step_ = false;
    stepper_->restart(Rhs<S>{&sliding_.field(), &stats_.rhs_evals}, t, x_a_.data(), nullptr);
    detector_.disarm();
    HYSIM_LOG_DEBUG("sliding from t = {:.17g} between '{}' and '{}'", to_double(t), mode_name(),
                    model_.modes[static_cast<std::size_t>(sliding_.mode_b())].name);
    return true;
  }

  // A step [t_, t_new] of the sliding motion: the exit is looked for at the step's end, and at
  // the strategy's interior samples first; the first point that does not slide ends the
  // bracket. Returns the next step's proposal.
  S slide(const StepProposal<S>& step, S h, S h_before) {
    const S t_new = stepper_->t_current();
    using Status = typename SlidingMotion<S>::SlideStatus;
    S t_hi = t_new;
    if (sliding_.status(t_new, stepper_->x_current()).status == Status::kSliding) {
      t_hi = t_;
      const int interior = strategy_->interior_samples();
      for (int j = 1; j <= interior && t_hi == t_; ++j) {
        const S tm = t_ + (t_new - t_) * S(j) / S(interior + 1);
        stepper_->interpolate(tm, x_mid_.data());
        if (sliding_.status(tm, x_mid_.data()).status != Status::kSliding) t_hi = tm;
      }
      if (t_hi == t_) {
        advance(step.limit);
        return h;
      }
    }
    leave_sliding(step, t_hi);
    return limiter_.after_event(h, h_before);
  }

  // The motion left before t_hi: the strategy locates the exit [t_a, t_b] (by default bisection
  // on the motion's status), records it, and the run goes on in the mode it leaves into. The
  // exit is one-sided when x(t_a) still slides.
  void leave_sliding(const StepProposal<S>& step, S t_hi) {
    using Status = typename SlidingMotion<S>::SlideStatus;
    Bracket<S> bracket{t_hi, t_hi};
    const Decision decision = strategy_->on_sliding_exit({t_, t_hi - t_, step.limit});
    if (decision.action == Decision::Action::kLocate) {
      const S t_lo = t_hi == stepper_->t_current() ? stepper_->t_previous() : t_;
      bracket = locate<S>(
          decision.locator, t_lo, t_hi, S(-1), S(1), tolerance(decision),
          [this](S tm) {
            stepper_->interpolate(tm, x_mid_.data());
            Probe<S> p;
            p.fired = sliding_.status(tm, x_mid_.data()).status != Status::kSliding;
            return p;
          },
          &stats_.root_iterations);
    }
    stepper_->interpolate(bracket.t_a, x_a_.data());
    stepper_->interpolate(bracket.t_b, x_b_.data());
    const auto probe = sliding_.status(bracket.t_b, x_b_.data());
    // One-sided: the exit's x- still slides (measured, not counted as the strategy's work).
    const std::int64_t guard_evals = stats_.guard_evals, rhs_evals = stats_.rhs_evals;
    const bool one_sided = sliding_.status(bracket.t_a, x_a_.data()).status == Status::kSliding;
    stats_.guard_evals = guard_evals;
    stats_.rhs_evals = rhs_evals;
    step_done(bracket.t_a, bracket.t_a == t_hi ? step.limit : StepLimit::kEvent);
    t_ = bracket.t_a;
    sample(t_, x_a_.data());
    std::copy(x_a_.begin(), x_a_.end(), scratch_.begin());  // x- of a one-row exit
    const auto exit = sliding_.exit(probe, t_, x_a_.data());
    if (exit.transition >= 0) {  // another guard of a or b: its chain
      mode_ = exit.from;
      take_event(t_, x_a_.data(), bracket.t_b, x_b_.data(), exit.transition, one_sided);
      return;
    }
    emitter_.take_direct(exit.from, exit.to, TransitionClass::kInterior, exit.guard, t_, bracket.t_b,
                         scratch_.data(), x_a_.data(), n_, one_sided);
    mode_ = exit.to;
    stepper_->restart(rhs_of(mode_), t_, x_a_.data(), nullptr);
    detector_.arm(mode_, t_, stepper_->x_current(), stepper_->dxdt_current(), t_, nullptr);
    sample(t_, stepper_->x_current());
  }

  // --- the end --------------------------------------------------------------------------------

  RunResult<S> finished(RunResult<S> result) {
    result.t = t_;
    result.mode = mode_;
    result.x.assign(stepper_->x_current(), stepper_->x_current() + n_);
    result.stats = stats_;
    result.zeno_detected = zeno_.detected();
    result.zeno_of_pinnacles = zeno_.of_pinnacles();
    result.t_zeno = zeno_.t_zeno();
    result.message = result_message(result, model_);
    return result;
  }

  RunResult<S> failed(const SimulationError& error) {
    RunResult<S> result;
    result.reason = RunReason::kFailed;
    result.message = error.what();
    result.t = last_.seen ? last_.t : model_.t0;
    result.mode = last_.seen ? last_.mode : model_.initial_mode;
    result.x = last_.seen ? last_.x : model_.x0;
    result.stats = stats_;
    result.zeno_detected = zeno_.detected();
    result.zeno_of_pinnacles = zeno_.of_pinnacles();
    result.t_zeno = zeno_.t_zeno();
    return result;
  }

  // --- the Outlook a strategy reads when it limits a step ----------------------------------------

  S t() const override { return t_; }
  S min_step() const override { return min_step(t_); }
  S time_to_guard() override {
    return detector_.time_to_fire(mode_, t_, stepper_->x_current(), stepper_->dxdt_current()).tau;
  }
  S time_to_sliding_exit() override {
    return sliding_.exit_time(t_, stepper_->x_current(), stepper_->dxdt_current());
  }

  // --- helpers --------------------------------------------------------------------------------

  Phase phase() const {
    if (sliding_.active()) return Phase::kSliding;
    return chatter_next_step_ ? Phase::kChattering : Phase::kInMode;
  }

  Rhs<S> rhs_of(int mode) {
    return Rhs<S>{&model_.modes[static_cast<std::size_t>(mode)].field, &stats_.rhs_evals};
  }

  const std::string& mode_name() const { return model_.modes[static_cast<std::size_t>(mode_)].name; }

  void sample(S t, const S* x) { observer_->on_sample(t, mode_, std::span<const S>(x, n_)); }

  // A step [t_, t_end_of_step] is over: it is logged, and the grid points strictly inside it
  // are sampled from its dense output (with output_step), in the mode it was taken in.
  void step_done(S t_end_of_step, StepLimit limit) {
    observer_->on_step(t_, t_end_of_step - t_, limit);
    if (grid_step_ <= S(0)) return;
    for (S g = grid_point(next_grid_); g < t_end_of_step; g = grid_point(++next_grid_)) {
      if (g <= t_) continue;  // at or before the step's start: already written (an event side)
      stepper_->interpolate(g, x_grid_.data());
      sample(g, x_grid_.data());
    }
  }

  // t0 + k output_step, computed from k (no accumulated rounding).
  S grid_point(std::int64_t k) const { return model_.t0 + S(k) * grid_step_; }

  // A step end is sampled at the solver's step ends, or with output_step when it is a grid
  // point (then the next point is due) or the run's end.
  bool samples_step_end(S t) {
    if (grid_step_ <= S(0)) return true;
    if (t == grid_point(next_grid_)) {
      ++next_grid_;
      return true;
    }
    return t >= exact_.t_end;
  }

  // Options that contradict each other or the horizon h = t_end - t0, refused before the run:
  // an event bracket as wide as the run, a step that would take more than 1e12 steps (a run
  // that never ends and fills a disk), a fixed step outside [min_step, max_step]. The bracket
  // is compared in S: a float128 horizon may lie below double's range.
  // The smallest step before the run fails: min_step, and never below 16 eps max(|t|, 1)
  // (about 16 ulps of t for |t| >= 1).
  S min_step(S t) const {
    using std::abs;
    return std::max<S>(exact_.min_step, S(16) * machine_epsilon<S>() * std::max<S>(abs(t), S(1)));
  }

  // The error of this run's event times near t (Zeno's tolerance; a chattering mode's step).
  S time_resolution(S t) const { return strategy_->time_resolution(t, min_step(t)); }

  // Whether the strategy's time resolution is h_min (gamma's), which must then move t; the
  // others resolve to a few ulps (min_step) and never read h_min.
  bool uses_h_min() const { return strategy_ && strategy_->time_resolution(exact_.t_end, S(0)) == exact_.h_min; }

  // The first step at t_: options.initial_step, the fixed step, or the starting-step estimate.
  // The first step: fixed_step, initial_step, or the starting-step estimate, which is not
  // below min_step (the smallest step the adaptive solver may take by its own choice).
  S first_step() {
    if (!stepper_->is_adaptive()) return exact_.fixed_step;
    if (exact_.initial_step > S(0)) return exact_.initial_step;
    return std::max(exact_.min_step,
                    starting_step<S>(rhs_of(mode_), t_, stepper_->x_current(), stepper_->dxdt_current(), n_,
                                     exact_.t_end, exact_.rtol, exact_.atol, stepper_->order(), x_mid_.data(),
                                     scratch_.data()));
  }

  const Model<S>& model_;
  SimulationOptions options_;
  const ExactOptions<S> exact_;
  const StrategyInfo& info_;
  std::unique_ptr<EventStrategy<S>> strategy_;  // null for a driver
  std::size_t n_;
  std::unique_ptr<Stepper<S>> stepper_;
  RunStatistics stats_;
  TransitionDetector<S> detector_;
  TransitionChain<S> chain_;
  EventEmitter<S> emitter_;
  SlidingMotion<S> sliding_;
  ZenoPolicy<S> zeno_;
  StepLimiter<S> limiter_;
  LastSample<S> last_;
  Observer<S>* observer_ = nullptr;
  std::vector<S> x_a_, x_b_, x_mid_, scratch_, x_grid_;
  const std::atomic<bool>* stop_ = nullptr;  // stop_when
  bool stop_requested() const { return stop_ != nullptr && stop_->load(std::memory_order_relaxed); }
  // The output grid (options_.output_step > 0): the next grid point is t0 + next_grid_ step.
  S grid_step_ = S(0);
  std::int64_t next_grid_ = 1;
  S t_ = S(0);
  int mode_ = 0;
  bool chatter_next_step_ = false;  // the next step is at the time resolution (Phase::kChattering)
  S last_pinnacle_t_ = -std::numeric_limits<S>::infinity();  // the last event through a pinnacle
  S pinnacle_step_cap_ = S(0);      // > 0: the longest next step after an impact (take_event)
  bool zeno_stop_ = false;          // Zeno declared without a continuation: the run ends
  bool fresh_start_ = false;        // Zeno continued at t_inf: the next step is estimated afresh
};

template <class S>
Simulator<S>::Simulator(const Model<S>& model, SimulationOptions options)
    : impl_(std::make_unique<Impl>(model, std::move(options))) {}

template <class S>
Simulator<S>::~Simulator() = default;

template <class S>
RunResult<S> Simulator<S>::run(Observer<S>* observer) {
  return impl_->run(observer);
}

template <class S>
const RunStatistics& Simulator<S>::statistics() const {
  return impl_->statistics();
}

template <class S>
void Simulator<S>::stop_when(const std::atomic<bool>* flag) {
  impl_->stop_when(flag);
}

template class Simulator<double>;
template class Simulator<long double>;
template class Simulator<float128>;

}  // namespace hysim
