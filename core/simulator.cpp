// The run loop of core/simulator.hpp. The class comment there is the algorithm; this file
// follows it step by step.
#include "core/simulator.hpp"

#include <algorithm>
#include <cmath>
#include <type_traits>

#include "core/errors.hpp"
#include "core/log.hpp"
#include "events/chain.hpp"
#include "events/detection.hpp"
#include "events/event_emitter.hpp"
#include "events/location.hpp"
#include "peers/cvode.hpp"
#include "solvers/stepper.hpp"

namespace hysim {

const char* transition_class_name(TransitionClass c) {
  switch (c) {
    case TransitionClass::kInterior: return "interior";
    case TransitionClass::kBoundary: return "boundary";
    case TransitionClass::kSliding: return "sliding";
    case TransitionClass::kPinnacle: return "pinnacle";
    case TransitionClass::kMythical: return "mythical";
  }
  return "?";
}

const char* run_reason_name(RunReason reason) {
  switch (reason) {
    case RunReason::kReachedEnd: return "reached t_end";
    case RunReason::kEventLimit: return "event limit";
    case RunReason::kZeno: return "Zeno accumulation";
  }
  return "?";
}

namespace {

void require(bool ok, const char* field, const std::string& constraint, double value) {
  if (!ok) {
    throw InvalidArgument("option " + std::string(field) + " = " + format_scalar(value) + " violates " + constraint);
  }
}

SimulationOptions validated(SimulationOptions options) {
  options.validate();
  return options;
}

}  // namespace

void SimulationOptions::validate() const {
  require(std::isfinite(t_end), "t_end", "t_end is finite", t_end);
  require(std::isfinite(rtol) && rtol > 0, "rtol", "rtol > 0", rtol);
  require(std::isfinite(atol) && atol >= 0, "atol", "atol >= 0", atol);
  require(std::isfinite(initial_step) && initial_step >= 0, "initial_step", "initial_step >= 0", initial_step);
  require(std::isfinite(max_step) && max_step >= 0, "max_step", "max_step >= 0 (0: unlimited)", max_step);
  require(std::isfinite(min_step) && min_step >= 0, "min_step", "min_step >= 0", min_step);
  require(max_step == 0 || min_step <= max_step, "min_step", "min_step <= max_step", min_step);
  require(std::isfinite(fixed_step) && fixed_step > 0, "fixed_step", "fixed_step > 0", fixed_step);
  require(std::isfinite(event_tolerance) && event_tolerance >= 0, "event_tolerance", "event_tolerance >= 0",
          event_tolerance);
  parse_strategy(strategy);
  require(std::isfinite(gamma) && gamma > 0 && gamma < 1, "gamma", "0 < gamma < 1", gamma);
  require(std::isfinite(h_min) && h_min > 0, "h_min", "h_min > 0", h_min);
  require(std::isfinite(refine_gamma) && refine_gamma > 0 && refine_gamma < 2, "refine_gamma",
          "0 < refine_gamma < 2", refine_gamma);
  require(samples >= 1, "samples", "samples >= 1", samples);
  require(zeno_events >= 3, "zeno_events", "zeno_events >= 3", zeno_events);
  require(std::isfinite(zeno_ratio_tolerance) && zeno_ratio_tolerance > 0, "zeno_ratio_tolerance",
          "zeno_ratio_tolerance > 0", zeno_ratio_tolerance);
  require(std::isfinite(zeno_horizon) && zeno_horizon > 0, "zeno_horizon", "zeno_horizon > 0", zeno_horizon);
  require(chain_limit >= 1, "chain_limit", "chain_limit >= 1", chain_limit);
  require(event_limit >= 1, "event_limit", "event_limit >= 1", static_cast<double>(event_limit));
}

template <class S>
class Simulator<S>::Impl {
 public:
  Impl(const Model<S>& model, SimulationOptions options)
      : model_(model),
        options_(validated(std::move(options))),
        n_(model.state_size()),
        stepper_(make_stepper<S>(options_.solver, n_,
                                 StepperTolerances<S>{S(options_.rtol), S(options_.atol)})),
        detector_(model, &stats_.guard_evals, &stats_.rhs_evals),
        chain_(model, options_.chain_limit, &detector_, &stats_.rhs_evals),
        emitter_(model, options_.chain_limit, &chain_, &stats_),
        x_a_(n_), x_b_(n_), x_mid_(n_), scratch_(n_) {
    if (!(S(options_.t_end) > model.t0)) {
      throw InvalidArgument("option t_end = " + format_scalar(options_.t_end) + " must exceed the model's t0 = " +
                            format_scalar(model.t0));
    }
    if (model.x0.size() != n_) throw ModelError("model '" + model.name + "' is not finalized");
  }

