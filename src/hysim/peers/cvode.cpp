// The CVODE peer of peers/cvode.hpp, on SUNDIALS 6 (SUNContext API).
//
// References: Hindmarsh, Brown, Grant, Lee, Serban, Shumaker, Woodward, "SUNDIALS: Suite of
// nonlinear and differential/algebraic equation solvers", ACM TOMS 31(3):363-396, 2005
// (the variable-order, variable-step BDF/Adams methods in Nordsieck form, Newton iteration,
// and the rootfinding of section 2.4); Hindmarsh, Serban, Balos, Gardner, Reynolds, Woodward,
// "User Documentation for CVODE v6.4.1" (2022): section 2.1 (methods, error test, the
// difference-quotient Jacobian), section 2.4 / 4.4.2.7 (rootfinding: cvRcheck1-3 and the
// Illinois iteration of cvRootfind), section 4.4.5 (optional outputs used for the counters).
//
// RunStatistics, as filled here (accumulated over every CVodeInit / CVodeReInit):
//   steps_accepted    CVodeGetNumSteps
//   steps_rejected    CVodeGetNumErrTestFails + CVodeGetNumStepSolveFails. Since SUNDIALS
//                     6.2, CVodeGetNumNonlinSolvConvFails counts every failed nonlinear solve,
//                     also those CVODE recovers from inside an accepted step (by updating the
//                     Jacobian); CVodeGetNumStepSolveFails counts the step attempts that the
//                     nonlinear solver made fail, which is what "rejected" means here.
//   rhs_evals         every call of the mode's field: the callback counts them, which equals
//                     CVodeGetNumRhsEvals + CVodeGetNumLinRhsEvals (the Jacobian's difference
//                     quotients), plus the field evaluations of the transition chain and of
//                     the checks at t0 and at roots where an atom sits exactly on 0.
//   guard_evals       every atom evaluation: (root-function calls) x (atoms of the mode), plus
//                     those of TransitionDetector (fired / fired_after) and of the chain.
//   root_iterations   root-function calls at a time other than CVODE's current step end t_n:
//                     the Illinois iterations of cvRootfind and the probes next to an exact
//                     zero in cvRcheck1 / cvRcheck2. The one call per step at t_n (cvRcheck3)
//                     and the one at each (re)start (cvRcheck1) are detection, not location.
//   events, transitions, one_sided_events   as in the engine (events/event_emitter.hpp).
//
// Step log: each CVODE step is passed once to Observer::on_step as [t_n - h, t_n], with
// StepLimit::kIntegrator (kMaxStep when h reached max_step, kEnd for the step that ends at
// t_end); a step cut short by a located root (an event, or a zero plateau where CVODE is
// restarted, see restart_after_zero_plateau) is passed up to the root, with kEvent.
// Observer::on_sample gets each reported step's end and both sides of each event.
//
// Beyond CVODE's own rootfinding, two situations need care, both at an atom that is exactly 0
// where CVODE returns a root: a strict relation that does not hold literally there (x < 0 at
// x = 0) is read by the field's direction (fired_after_zero), and an atom that stays exactly 0
// just after the root (CVODE's "root found at and very near" error) is re-armed by a restart.
#include "hysim/peers/cvode.hpp"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "hysim/core/errors.hpp"
#include "hysim/core/log.hpp"
#include "hysim/events/engine.hpp"
#include "hysim/events/ledger.hpp"
#include "hysim/events/run_checks.hpp"
#include "hysim/peers/cvode_solver.hpp"

namespace hysim {
namespace {

using cvode_detail::CvodeSolver;
using cvode_detail::RootFunction;

// The time resolution, this many eps max(|t|, 1) (the engine's smallest step): events closer
// than it to the previous one count as at the same time.
constexpr double kTimeResolutionEps = 16.0;
// A remaining interval t_end - t below this many eps max(|t|, |t_end|) is not integrated:
// CVODE refuses to start on it (cvHin's CV_TOO_CLOSE below 2 eps).
constexpr double kEndResolutionEps = 4.0;
// A step this close to max_step (relative) was limited by it.
constexpr double kMaxStepSlack = 1e-9;

class CvodeEngine final : public Engine<double> {
 public:
  CvodeEngine(const Model<double>& model, const ExactOptions<double>& exact, RunLedger<double>& ledger,
              CvodeMethod method, std::int64_t event_limit, LinearSolver linear_solver)
      : model_(model),
        exact_(exact),
        ledger_(ledger),
        method_(method),
        event_limit_(event_limit),
        n_(model.state_size()),
        solver_(model, exact, method, &ledger.stats(), &mode_, linear_solver),
        field_(n_) {}

