// The run loop of hysim/simulator.hpp. The class comment there is the algorithm; this file
// follows it step by step.
#include "hysim/simulator.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <type_traits>

#include "hysim/core/errors.hpp"
#include "hysim/core/log.hpp"
#include "hysim/events/chain.hpp"
#include "hysim/events/detection.hpp"
#include "hysim/events/event_emitter.hpp"
#include "hysim/events/location.hpp"
#include "hysim/events/zeno.hpp"
#include "hysim/peers/cvode.hpp"
#include "hysim/solvers/stepper.hpp"

namespace hysim {

namespace {

SimulationOptions validated(SimulationOptions options) {
  options.validate();
  parse_strategy(options.strategy);
  return options;
}

}  // namespace

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
        x_a_(n_), x_b_(n_), x_mid_(n_), scratch_(n_), fa_(n_), fb_(n_),
        zeno_(options_) {
    sliding_field_ = [this](S t, const S* x, S* dxdt) { equivalent_field(t, x, dxdt); };
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
    sliding_ = Sliding{};
    zeno_.watch.reset();
    zeno_.declared = zeno_.continued = false;
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
      if (zeno_.declared) {
        // 003 / DESIGN.md section 3, item 5: record the accumulation; continue or stop.
        result.zeno_detected = true;
        result.t_zeno = zeno_.t_inf;
        if (!zeno_.continued) {
          result.reason = RunReason::kZeno;
          break;
        }
        zeno_.declared = false;
        t = zeno_.t_inf;
        h = first_step(t, t_end);
        continue;
      }
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
      if (sliding_.active) {
        // On the surface: gamma and gamma-refine apply their rule to the end of the motion
        // (an equivalent field integrated exactly would otherwise let the steps grow past
        // an exit and its return); the exits are then found at the step's end.
        if (strategy_ == Strategy::kGamma || strategy_ == Strategy::kGammaRefine) {
          const S factor = strategy_ == Strategy::kGamma ? S(options_.gamma) : S(options_.refine_gamma);
          cap(std::max<S>(factor * sliding_exit_time(t, stepper_->x_current(), stepper_->dxdt_current()), min_step(t)),
              StepLimit::kGamma);
        }
      } else if (chatter) {
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

      if (sliding_.active) {
        // The exit is looked for at the step's end, and under `sampled` first at its
        // interior points: the first point that does not slide ends the bracket.
        S t_hi = t_new;
        if (slide_status(t_new, stepper_->x_current()).status == SlideStatus::kSliding) {
          t_hi = t;
          const int interior = strategy_ == Strategy::kSampled ? options_.samples : 0;
          for (int j = 1; j <= interior && t_hi == t; ++j) {
            const S tm = t + (t_new - t) * S(j) / S(interior + 1);
            stepper_->interpolate(tm, x_mid_.data());
            if (slide_status(tm, x_mid_.data()).status != SlideStatus::kSliding) t_hi = tm;
          }
          if (t_hi == t) {
            step_done(t, t_new, limit);
            t = t_new;
            sample(t, stepper_->x_current());
            continue;
          }
        }
        if (stepper_->is_adaptive()) h = std::min(h, h_proposed);
        t = leave_sliding(t, limit, t_hi);
        continue;
      }

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
    result.message += zeno_outcome_text(result, model_);
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
  // `left_sliding`: the event ends a sliding motion, which x_a satisfies (measured by the caller).
  void take_event(S t_a, const S* x_a, S t_b, const S* x_b, int transition, bool left_sliding = false) {
    // One-sided (004): x- satisfies the mode being left, i.e. none of its guards fires there.
    // Measured, not assumed; the check is not counted as work of the strategy.
    const std::int64_t guard_evals = stats_.guard_evals;
    const bool one_sided = left_sliding || detector_.fired(mode_, t_a, x_a, /*literal=*/true) < 0;
    stats_.guard_evals = guard_evals;
    const auto outcome = emitter_.take(mode_, transition, t_a, x_a, t_b, x_b, one_sided);
    mode_ = outcome.arrival.mode;
    if (outcome.pinnacle && watch_zeno(t_a, outcome.arrival.x)) return;
    if (outcome.last_kind == TransitionClass::kSliding && options_.sliding && start_sliding(t_a, outcome.arrival)) {
      sample(t_a, stepper_->x_current());
      return;
    }
    // A sliding arrival without equivalent dynamics, or a mode left at the very time it was
    // entered (its guard fired an instant after entry, below the time resolution), chatters
    // at the minimum step.
    chatter_next_step_ = outcome.last_kind == TransitionClass::kSliding || outcome.repeated;
    stepper_->restart(rhs_of(mode_), t_a, outcome.arrival.x, outcome.arrival.dxdt);
    detector_.arm(mode_, t_a, stepper_->x_current(), stepper_->dxdt_current(), t_b, outcome.arrival.x_far);
    sample(t_a, stepper_->x_current());
  }

  // --- Zeno (DESIGN.md section 3, item 5): pinnacles accumulating in finite time, detected by
  // events/zeno.hpp from the times of events whose chain visited a pinnacle. Once declared,
  // with the model's continuation the run goes on at t_inf in the continuation mode,
  // x+ = reset(t_inf, x); without one it stops (kZeno).

  struct Zeno {
    explicit Zeno(const SimulationOptions& options) : watch(options) {}
    ZenoWatch<S> watch;
    bool declared = false, continued = false;
    S t_inf = S(0);
  };

  static constexpr std::string_view kZenoGuard = "zeno";

  // The error of this run's event times near t: h_min under gamma (it switches at the start of
  // the h_min step that crossed), else the minimum step (a few ulps of t).
  S time_resolution(S t) const { return strategy_ == Strategy::kGamma ? S(options_.h_min) : min_step(t); }

  // Records a pinnacle event at t with arrival state x; true when it declares Zeno (the
  // stepper is then restarted at t_inf in the continuation mode, or the run is to stop).
  bool watch_zeno(S t, const S* x) {
    if (!zeno_.watch.observe(t, time_resolution(t))) return false;
    if (!(zeno_.watch.t_inf() < S(options_.t_end))) return false;  // the run ends before it
    if (zeno_.continued && zeno_.watch.t_inf() - zeno_.t_inf <= std::max<S>(S(options_.zeno_horizon), S(2) * time_resolution(t))) {
      // The continuation did not hold: the pinnacles resumed at once and accumulate again at
      // the same point, so the run would not advance.
      throw SimulationError(where(t) + ": pinnacles accumulate again at t = " + format_scalar(zeno_.watch.t_inf()) +
                            ", right after the Zeno continuation into mode '" + model_.zeno.mode_name + "' at t = " +
                            format_scalar(zeno_.t_inf) + ": the continuation does not hold, and the run does not advance");
    }
    zeno_.declared = true;
    zeno_.t_inf = zeno_.watch.t_inf();
    zeno_.watch.reset();
    if (zeno_.watch.at_resolution()) {
      HYSIM_LOG_INFO("Zeno: pinnacles accumulate at t = {:.17g}, their intervals at the time resolution",
                     to_double(zeno_.t_inf));
    } else {
      HYSIM_LOG_INFO("Zeno: pinnacles accumulate at t = {:.17g} (ratio {:.6g})", to_double(zeno_.t_inf),
                     to_double(zeno_.watch.ratio()));
    }
    if (model_.zeno.mode < 0) {  // the run stops here, in the arrival mode at the event
      stepper_->restart(rhs_of(mode_), t, x, nullptr);
      return true;
    }
    zeno_.continued = true;
    std::copy(x, x + n_, x_a_.begin());
    std::copy(x, x + n_, x_b_.begin());
    if (model_.zeno.reset) model_.zeno.reset(zeno_.t_inf, x_a_.data(), x_b_.data());
    check_finite(zeno_.t_inf, x_b_.data(), "the Zeno continuation's state");
    emitter_.take_direct(mode_, model_.zeno.mode, TransitionClass::kInterior, kZenoGuard, zeno_.t_inf,
                         zeno_.t_inf, x_a_.data(), x_b_.data(), n_, /*one_sided=*/true);
    mode_ = model_.zeno.mode;
    chatter_next_step_ = false;
    stepper_->restart(rhs_of(mode_), zeno_.t_inf, x_b_.data(), nullptr);
    detector_.disarm();
    sample(zeno_.t_inf, stepper_->x_current());
    return true;
  }

  // --- Sliding: the equivalent (Filippov) dynamics on a surface S between modes a and b
  // (003, "Sliding modes"; DESIGN.md section 3, item 4). S is the atom of a's guard a -> b
  // that the chain found on its surface; r_a, r_b are its rates along f_a and f_b:
  //   f_s = (1 - lambda) f_a + lambda f_b,  lambda = r_a / (r_a - r_b),
  // so that dS/dt = 0 along f_s. For S linear in x, a Runge-Kutta step keeps S constant to
  // rounding (RK methods preserve linear invariants). The motion lasts while both fields
  // drive into the surface (lambda in [0, 1]) and both guards still fire with S read as
  // crossed; it ends, at a located event, into a or b, or through another guard of a or b.

  struct Sliding {
    bool active = false;
    int a = -1, to_b = -1, atom_a = -1, b = -1, to_a = -1, atom_b = -1;
  };
  enum class SlideStatus { kSliding, kIntoA, kIntoB, kOtherOfA, kOtherOfB };
  struct SlideProbe {
    SlideStatus status = SlideStatus::kSliding;
    int transition = -1;  // kOtherOfA, kOtherOfB: the guard that fired
  };

  // f_s(t, x); two field evaluations (the stepper counts one).
  void equivalent_field(S t, const S* x, S* dxdt) {
    const Sliding& sl = sliding_;
    model_.modes[static_cast<std::size_t>(sl.a)].field(t, x, fa_.data());
    model_.modes[static_cast<std::size_t>(sl.b)].field(t, x, fb_.data());
    ++stats_.rhs_evals;
    const S ra = detector_.rate_along(sl.a, sl.to_b, sl.atom_a, t, x, fa_.data());
    const S rb = detector_.rate_along(sl.a, sl.to_b, sl.atom_a, t, x, fb_.data());
    const S lambda = ra != rb ? ra / (ra - rb) : S(0.5);
    for (std::size_t j = 0; j < n_; ++j) dxdt[j] = fa_[j] + lambda * (fb_[j] - fa_[j]);
  }

  // Whether the motion at (t, x) still slides, and if not, how it leaves.
  SlideProbe slide_status(S t, const S* x) {
    const Sliding& sl = sliding_;
    int k = detector_.fired_except(sl.a, sl.to_b, t, x);
    if (k >= 0) return {SlideStatus::kOtherOfA, k};
    k = detector_.fired_except(sl.b, sl.to_a, t, x);
    if (k >= 0) return {SlideStatus::kOtherOfB, k};
    stats_.rhs_evals += 2;
    model_.modes[static_cast<std::size_t>(sl.a)].field(t, x, fa_.data());
    model_.modes[static_cast<std::size_t>(sl.b)].field(t, x, fb_.data());
    // a's field must drive S toward b (toward its atom holding), b's back toward a. A rate
    // exactly 0 is the exit point itself (lambda = 0 or 1): still sliding. The motion leaves
    // when a rate is strictly of the wrong sign; when both are, into the mode whose field
    // leaves faster.
    const S ra = detector_.oriented_rate(sl.a, sl.to_b, sl.atom_a, t, x, fa_.data());
    const S rb = detector_.oriented_rate(sl.b, sl.to_a, sl.atom_b, t, x, fb_.data());
    const bool a_out = ra < S(0) || !detector_.fires_with_atom(sl.a, sl.to_b, sl.atom_a, true, t, x);
    const bool b_out = rb < S(0) || !detector_.fires_with_atom(sl.b, sl.to_a, sl.atom_b, true, t, x);
    if (a_out && !(b_out && rb < ra)) return {SlideStatus::kIntoA, -1};
    if (b_out) return {SlideStatus::kIntoB, -1};
    return {};
  }

  // The gamma rule on a sliding motion: the predicted time until one of the two oriented rates
  // reaches 0 (lambda leaves [0, 1]). The rates move with the state along f_s and with t
  // itself (a moving surface, a time-dependent field: the cam follower's reaction): a sliding
  // motion is often integrated exactly (f_s constant), so the integrator's error control does
  // not limit its steps, and a rate that moves away at the step's start may turn and cross
  // within one long step. So each rate rho is predicted to second order,
  //   rho(t + h) ~ rho + rho' h + rho'' h^2 / 2,
  // with rho', rho'' from rho at t, t + d, t + 2d along x + s f_s (d = eps^(1/3) max(|t|, 1),
  // four more field evaluations), and the time is the first positive root of that quadratic;
  // infinity when there is none.
  S sliding_exit_time(S t, const S* x, const S* fs) {
    using std::abs;
    using std::cbrt;
    using std::sqrt;
    const Sliding& sl = sliding_;
    const S d = cbrt(machine_epsilon<S>()) * std::max<S>(abs(t), S(1));
    S ra[3], rb[3];
    for (int j = 0; j < 3; ++j) {
      const S s = S(j) * d;
      for (std::size_t i = 0; i < n_; ++i) x_mid_[i] = x[i] + s * fs[i];
      model_.modes[static_cast<std::size_t>(sl.a)].field(t + s, x_mid_.data(), fa_.data());
      model_.modes[static_cast<std::size_t>(sl.b)].field(t + s, x_mid_.data(), fb_.data());
      stats_.rhs_evals += 2;
      ra[j] = detector_.oriented_rate(sl.a, sl.to_b, sl.atom_a, t + s, x_mid_.data(), fa_.data());
      rb[j] = detector_.oriented_rate(sl.b, sl.to_a, sl.atom_b, t + s, x_mid_.data(), fb_.data());
    }
    const auto first_root = [d](const S* r) {
      const S inf = std::numeric_limits<S>::infinity();
      if (!(r[0] > S(0))) return inf;  // at lambda = 0 or 1 already: the step's end decides
      const S slope = (S(4) * r[1] - S(3) * r[0] - r[2]) / (S(2) * d);  // rho'(t), second order
      const S curvature = (r[2] - S(2) * r[1] + r[0]) / (d * d);
      if (curvature == S(0)) return slope < S(0) ? r[0] / -slope : inf;
      const S discriminant = slope * slope - S(2) * curvature * r[0];
      if (discriminant < S(0)) return inf;  // the parabola stays above 0
      const S root = sqrt(discriminant);
      // the roots (-slope -+ root) / curvature; the smaller positive one
      S h = inf;
      for (const S& candidate : {(-slope - root) / curvature, (-slope + root) / curvature}) {
        if (candidate > S(0)) h = std::min(h, candidate);
      }
      return h;
    };
    return std::min(first_root(ra), first_root(rb));
  }

  // Starts the equivalent dynamics at a sliding arrival; false when the arrival names no
  // two-mode surface or does not slide there (the caller then chatters).
  bool start_sliding(S t, const typename TransitionChain<S>::Arrival& arrival) {
    const auto& surface = arrival.surface;
    if (surface.to_b < 0) return false;
    sliding_ = Sliding{true, arrival.mode, surface.to_b, surface.atom_a, surface.mode_b, surface.to_a, surface.atom_b};
    if (slide_status(t, arrival.x).status != SlideStatus::kSliding) {
      sliding_.active = false;
      return false;
    }
    mode_ = sliding_.a;
    chatter_next_step_ = false;
    // The motion is on S = 0: the entry point lies within the location bracket of it (the
    // gamma strategy: within h_min), and is projected onto it.
    std::copy(arrival.x, arrival.x + n_, x_a_.begin());
    project_onto_surface(t, x_a_.data());
    stepper_->restart(Rhs<S>{&sliding_field_, &stats_.rhs_evals}, t, x_a_.data(), nullptr);
    detector_.disarm();
    HYSIM_LOG_DEBUG("sliding from t = {:.17g} between '{}' and '{}'", to_double(t), mode_name(),
                    model_.modes[static_cast<std::size_t>(sliding_.b)].name);
    return true;
  }

  // The last step left the sliding motion: locates the exit [t_a, t_b] on the dense output
  // (bisection on the status; the step strategy takes the step's end), records it, and goes
  // on in the mode it leaves into. Returns the new time. The exit is one-sided when x(t_a)
  // still slides.
  S leave_sliding(S t, StepLimit limit, S t_hi) {
    const S t_new = t_hi;  // the first point found not sliding: the step's end or a sample
    Bracket<S> bracket{t_new, t_new};
    if (strategy_ != Strategy::kStep) {
      // Every strategy but step, gamma included: an exit found early, where the field of the
      // mode entered still drives into the surface, would slide again at once.
      const S tolerance = S(options_.event_tolerance);
      bracket = locate<S>(
          Locator::kBisection, t_new == stepper_->t_current() ? stepper_->t_previous() : t, t_new, S(-1), S(1),
          tolerance,
          [this](S tm) {
            stepper_->interpolate(tm, x_mid_.data());
            Probe<S> p;
            p.fired = slide_status(tm, x_mid_.data()).status != SlideStatus::kSliding;
            return p;
          },
          &stats_.root_iterations);
    }
    stepper_->interpolate(bracket.t_a, x_a_.data());
    stepper_->interpolate(bracket.t_b, x_b_.data());
    const SlideProbe exit = slide_status(bracket.t_b, x_b_.data());
    // One-sided: the exit's x- still slides (measured, not counted as the strategy's work).
    const std::int64_t guard_evals = stats_.guard_evals, rhs_evals = stats_.rhs_evals;
    const bool one_sided = slide_status(bracket.t_a, x_a_.data()).status == SlideStatus::kSliding;
    stats_.guard_evals = guard_evals;
    stats_.rhs_evals = rhs_evals;
    step_done(t, bracket.t_a, bracket.t_a == t_new ? limit : StepLimit::kEvent);
    const S t_a = bracket.t_a;
    sample(t_a, x_a_.data());
    const Sliding sl = sliding_;
    sliding_.active = false;
    switch (exit.status) {
      case SlideStatus::kOtherOfA:
      case SlideStatus::kOtherOfB:
        // The chain starts from the mode whose guard fired, with the state moved (by rounding-
        // level amounts) to that mode's side of the surface, as at the lambda exits below.
        mode_ = exit.status == SlideStatus::kOtherOfA ? sl.a : sl.b;
        if (exit.status == SlideStatus::kOtherOfA) {
          push_to_side(sl.a, sl.to_b, sl.atom_a, t_a, x_a_.data(), false);
        } else {
          push_to_side(sl.b, sl.to_a, sl.atom_b, t_a, x_a_.data(), false);
        }
        take_event(t_a, x_a_.data(), bracket.t_b, x_b_.data(), exit.transition, one_sided);
        return t_a;
      case SlideStatus::kIntoA:
      case SlideStatus::kIntoB:
      case SlideStatus::kSliding: {
        // Into a: a's field no longer drives S toward b. Into b: b's no longer drives it back.
        // The state is moved (by rounding-level amounts) to the side of S of the mode entered,
        // so that its guard back across S does not read rounding.
        const bool into_b = exit.status == SlideStatus::kIntoB;
        const int target = into_b ? sl.b : sl.a;
        std::copy(x_a_.begin(), x_a_.end(), scratch_.begin());
        if (into_b) {
          push_to_side(sl.b, sl.to_a, sl.atom_b, t_a, x_a_.data(), false);
        } else {
          push_to_side(sl.a, sl.to_b, sl.atom_a, t_a, x_a_.data(), false);
        }
        const std::string_view guard =
            into_b ? std::string_view(model_.modes[static_cast<std::size_t>(sl.a)].transitions[static_cast<std::size_t>(sl.to_b)].name)
                   : std::string_view(kSlidingEnd);
        emitter_.take_direct(sl.a, target, TransitionClass::kInterior, guard, t_a, bracket.t_b, scratch_.data(),
                             x_a_.data(), n_, one_sided);
        mode_ = target;
        stepper_->restart(rhs_of(mode_), t_a, x_a_.data(), nullptr);
        detector_.arm(mode_, t_a, stepper_->x_current(), stepper_->dxdt_current(), t_a, nullptr);
        sample(t_a, stepper_->x_current());
        return t_a;
      }
    }
    return t_a;
  }

  static constexpr std::string_view kSlidingEnd = "end_of_sliding";

  // grad e of atom i of transition k of `mode` at (t, x) by central differences, into fb_;
  // returns |grad e|^2.
  S atom_gradient(int mode, int k, int i, S t, S* x) {
    using std::abs;
    using std::cbrt;
    S norm2 = S(0);
    for (std::size_t j = 0; j < n_; ++j) {
      const S d = cbrt(machine_epsilon<S>()) * std::max<S>(abs(x[j]), S(1));
      const S keep = x[j];
      x[j] = keep + d;
      const S up = detector_.atom_value(mode, k, i, t, x);
      x[j] = keep - d;
      const S down = detector_.atom_value(mode, k, i, t, x);
      x[j] = keep;
      fb_[j] = (up - down) / (S(2) * d);
      norm2 += fb_[j] * fb_[j];
    }
    return norm2;
  }

  // Projects x onto the sliding surface S = 0 of the current motion: Newton steps along grad S
  // (x := x - S grad S / |grad S|^2), two at most, while they reduce |S|.
  void project_onto_surface(S t, S* x) {
    using std::abs;
    const Sliding& sl = sliding_;
    for (int iteration = 0; iteration < 2; ++iteration) {
      const S e = detector_.atom_value(sl.a, sl.to_b, sl.atom_a, t, x);
      if (e == S(0)) return;
      const S norm2 = atom_gradient(sl.a, sl.to_b, sl.atom_a, t, x);
      if (!(norm2 > S(0))) return;
      for (std::size_t j = 0; j < n_; ++j) x_mid_[j] = x[j] - e * fb_[j] / norm2;
      if (!(abs(detector_.atom_value(sl.a, sl.to_b, sl.atom_a, t, x_mid_.data())) < abs(e))) return;
      std::copy(x_mid_.begin(), x_mid_.end(), x);
    }
  }

  // Moves x along grad e (central differences) until atom i of transition k of `mode` reads
  // `want` literally: first onto e = 0, then by doubling distances; in practice a few ulps.
  void push_to_side(int mode, int k, int i, S t, S* x, bool want) {
    using std::abs;
    using std::sqrt;
    if (detector_.atom_holds(mode, k, i, t, x) == want) return;
    const Relation relation = model_.modes[static_cast<std::size_t>(mode)].transitions[static_cast<std::size_t>(k)]
                                  .guard.atoms()[static_cast<std::size_t>(i)].relation;
    const bool holds_when_larger = relation == Relation::kGreater || relation == Relation::kGreaterEqual;
    const S direction = holds_when_larger == want ? S(1) : S(-1);  // increase e or decrease it
    const S norm2 = atom_gradient(mode, k, i, t, x);
    if (!(norm2 > S(0))) return;
    S distance = abs(detector_.atom_value(mode, k, i, t, x)) / sqrt(norm2);
    const S smallest = machine_epsilon<S>() * std::max<S>(distance, S(1));
    distance = std::max(distance, smallest);
    for (int attempt = 0; attempt < 64; ++attempt) {
      for (std::size_t j = 0; j < n_; ++j) x_mid_[j] = x[j] + direction * distance * fb_[j] / sqrt(norm2);
      if (detector_.atom_holds(mode, k, i, t, x_mid_.data()) == want) {
        std::copy(x_mid_.begin(), x_mid_.end(), x);
        return;
      }
      distance *= 2;
    }
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
  std::vector<S> x_a_, x_b_, x_mid_, scratch_, fa_, fb_;
  FieldFunction<S> sliding_field_;  // f_s of the current sliding motion (equivalent_field)
  Sliding sliding_;
  Zeno zeno_;
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