  RunResult<S> run(Observer<S>* observer) {
    if (parse_strategy(options_.strategy) == Strategy::kCvode) {
      if constexpr (std::is_same_v<S, double>) {
        return run_cvode(model_, options_, observer, &stats_);
      } else {
        throw InvalidArgument("strategy cvode runs in double only (SUNDIALS is built with double realtype)");
      }
    }
    observer_ = observer;
    strategy_ = parse_strategy(options_.strategy);
    stats_ = RunStatistics{};
    emitter_.reset(observer);
    detector_.disarm();
    chatter_next_step_ = false;
    const S t_end = S(options_.t_end);
    S t = model_.t0;
    mode_ = model_.initial_mode;
    stepper_->restart(rhs_of(mode_), t, model_.x0.data(), nullptr);
    check_finite(t, stepper_->x_current(), "the initial state");
    if (observer_) observer_->on_start(model_, options_);

    // Zeros at t0 (CVODE's cvRcheck1): a guard of the initial mode that already fires, or
    // sits at 0 and is driven across, starts a chain at t0.
    const FiredTransition at_start =
        detector_.fired_after(mode_, t, stepper_->x_current(), t, nullptr, stepper_->dxdt_current());
    sample(t, stepper_->x_current());
    if (at_start.index >= 0) {
      std::copy(stepper_->x_current(), stepper_->x_current() + n_, x_a_.begin());
      take_event(t, x_a_.data(), t, nullptr, at_start.index);
    }

    S h = first_step(t, t_end);
    RunResult<S> result;
    while (t < t_end) {
      if (stats_.events >= options_.event_limit) {
        result.reason = RunReason::kEventLimit;
        break;
      }

      // choose the step, and remember what limited it (the step log)
      const bool chatter = chatter_next_step_;
      StepLimit limit = stepper_->is_adaptive() ? StepLimit::kIntegrator : StepLimit::kFixed;
      S h_try = h;
      const auto cap = [&h_try, &limit](S bound, StepLimit why) {
        if (bound < h_try) {
          h_try = bound;
          limit = why;
        }
      };
      if (options_.max_step > 0) cap(S(options_.max_step), StepLimit::kMaxStep);
      if (chatter) {
        // A sliding arrival has no equivalent dynamics yet: it chatters at the minimum step
        // (h_min under the gamma strategy, whose resolution in time it is).
        cap(strategy_ == Strategy::kGamma ? S(options_.h_min) : min_step(t), StepLimit::kMinimum);
      } else if (strategy_ == Strategy::kGamma || strategy_ == Strategy::kGammaRefine) {
        // gamma-refine: never below 1e-6 of the integrator's proposal; the refinement makes
        // the step's end irrelevant to accuracy, and at a flat (multiple) root the linear
        // prediction collapses, which would otherwise crawl at the minimum step.
        cap(strategy_ == Strategy::kGammaRefine ? std::max<S>(event_step(t), h_try * S(1e-6)) : event_step(t),
            StepLimit::kGamma);
        if (strategy_ == Strategy::kGamma && limit == StepLimit::kGamma && h_try < S(options_.h_min)) {
          // 004: the approach does not go below h_min; this step may cross the surface.
          h_try = S(options_.h_min);
          limit = StepLimit::kMinimum;
        }
      }
      const S remaining = t_end - t;
      if (h_try >= remaining) {
        h_try = remaining;
        limit = StepLimit::kEnd;
      }

      // step
      const S h_proposed = h;  // the integrator's own proposal, before the caps above
      const StepOutcome<S> outcome = stepper_->try_step(h_try);
      if (outcome.status == StepStatus::kRejected) {
        ++stats_.steps_rejected;
        h = outcome.h_next;
        if (h < min_step(t)) {
          throw SimulationError(where(t) + ": step size " + format_scalar(h) + " fell below the minimum " +
                                format_scalar(min_step(t)) + " (stiff, singular or discontinuous field?)");
        }
        continue;
      }
      ++stats_.steps_accepted;
      const S t_new = stepper_->t_current();
      check_finite(t_new, stepper_->x_current(), "the state");
      HYSIM_LOG_DEBUG("step t = {:.17g} h = {:.3e} ({}) mode {}", to_double(t), to_double(h_try),
                      step_limit_name(limit), mode_name());
      // A step cut short by anything but the error control does not shrink the next proposal.
      h = !stepper_->is_adaptive()          ? S(options_.fixed_step)
          : limit == StepLimit::kIntegrator ? outcome.h_next
                                            : std::max<S>(outcome.h_next, h_proposed);
      chatter_next_step_ = false;

      // detect
      const Crossing crossing = detect();
      if (crossing.transition < 0) {
        step_done(t, t_new, limit);
        t = t_new;
        sample(t, stepper_->x_current());
        continue;
      }
      if (stepper_->is_adaptive()) h = std::min(h, h_proposed);

      if (chatter || strategy_ == Strategy::kStep) {
        // No location: the switch happens at the step's end, on the far side of the surface
        // (as a fixed-step rule interpreter does; also how a chattering mode leaves).
        step_done(t, t_new, limit);
        t = t_new;
        std::copy(stepper_->x_current(), stepper_->x_current() + n_, x_a_.begin());
        sample(t, x_a_.data());
        take_event(t, x_a_.data(), t, nullptr, crossing.transition);
        continue;
      }

      if (strategy_ == Strategy::kGamma) {
        if (h_try > S(options_.h_min)) {
          // The linear prediction was too optimistic and the step crossed a surface: ISMA
          // never steps across, so the step is taken back and retried at half its length.
          ++stats_.steps_rejected;
          --stats_.steps_accepted;
          std::copy(stepper_->x_previous(), stepper_->x_previous() + n_, x_a_.begin());
          stepper_->restart(rhs_of(mode_), t, x_a_.data(), nullptr);
          h = std::max<S>(h_try / 2, S(options_.h_min));
          continue;
        }
        // The step of h_min crossed: the event is at its start, the last point of the
        // approach, on the pre-event side; [t, t_new] is the bracket the chain reads.
        std::copy(stepper_->x_previous(), stepper_->x_previous() + n_, x_a_.begin());
        std::copy(stepper_->x_current(), stepper_->x_current() + n_, x_b_.begin());
        take_event(t, x_a_.data(), t_new, x_b_.data(), crossing.transition);
        continue;
      }

      // locate on the dense output
      int fired_at_b = crossing.transition;
      const Bracket<S> bracket = locate_crossing(crossing, &fired_at_b);
      stepper_->interpolate(bracket.t_a, x_a_.data());
      stepper_->interpolate(bracket.t_b, x_b_.data());
      if (strategy_ == Strategy::kDoubleSided) {
        // Ptolemy II: continue from the post-event side of the bracket.
        step_done(t, bracket.t_b, StepLimit::kEvent);
        t = bracket.t_b;
        sample(t, x_b_.data());
        take_event(t, x_b_.data(), bracket.t_a, x_a_.data(), fired_at_b);
        continue;
      }
      step_done(t, bracket.t_a, StepLimit::kEvent);
      t = bracket.t_a;
      sample(t, x_a_.data());

      // recurse and record, then restart in the arrival mode.
      take_event(t, x_a_.data(), bracket.t_b, x_b_.data(), fired_at_b);
    }

    result.t = t;
    result.mode = mode_;
    result.x.assign(stepper_->x_current(), stepper_->x_current() + n_);
    result.stats = stats_;
    result.message = std::string(run_reason_name(result.reason)) + " at t = " + format_scalar(t) + " in mode '" +
                     mode_name() + "' after " + std::to_string(stats_.events) + " events";
    if (observer_) observer_->on_finish(result);
    return result;
  }