  RunResult<double> run(const std::atomic<bool>* interrupt) override {
    double t = start();
    const RunReason reason = ledger_.stopped() ? RunReason::kStopped : loop(&t, interrupt);
    const double* y = solver_.y();
    return ledger_.result(reason, t, mode_, y,
                          std::string(" (CVODE ") + (method_ == CvodeMethod::kBdf ? "BDF" : "Adams") + ")");
  }

 private:
  // t0 as the engine asks it: a guard of the initial mode that already fires, or sits at 0 and
  // is driven across, starts a chain at t0 (the ledger's). CVODE starts after it. Returns t0.
  double start() {
    const double t = model_.t0;
    mode_ = model_.initial_mode;
    chatter_from_ = chatter_to_ = -1;
    chatter_events_ = 0;
    std::vector<double> x(model_.x0.begin(), model_.x0.end());
    check_finite(model_, mode_, t, x.data(), "the initial state");
    ledger_.started();
    evaluate_field_or_throw(t, x.data());
    const int at_start = ledger_.fires_at_start(mode_, t, x.data(), field_.data());
    sample(t, x.data());
    if (at_start >= 0) {
      const bool one_sided = ledger_.satisfies(mode_, t, x.data());
      const AfterEvent<double> after =
          ledger_.event(mode_, at_start, t, x.data(), t, nullptr, one_sided, time_resolution(t), time_resolution(t));
      refuse_sliding(mode_, after, t);
      mode_ = after.arrival.mode;
      std::copy(after.arrival.x, after.arrival.x + n_, x.begin());
      sample(t, x.data());
    }
    solver_.start(t, x.data());
    restarted(t);
    return t;
  }

  // CVode one step at a time with stop time t_end, until the end, an event limit, a stop, or
  // Zeno without a continuation; *t is where the run stands.
  RunReason loop(double* t, const std::atomic<bool>* interrupt) {
    const double t_end = exact_.t_end;
    while (true) {
      if (ledger_.stats().events >= event_limit_) return RunReason::kEventLimit;
      // Polled after each internal step (CV_ONE_STEP returns after one), as the engine polls.
      if (interrupt != nullptr && interrupt->load(std::memory_order_relaxed)) return RunReason::kInterrupted;
      // An event within a few ulps of t_end ends the run: CVODE cannot start on what remains.
      if (t_end - *t <= kEndResolutionEps * machine_epsilon<double>() * std::max(std::abs(*t), std::abs(t_end))) {
        return RunReason::kReachedEnd;
      }
      double t_returned = *t;
      const int flag = solver_.step(&t_returned);
      if (flag == CV_ILL_INPUT && solver_.error_function() == "cvRcheck2" && root_without_event_) {
        *t = restart_after_zero_plateau();
        continue;
      }
      if (flag < 0) solver_.fail(flag, "CVode");
      note_step();
      if (flag == CV_ROOT_RETURN) {
        const AtRoot root = at_root(t_returned);
        if (root != AtRoot::kNoEvent) *t = t_resume_;
        if (root == AtRoot::kZenoStop) return RunReason::kZeno;
        if (root == AtRoot::kStopped) return RunReason::kStopped;
        continue;
      }
      // CV_SUCCESS (a step ended at t_n) or CV_TSTOP_RETURN (t_end reached).
      *t = t_returned;
      at_step_end(*t);
      if (flag == CV_TSTOP_RETURN) return RunReason::kReachedEnd;
    }
  }

  // ---- what a return of CVode means -------------------------------------------------------

  // CV_ROOT_RETURN at t_r: an atom crossed (CVODE's root is the far end of its final bracket,
  // so x(t_r) lies past the crossing). If a guard tree is now true, this is an event: it is
  // not one-sided (x does not satisfy the mode it leaves); the chain is resolved and CVODE
  // restarts in the arrival mode (or at a Zeno continuation), or the run ends (Zeno without
  // a continuation). Returns which.
  enum class AtRoot { kNoEvent, kEvent, kZenoStop, kStopped };
  AtRoot at_root(double t_r) {
    solver_.interpolate(t_r);  // cvRcheck2 may have left y at a probe next to t_r
    double* y = solver_.y();
    check_finite(model_, mode_, t_r, y, "the state");
    ledger_.detector().rearm_crossings(mode_, t_r, y);  // y is on the trajectory: false there, armed
    int fired = ledger_.detector().fired(mode_, t_r, y);
    bool one_sided = false;
    if (fired < 0 && an_atom_is_zero(t_r, y)) {
      fired = fired_after_zero(t_r, y);
      one_sided = fired >= 0;  // literally no guard fires at t_r: x still satisfies the mode
    }
    if (fired < 0) {  // a crossing that leaves every guard tree false: integration goes on
      root_without_event_ = true;
      last_root_t_ = t_r;
      return AtRoot::kNoEvent;
    }
    report_step(t_r, StepLimit::kEvent);
    sample(t_r, y);
    const AfterEvent<double> after =
        ledger_.event(mode_, fired, t_r, y, t_r, nullptr, one_sided, time_resolution(t_r), time_resolution(t_r));
    refuse_sliding(mode_, after, t_r);
    mode_ = after.arrival.mode;
    std::copy(after.arrival.x, after.arrival.x + n_, y);  // the chain copied x- first
    ledger_.detector().rearm_crossings_after(mode_, t_r, y, t_r, nullptr, after.arrival.dxdt);
    sample(t_r, y);
    t_resume_ = t_r;
    if (after.next == AfterEvent<double>::Next::kContinueZeno) {  // at t_inf in the continuation
      mode_ = after.zeno_mode;
      std::copy(after.zeno_x, after.zeno_x + n_, y);
      t_resume_ = after.t_zeno;
      sample(t_resume_, y);
    }
    if (after.next == AfterEvent<double>::Next::kStop) return AtRoot::kZenoStop;
    if (after.next == AfterEvent<double>::Next::kStopped) return AtRoot::kStopped;
    restart(t_resume_);
    return AtRoot::kEvent;
  }

  // CV_SUCCESS or CV_TSTOP_RETURN at t: the step pending since the last look ends here (it
  // may have ended earlier, at a root without an event, and is reported now).
  void at_step_end(double t) {
    const double* y = solver_.y();
    check_finite(model_, mode_, t, y, "the state");
    ledger_.detector().rearm_crossings(mode_, t, y);
    if (!step_pending_) return;
    const double h = t - pending_start_;
    StepLimit limit = StepLimit::kIntegrator;
    if (t >= exact_.t_end) {
      limit = StepLimit::kEnd;
    } else if (exact_.max_step > 0 && h >= exact_.max_step * (1 - kMaxStepSlack)) {
      limit = StepLimit::kMaxStep;
    }
    report_step(t, limit);
    sample(t, y);
  }

  // CV_ILL_INPUT from cvRcheck2, "root found at and very near t_r": an atom that was exactly 0
  // at the last root t_r is still exactly 0 just after it (a zero plateau, e.g. x = u - k
  // omega - phi of the PWM servo in s3 while omega is small: flat at 0 over many ulps of t).
  // Restarting at t_r lets cvRcheck1 set such an atom aside until it leaves 0, as CVODE does
  // with zeros at t0 (re-arming after a zero). Returns t_r.
  double restart_after_zero_plateau() {
    const double t_r = last_root_t_;
    solver_.interpolate(t_r);
    HYSIM_LOG_DEBUG("CVODE restart at t = {:.17g}: an atom of mode {} stays 0 after a root", t_r,
                    model_.modes[static_cast<std::size_t>(mode_)].name);
    report_step(t_r, StepLimit::kEvent);
    sample(t_r, solver_.y());
    restart(t_r);
    return t_r;
  }

  // CVODE starts afresh at (t, y) in the active mode.
  void restart(double t) {
    solver_.restart(t);
    restarted(t);
  }