  const RunStatistics& statistics() const { return stats_; }

 private:
  Rhs<S> rhs_of(int mode) {
    return Rhs<S>{&model_.modes[static_cast<std::size_t>(mode)].field, &stats_.rhs_evals};
  }

  const std::string& mode_name() const { return model_.modes[static_cast<std::size_t>(mode_)].name; }

  std::string where(S t) const {
    return "model '" + model_.name + "', mode '" + mode_name() + "', t = " + format_scalar(t);
  }

  void sample(S t, const S* x) {
    if (observer_) observer_->on_sample(t, mode_, std::span<const S>(x, n_));
  }

  void check_finite(S t, const S* x, const char* what) const {
    for (std::size_t j = 0; j < n_; ++j) {
      if (!is_finite(x[j])) {
        throw SimulationError(where(t) + ": " + what + " has " + model_.state_names[j] + " = " +
                              format_scalar(x[j]) + " (the field returned a non-finite value)");
      }
    }
  }

  // The smallest step before the run fails, and the step of a chattering mode: min_step,
  // and never below 16 eps max(|t|, 1) (about 16 ulps of t for |t| >= 1).
  S min_step(S t) const {
    using std::abs;
    return std::max<S>(S(options_.min_step), S(16) * machine_epsilon<S>() * std::max<S>(abs(t), S(1)));
  }

  // Where a guard fired in the last step: the transition, and a sub-interval [t_lo, t_hi] of
  // the step with no guard fired at t_lo and that transition fired at t_hi.
  struct Crossing {
    int transition = -1;
    S t_lo = S(0), t_hi = S(0);
  };

  // The one detection point of a step (STYLE.md habit 3): the step's end, and for the sampled
  // strategy first `samples` equally spaced interior points of the dense output, in order.
  Crossing detect() {
    const S t0 = stepper_->t_previous();
    const S t1 = stepper_->t_current();
    S t_lo = t0;
    if (strategy_ == Strategy::kSampled) {
      const int m = options_.samples;
      for (int j = 1; j <= m; ++j) {
        const S tj = t0 + (t1 - t0) * S(j) / S(m + 1);
        stepper_->interpolate(tj, x_mid_.data());
        const int k = detector_.fired(mode_, tj, x_mid_.data());
        if (k >= 0) return {k, t_lo, tj};
        t_lo = tj;
      }
    }
    return {detector_.fired(mode_, t1, stepper_->x_current()), t_lo, t1};
  }

  // The strategy's locator on [t_lo, t_hi]. Interpolating locators follow the atom whose
  // crossing made the guard fire (events/detection.hpp, changed_atom).
  Bracket<S> locate_crossing(const Crossing& c, int* fired_at_b) {
    Locator locator = Locator::kBisection;
    if (strategy_ == Strategy::kIllinois || strategy_ == Strategy::kGammaRefine || strategy_ == Strategy::kSampled) {
      locator = Locator::kIllinois;
    } else if (strategy_ == Strategy::kItp) {
      locator = Locator::kItp;
    }
    S phi_lo = S(-1), phi_hi = S(1);
    int atom = -1;
    if (locator != Locator::kBisection) {
      stepper_->interpolate(c.t_lo, x_a_.data());
      stepper_->interpolate(c.t_hi, x_b_.data());
      atom = detector_.changed_atom(mode_, c.transition, c.t_lo, x_a_.data(), c.t_hi, x_b_.data());
      if (atom >= 0) {
        phi_lo = detector_.oriented(mode_, c.transition, atom, c.t_lo, x_a_.data());
        phi_hi = detector_.oriented(mode_, c.transition, atom, c.t_hi, x_b_.data());
      } else {
        locator = Locator::kBisection;
      }
    }
    return locate<S>(
        locator, c.t_lo, c.t_hi, phi_lo, phi_hi, S(options_.event_tolerance),
        [this, &c, atom, fired_at_b](S tm) {
          stepper_->interpolate(tm, x_mid_.data());
          const int k = detector_.fired(mode_, tm, x_mid_.data());
          if (k >= 0) *fired_at_b = k;
          Probe<S> p;
          p.fired = k >= 0;
          if (atom >= 0) p.phi = detector_.oriented(mode_, c.transition, atom, tm, x_mid_.data());
          return p;
        },
        &stats_.root_iterations);
  }

  // The gamma rule's bound on the next step (004, Algorithm 2, step 6): gamma (or
  // refine_gamma) times the predicted time until a guard fires; never below the minimum step.
  S event_step(S t) {
    const auto approach = detector_.time_to_fire(mode_, t, stepper_->x_current(), stepper_->dxdt_current());
    const S factor = strategy_ == Strategy::kGamma ? S(options_.gamma) : S(options_.refine_gamma);
    return std::max<S>(factor * approach.tau, min_step(t));
  }