  // No step pending, no root seen, since the (re)start at t.
  void restarted(double t) {
    root_without_event_ = false;
    step_start_ = t;
    steps_seen_ = 0;
    step_pending_ = false;
  }

  // ---- events -----------------------------------------------------------------------------

  // CVODE also returns a root where an atom is exactly 0 at the end of its bracket. For a
  // strict relation (x < 0 reached at x = 0) no guard fires literally there, yet one holds an
  // instant later, and CVODE will not report the same crossing again.
  bool an_atom_is_zero(double t, const double* x) {
    for (const RootFunction& function : solver_.roots()) {
      ++ledger_.stats().guard_evals;
      if (function.atom->e(t, x) == 0.0) return true;
    }
    return false;
  }

  // The transition that fires an instant after t when an atom is exactly 0 there: fired_after
  // reads such atoms by the sign of de/dt along the field (events/detection.hpp), as the
  // engine does at mode entry. -1 when none does.
  int fired_after_zero(double t, const double* x) {
    evaluate_field_or_throw(t, x);
    return ledger_.detector().fired_after(mode_, t, x, t, nullptr, field_.data()).index;
  }

  // CVODE integrates one mode's field at a time: it cannot follow a sliding motion, where the
  // fields on the two sides of a surface drive into it (Filippov's equivalent dynamics, which
  // hysim's own loop integrates). Restarted in either mode it would chatter across the surface
  // at its root-finding resolution, or leave the surface. So the run is refused where the
  // motion begins: when the chain classes an arrival sliding, or when the run goes back and
  // forth between the same two modes kChatterEvents times in a row, each event within
  // kChatterResolutions time resolutions of the one before (bounces through a pinnacle are
  // left to the Zeno watch).
  static constexpr int kChatterEvents = 4;
  static constexpr double kChatterResolutions = 1e3;
  void refuse_sliding(int from, const AfterEvent<double>& after, double t) {
    const int to = after.arrival.mode;
    const bool back_and_forth = !after.pinnacle && from != to && from == chatter_to_ && to == chatter_from_ &&
                                t - chatter_t_ <= kChatterResolutions * time_resolution(t);
    chatter_events_ = back_and_forth ? chatter_events_ + 1 : 0;
    chatter_from_ = from;
    chatter_to_ = to;
    chatter_t_ = t;
    if (after.last_kind != TransitionClass::kSliding && chatter_events_ < kChatterEvents) return;
    const auto& name = [this](int m) { return "'" + model_.modes[static_cast<std::size_t>(m)].name + "'"; };
    const int other = after.arrival.surface.mode_b >= 0 ? after.arrival.surface.mode_b : from;
    throw UnsupportedModel(
        where(model_, to, t) + ": the run slides on a surface " +
        (other == to ? "of mode " + name(to) : "between modes " + name(to) + " and " + name(other)) +
        (after.last_kind == TransitionClass::kSliding ? " (the chain classes it sliding)"
                                                      : " (it crosses back and forth at the time resolution)") +
        "; CVODE integrates one mode at a time and cannot follow a sliding motion: run it with a strategy of "
        "hysim's own loop (gamma-refine, the default, moves along the surface with Filippov's equivalent dynamics)");
  }

  // ---- bookkeeping ------------------------------------------------------------------------

  // A step CVODE took since the last look becomes the pending step [step_start_, t_n].
  void note_step() {
    const long steps = solver_.steps();
    if (steps == steps_seen_) return;
    steps_seen_ = steps;
    const double t_n = solver_.current_time();
    // A step of at most eps |t| (about one ulp of t) makes no progress; CVODE itself only
    // warns that t + h == t and goes on. (options.min_step is CVODE's own hmin.)
    const double h = t_n - step_start_;
    const double h_floor = machine_epsilon<double>() * std::abs(step_start_);
    if (h <= h_floor) {
      throw SimulationError(where(model_, mode_, step_start_) + ": step size " + format_scalar(h) +
                            " does not advance t (at most eps |t| = " + format_scalar(h_floor) +
                            "; stiff, singular or discontinuous field?)");
    }
    pending_start_ = step_start_;
    step_start_ = t_n;
    step_pending_ = true;
  }