  void step_done(S t, S t_end_of_step, StepLimit limit) {
    if (observer_) observer_->on_step(t, t_end_of_step - t, limit);
  }

  // Resolves the chain at t_a, records it, and restarts the stepper in the arrival mode.
  void take_event(S t_a, const S* x_a, S t_b, const S* x_b, int transition) {
    // One-sided (004): x- satisfies the mode being left, i.e. none of its guards fires there.
    // Measured, not assumed; the check is not counted as work of the strategy.
    const std::int64_t guard_evals = stats_.guard_evals;
    const bool one_sided = detector_.fired(mode_, t_a, x_a, /*literal=*/true) < 0;
    stats_.guard_evals = guard_evals;
    const auto outcome = emitter_.take(mode_, transition, t_a, x_a, t_b, x_b, one_sided);
    mode_ = outcome.arrival.mode;
    // A sliding arrival, or a mode left at the very time it was entered (its guard fired an
    // instant after entry, below the time resolution), chatters at the minimum step.
    chatter_next_step_ = outcome.last_kind == TransitionClass::kSliding || outcome.repeated;
    stepper_->restart(rhs_of(mode_), t_a, outcome.arrival.x, outcome.arrival.dxdt);
    detector_.arm(mode_, t_a, stepper_->x_current(), stepper_->dxdt_current(), t_b, outcome.arrival.x_far);
    sample(t_a, stepper_->x_current());
  }

  // First step: options.initial_step, the fixed step, or the starting-step estimate of
  // Hairer, Norsett & Wanner, Solving ODE I, II.4 (one extra field evaluation).
  S first_step(S t0, S t_end) {
    using std::abs;
    using std::max;
    using std::min;
    using std::pow;
    using std::sqrt;
    if (!stepper_->is_adaptive()) return S(options_.fixed_step);
    if (options_.initial_step > 0) return S(options_.initial_step);
    const S* x0 = stepper_->x_current();
    const S* f0 = stepper_->dxdt_current();
    S d0 = 0, d1 = 0;
    for (std::size_t j = 0; j < n_; ++j) {
      const S sc = S(options_.atol) + S(options_.rtol) * abs(x0[j]);
      d0 += (x0[j] / sc) * (x0[j] / sc);
      d1 += (f0[j] / sc) * (f0[j] / sc);
    }
    d0 = sqrt(d0 / S(n_));
    d1 = sqrt(d1 / S(n_));
    S h0 = (d0 < S(1e-5) || d1 < S(1e-5)) ? S(1e-6) : S(0.01) * d0 / d1;
    h0 = min(h0, t_end - t0);
    for (std::size_t j = 0; j < n_; ++j) x_mid_[j] = x0[j] + h0 * f0[j];
    rhs_of(mode_)(t0 + h0, x_mid_.data(), scratch_.data());
    S d2 = 0;
    for (std::size_t j = 0; j < n_; ++j) {
      const S sc = S(options_.atol) + S(options_.rtol) * abs(x0[j]);
      const S df = (scratch_[j] - f0[j]) / sc;
      d2 += df * df;
    }
    d2 = sqrt(d2 / S(n_)) / h0;
    const S dmax = max(d1, d2);
    const S h1 = dmax <= S(1e-15) ? max(S(1e-6), h0 * S(1e-3))
                                  : pow(S(0.01) / dmax, S(1) / S(stepper_->order() + 1));
    return min(S(100) * h0, h1);
  }

  const Model<S>& model_;
  SimulationOptions options_;
  std::size_t n_;
  std::unique_ptr<Stepper<S>> stepper_;
  RunStatistics stats_;
  TransitionDetector<S> detector_;
  TransitionChain<S> chain_;
  EventEmitter<S> emitter_;
  std::vector<S> x_a_, x_b_, x_mid_, scratch_;
  Observer<S>* observer_ = nullptr;
  Strategy strategy_ = Strategy::kBisection;
  int mode_ = 0;
  bool chatter_next_step_ = false;
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

template class Simulator<double>;
template class Simulator<long double>;
template class Simulator<float128>;

}  // namespace hysim