  // Passes the pending step, ending at t_stop, to the step log.
  void report_step(double t_stop, StepLimit limit) {
    if (!step_pending_) return;
    step_pending_ = false;
    const double h = t_stop - pending_start_;
    HYSIM_LOG_DEBUG("step t = {:.17g} h = {:.3e} mode {} ({})", pending_start_, h,
                    model_.modes[static_cast<std::size_t>(mode_)].name, step_limit_name(limit));
    ledger_.observer().on_step(pending_start_, h, limit);
  }

  void sample(double t, const double* x) { ledger_.sample(t, mode_, x); }

  // field_ = f_a(t, x), counted; a non-finite value throws.
  void evaluate_field_or_throw(double t, const double* x) {
    ++ledger_.stats().rhs_evals;
    model_.modes[static_cast<std::size_t>(mode_)].field(t, x, field_.data());
    for (std::size_t j = 0; j < n_; ++j) {
      if (!std::isfinite(field_[j])) {
        throw SimulationError(where(model_, mode_, t) + ": the field returned d" + model_.state_names[j] +
                              "/dt = " + format_scalar(field_[j]));
      }
    }
  }

  double time_resolution(double t) const {
    return kTimeResolutionEps * machine_epsilon<double>() * std::max(std::abs(t), 1.0);
  }

  const Model<double>& model_;
  const ExactOptions<double>& exact_;
  RunLedger<double>& ledger_;
  CvodeMethod method_;
  std::int64_t event_limit_;
  std::size_t n_;
  int mode_ = 0;  // the active mode, read by the solver's callbacks
  CvodeSolver solver_;
  std::vector<double> field_;
  double t_resume_ = 0.0;  // where integration goes on after the last event (t_r, or t_inf)

  // Steps: CVODE's count since the last (re)start, the pending step's start, the next one's.
  long steps_seen_ = 0;
  bool step_pending_ = false;
  double pending_start_ = 0.0;
  double step_start_ = 0.0;
  bool root_without_event_ = false;  // since the last (re)start, CVODE returned a root...
  double last_root_t_ = 0.0;         // ...the last one at this time, and no event fired there
  // refuse_sliding: the last event's modes and time, and how many in a row went back and forth
  int chatter_from_ = -1, chatter_to_ = -1, chatter_events_ = 0;
  double chatter_t_ = 0.0;
};

EngineInfo cvode_engine(CvodeMethod method) {
  EngineInfo info;
  info.name = method == CvodeMethod::kBdf ? "cvode" : "cvode-adams";
  info.own_integrator = true;
  info.make_double = [method](const EngineSetup<double>& setup) -> std::unique_ptr<Engine<double>> {
    return std::make_unique<CvodeEngine>(setup.model, setup.exact, setup.ledger, method, setup.options.event_limit,
                                         linear_solver_from_name(setup.options.linear_solver));
  };
  return info;
}

}  // namespace

RunResult<double> run_cvode(const Model<double>& model, const SimulationOptions& options,
                            Observer<double>* observer, RunStatistics* stats, CvodeMethod method,
                            const std::atomic<bool>* stop) {
  const ExactOptions<double> exact = exact_options<double>(options);
  RunLedger<double> ledger(model, options, exact, stats);
  CvodeEngine engine(model, exact, ledger, method, options.event_limit, linear_solver_from_name(options.linear_solver));
  ledger.begin(observer);
  return engine.run(stop);
}

StrategyInfo cvode_strategy(CvodeMethod method) {
  const bool bdf = method == CvodeMethod::kBdf;
  StrategyInfo info;
  info.name = bdf ? "cvode" : "cvode-adams";
  info.description = bdf ? "SUNDIALS CVODE, BDF with Newton iteration (stiff), its own rootfinding, restarted after each event"
                         : "SUNDIALS CVODE, Adams-Moulton with fixed-point iteration (non-stiff), its own rootfinding, "
                           "restarted after each event";
  info.source = "Hindmarsh et al., ACM TOMS 31(3), 2005";
  info.engine = cvode_engine(method).name;
  info.driver_solver = bdf ? "cvode/BDF" : "cvode/Adams";
  return info;
}

void register_cvode_engines() {
  register_engine(cvode_engine(CvodeMethod::kBdf));
  register_engine(cvode_engine(CvodeMethod::kAdams));
}

}  // namespace hysim
