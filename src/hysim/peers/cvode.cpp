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

#include <cvode/cvode.h>
#include <cvode/cvode_ls.h>
#include <nvector/nvector_serial.h>
#include <sundials/sundials_context.h>
#include <sunlinsol/sunlinsol_dense.h>
#include <sunmatrix/sunmatrix_dense.h>
#include <sunnonlinsol/sunnonlinsol_fixedpoint.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <exception>
#include <limits>
#include <memory>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

#include "hysim/core/errors.hpp"
#include "hysim/core/log.hpp"
#include "hysim/events/chain.hpp"
#include "hysim/events/detection.hpp"
#include "hysim/events/event_emitter.hpp"
#include "hysim/events/run_checks.hpp"
#include "hysim/events/zeno.hpp"

namespace hysim {
namespace {

static_assert(std::is_same_v<realtype, double>, "the CVODE peer needs SUNDIALS built with double realtype");

// What a field or root-function callback returns to CVODE (CVODE guide, 4.6.1-4.6.2).
constexpr int kCallbackOk = 0;
constexpr int kCallbackUnrecoverable = -1;  // CVode returns at once with an error flag

// The time resolution, this many eps max(|t|, 1) (the engine's smallest step): events closer
// than it to the previous one count as at the same time.
constexpr double kTimeResolutionEps = 16.0;
// A remaining interval t_end - t below this many eps max(|t|, |t_end|) is not integrated:
// CVODE refuses to start on it (cvHin's CV_TOO_CLOSE below 2 eps).
constexpr double kEndResolutionEps = 4.0;
// A step this close to max_step (relative) was limited by it.
constexpr double kMaxStepSlack = 1e-9;

// Owners of the SUNDIALS objects, freed by their own destructors.
struct FreeContext {
  void operator()(SUNContext context) const { SUNContext_Free(&context); }
};
struct FreeVector {
  void operator()(N_Vector v) const { N_VDestroy(v); }
};
struct FreeMatrix {
  void operator()(SUNMatrix m) const { SUNMatDestroy(m); }
};
struct FreeLinearSolver {
  void operator()(SUNLinearSolver s) const { SUNLinSolFree(s); }
};
struct FreeNonlinearSolver {
  void operator()(SUNNonlinearSolver s) const { SUNNonlinSolFree(s); }
};
struct FreeCvode {
  void operator()(void* memory) const { CVodeFree(&memory); }
};
using ContextHandle = std::unique_ptr<std::remove_pointer_t<SUNContext>, FreeContext>;
using VectorHandle = std::unique_ptr<std::remove_pointer_t<N_Vector>, FreeVector>;
using MatrixHandle = std::unique_ptr<std::remove_pointer_t<SUNMatrix>, FreeMatrix>;
using LinearSolverHandle = std::unique_ptr<std::remove_pointer_t<SUNLinearSolver>, FreeLinearSolver>;
using NonlinearSolverHandle = std::unique_ptr<std::remove_pointer_t<SUNNonlinearSolver>, FreeNonlinearSolver>;
using CvodeHandle = std::unique_ptr<void, FreeCvode>;

// "CV_ROOT_RETURN" for CV_ROOT_RETURN (CVodeGetReturnFlagName allocates the name).
std::string flag_name(int flag) {
  std::unique_ptr<char, decltype(&std::free)> name(CVodeGetReturnFlagName(flag), &std::free);
  return name ? std::string(name.get()) : "flag " + std::to_string(flag);
}

// One root function: an atom of a transition of the active mode.
struct RootFunction {
  const Atom<double>* atom = nullptr;
  int transition = -1;
};

class CvodeRun {
 public:
  CvodeRun(const Model<double>& model, const SimulationOptions& options, Observer<double>* observer,
           RunStatistics* stats, CvodeMethod method, const std::atomic<bool>* interrupt)
      : model_(model),
        options_(options),
        observer_(observer),
        stats_(stats),
        method_(method),
        interrupt_(interrupt),
        n_(model.state_size()),
        detector_(model, &stats->guard_evals),
        chain_(model, options.chain_limit, &detector_, &stats->rhs_evals),
        emitter_(model, options, &chain_, stats),
        zeno_(model, options, &emitter_),
        field_(n_) {
    // Root functions of each mode: every atom of every transition, in declaration order.
    roots_of_mode_.resize(model.modes.size());
    for (std::size_t a = 0; a < model.modes.size(); ++a) {
      const auto& transitions = model.modes[a].transitions;
      for (std::size_t k = 0; k < transitions.size(); ++k) {
        for (const Atom<double>& atom : transitions[k].guard.atoms()) {
          roots_of_mode_[a].push_back({&atom, static_cast<int>(k)});
        }
      }
    }
  }

  RunResult<double> run() {
    *stats_ = RunStatistics{};
    emitter_.reset(observer_);
    zeno_.reset();
    stop_ = false;
    const double t_end = options_.t_end;
    double t = model_.t0;
    mode_ = model_.initial_mode;
    std::vector<double> x(model_.x0.begin(), model_.x0.end());
    check_finite(t, x.data(), "the initial state");
    if (observer_) observer_->on_start(model_, options_);

    // Zeros at t0, as the engine asks them: a guard of the initial mode that already fires,
    // or sits at 0 and is driven across, starts a chain at t0. CVODE starts after it.
    evaluate_field_or_throw(t, x.data());
    const FiredTransition at_start = detector_.fired_after(mode_, t, x.data(), t, nullptr, field_.data());
    sample(t, x.data());
    if (at_start.index >= 0) {
      const bool one_sided = detector_.fired(mode_, t, x.data()) < 0;
      const auto outcome = emitter_.take(mode_, at_start.index, t, x.data(), t, nullptr, one_sided, time_resolution(t));
      mode_ = outcome.arrival.mode;
      std::copy(outcome.arrival.x, outcome.arrival.x + n_, x.begin());
      sample(t, x.data());
    }
    start(t, x.data());

    RunResult<double> result;
    while (true) {
      if (stop_) {
        result.reason = RunReason::kZeno;
        break;
      }
      if (stats_->events >= options_.event_limit) {
        result.reason = RunReason::kEventLimit;
        break;
      }
      // Polled after each internal step (CV_ONE_STEP returns after one), as the engine polls.
      if (interrupt_ != nullptr && interrupt_->load(std::memory_order_relaxed)) {
        result.reason = RunReason::kInterrupted;
        break;
      }
      // An event within a few ulps of t_end ends the run: CVODE cannot start on what remains.
      if (t_end - t <= kEndResolutionEps * machine_epsilon<double>() * std::max(std::abs(t), std::abs(t_end))) break;

      double t_returned = t;
      problem_.clear();
      cvode_message_.clear();
      error_function_.clear();
      const int flag = CVode(memory_.get(), t_end, y_.get(), &t_returned, CV_ONE_STEP);
      if (failure_) std::rethrow_exception(failure_);
      sync_counters();
      if (flag == CV_ILL_INPUT && error_function_ == "cvRcheck2" && root_without_event_) {
        t = restart_after_zero_plateau();
        continue;
      }
      if (flag < 0) fail(flag, "CVode");
      note_step();
      if (flag == CV_ROOT_RETURN) {
        if (at_root(t_returned)) t = t_resume_;
        continue;
      }
      // CV_SUCCESS (a step ended at t_n) or CV_TSTOP_RETURN (t_end reached).
      t = t_returned;
      at_step_end(t);
      if (flag == CV_TSTOP_RETURN) break;
    }

    const double* y = N_VGetArrayPointer(y_.get());
    result.t = t;
    result.mode = mode_;
    result.x.assign(y, y + n_);
    result.stats = *stats_;
    result.zeno_detected = zeno_.detected();
    result.zeno_of_pinnacles = zeno_.of_pinnacles();
    result.t_zeno = zeno_.t_zeno();
    result.message =
        result_message(result, model_, std::string(" (CVODE ") + (method_ == CvodeMethod::kBdf ? "BDF" : "Adams") + ")");
    return result;
  }

 private:
  // ---- what a return of CVode means -------------------------------------------------------

  // CV_ROOT_RETURN at t_r: an atom crossed (CVODE's root is the far end of its final bracket,
  // so x(t_r) lies past the crossing). If a guard tree is now true, this is an event: it is
  // not one-sided (x does not satisfy the mode it leaves); the chain is resolved and CVODE
  // restarts in the arrival mode. Returns whether an event happened.
  bool at_root(double t_r) {
    // y(t_r) from CVODE's interpolant (cvRcheck2 may have left y at a probe next to t_r).
    check(CVodeGetDky(memory_.get(), t_r, 0, y_.get()), "CVodeGetDky");
    double* y = N_VGetArrayPointer(y_.get());
    check_finite(t_r, y, "the state");
    int fired = detector_.fired(mode_, t_r, y);
    bool one_sided = false;
    if (fired < 0 && an_atom_is_zero(t_r, y)) {
      fired = fired_after_zero(t_r, y);
      one_sided = fired >= 0;  // literally no guard fires at t_r: x still satisfies the mode
    }
    if (fired < 0) {  // a crossing that leaves every guard tree false: integration goes on
      root_without_event_ = true;
      last_root_t_ = t_r;
      return false;
    }
    report_step(t_r, StepLimit::kEvent);
    sample(t_r, y);
    const EventOrigin origin{mode_, fired};
    const auto outcome = emitter_.take(mode_, fired, t_r, y, t_r, nullptr, one_sided, time_resolution(t_r));
    mode_ = outcome.arrival.mode;
    std::copy(outcome.arrival.x, outcome.arrival.x + n_, y);  // the chain copied x_a first
    sample(t_r, y);
    t_resume_ = t_r;
    if (at_zeno(t_r, y, outcome.pinnacle, origin)) {
      if (stop_) return true;
    }
    restart(t_resume_);
    return true;
  }

  // After an event at t_r with arrival state y (events/zeno.hpp, ZenoPolicy, as the engine
  // does; `pinnacle`: its chain visited one): true when Zeno is declared; then either stop_, or
  // y is the continuation's state and integration goes on at t_inf in its mode.
  bool at_zeno(double t_r, double* y, bool pinnacle, EventOrigin origin) {
    switch (zeno_.observe(t_r, time_resolution(t_r), mode_, y, pinnacle, origin)) {
      case ZenoPolicy<double>::Verdict::kNone: return false;
      case ZenoPolicy<double>::Verdict::kStop: stop_ = true; return true;
      case ZenoPolicy<double>::Verdict::kContinue:
        mode_ = model_.zeno.mode;
        std::copy(zeno_.continuation_state(), zeno_.continuation_state() + n_, y);
        t_resume_ = zeno_.t_zeno();
        sample(t_resume_, y);
        return true;
    }
    return false;
  }

  // CV_SUCCESS or CV_TSTOP_RETURN at t: the step pending since the last look ends here (it
  // may have ended earlier, at a root without an event, and is reported now).
  void at_step_end(double t) {
    const double* y = N_VGetArrayPointer(y_.get());
    check_finite(t, y, "the state");
    if (!step_pending_) return;
    const double h = t - pending_start_;
    StepLimit limit = StepLimit::kIntegrator;
    if (t >= options_.t_end) {
      limit = StepLimit::kEnd;
    } else if (options_.max_step > 0 && h >= options_.max_step * (1 - kMaxStepSlack)) {
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
    check(CVodeGetDky(memory_.get(), t_r, 0, y_.get()), "CVodeGetDky");
    HYSIM_LOG_DEBUG("CVODE restart at t = {:.17g}: an atom of mode {} stays 0 after a root", t_r, mode_name());
    report_step(t_r, StepLimit::kEvent);
    sample(t_r, N_VGetArrayPointer(y_.get()));
    restart(t_r);
    return t_r;
  }

  // ---- CVODE setup ------------------------------------------------------------------------

  // Creates CVODE at (t0, x0) in mode_ with the options' tolerances and step bounds.
  void start(double t0, const double* x0) {
    SUNContext context = nullptr;
    if (SUNContext_Create(nullptr, &context) != 0 || context == nullptr) {
      throw SimulationError(where(t0) + ": SUNContext_Create failed");
    }
    context_.reset(context);
    y_.reset(N_VNew_Serial(static_cast<sunindextype>(n_), context));
    if (!y_) throw SimulationError(where(t0) + ": N_VNew_Serial failed");
    std::copy(x0, x0 + n_, N_VGetArrayPointer(y_.get()));

    memory_.reset(CVodeCreate(method_ == CvodeMethod::kBdf ? CV_BDF : CV_ADAMS, context));
    if (!memory_) throw SimulationError(where(t0) + ": CVodeCreate failed");
    void* memory = memory_.get();
    check(CVodeSetErrHandlerFn(memory, &CvodeRun::on_cvode_message, this), "CVodeSetErrHandlerFn");
    check(CVodeInit(memory, &CvodeRun::field_callback, t0, y_.get()), "CVodeInit");
    check(CVodeSetUserData(memory, this), "CVodeSetUserData");
    check(CVodeSStolerances(memory, options_.rtol, options_.atol), "CVodeSStolerances");
    if (method_ == CvodeMethod::kBdf) {
      // Newton iteration (CVODE's default nonlinear solver) on a dense matrix; no Jacobian
      // function is given, so CVODE forms it by difference quotients of the field.
      matrix_.reset(SUNDenseMatrix(static_cast<sunindextype>(n_), static_cast<sunindextype>(n_), context));
      if (!matrix_) throw SimulationError(where(t0) + ": SUNDenseMatrix failed");
      linear_solver_.reset(SUNLinSol_Dense(y_.get(), matrix_.get(), context));
      if (!linear_solver_) throw SimulationError(where(t0) + ": SUNLinSol_Dense failed");
      check(CVodeSetLinearSolver(memory, linear_solver_.get(), matrix_.get()), "CVodeSetLinearSolver");
    } else {
      // Fixed-point (functional) iteration without acceleration: the non-stiff pairing.
      nonlinear_solver_.reset(SUNNonlinSol_FixedPoint(y_.get(), 0, context));
      if (!nonlinear_solver_) throw SimulationError(where(t0) + ": SUNNonlinSol_FixedPoint failed");
      check(CVodeSetNonlinearSolver(memory, nonlinear_solver_.get()), "CVodeSetNonlinearSolver");
    }
    if (options_.max_step > 0) check(CVodeSetMaxStep(memory, options_.max_step), "CVodeSetMaxStep");
    if (options_.min_step > 0) check(CVodeSetMinStep(memory, options_.min_step), "CVodeSetMinStep");
    if (options_.initial_step > 0) check(CVodeSetInitStep(memory, options_.initial_step), "CVodeSetInitStep");
    check(CVodeSetStopTime(memory, options_.t_end), "CVodeSetStopTime");
    arm_roots();
    root_without_event_ = false;
    step_start_ = t0;
    steps_seen_ = 0;
    step_pending_ = false;
  }

  // After an event (or at a zero plateau): CVODE starts afresh (order 1, its own first-step
  // estimate) at (t, y_).
  void restart(double t) {
    void* memory = memory_.get();
    steps_base_ = stats_->steps_accepted;
    rejected_base_ = stats_->steps_rejected;
    check(CVodeReInit(memory, t, y_.get()), "CVodeReInit");
    root_without_event_ = false;
    // initial_step is the run's first step; later starts use CVODE's estimate (hin = 0).
    if (options_.initial_step > 0) check(CVodeSetInitStep(memory, 0.0), "CVodeSetInitStep");
    check(CVodeSetStopTime(memory, options_.t_end), "CVodeSetStopTime");
    arm_roots();
    step_start_ = t;
    steps_seen_ = 0;
    step_pending_ = false;
  }

  // One root function per atom of mode_'s guards. Clearing first makes CVODE allocate its
  // root memory afresh, so that no atom of the previous mode stays marked inactive.
  void arm_roots() {
    void* memory = memory_.get();
    check(CVodeRootInit(memory, 0, nullptr), "CVodeRootInit");
    const int count = static_cast<int>(roots().size());
    if (count > 0) check(CVodeRootInit(memory, count, &CvodeRun::root_callback), "CVodeRootInit");
  }

  // ---- callbacks (called from C: they catch everything and report by return value) ---------

  static int field_callback(realtype t, N_Vector y, N_Vector dydt, void* self) {
    return static_cast<CvodeRun*>(self)->field(t, N_VGetArrayPointer(y), N_VGetArrayPointer(dydt));
  }

  static int root_callback(realtype t, N_Vector y, realtype* g, void* self) {
    return static_cast<CvodeRun*>(self)->atoms(t, N_VGetArrayPointer(y), g);
  }

  static void on_cvode_message(int code, const char* module, const char* function, char* message, void* self) {
    try {
      const std::string text = std::string(module) + " " + function + ": " + message;
      if (code == CV_WARNING) {
        HYSIM_LOG_DEBUG("CVODE warning: {}", text);
      } else {
        static_cast<CvodeRun*>(self)->cvode_message_ = text;
        static_cast<CvodeRun*>(self)->error_function_ = function;
      }
    } catch (...) {
      // Losing the message text is harmless: the flag still reaches fail().
    }
  }

  // f_a(t, x) of the active mode. A non-finite value ends the run, as in the engine: it is
  // reported to CVODE as unrecoverable (CV_RHSFUNC_FAIL), and fail() names the component.
  // (As a recoverable error CVODE would retry with ever smaller steps that approach the
  // poisoned region without end.)
  int field(double t, const double* x, double* dxdt) noexcept {
    ++stats_->rhs_evals;
    return guarded([&] {
      model_.modes[static_cast<std::size_t>(mode_)].field(t, x, dxdt);
      for (std::size_t j = 0; j < n_; ++j) {
        if (!std::isfinite(dxdt[j])) {
          problem_ = "the field returned d" + model_.state_names[j] + "/dt = " + format_scalar(dxdt[j]) +
                     " at t = " + format_scalar(t);
          return kCallbackUnrecoverable;
        }
      }
      return kCallbackOk;
    });
  }

  // Runs a callback's body: an exception is kept, and rethrown after CVode returns.
  template <class Body>
  int guarded(Body&& body) noexcept {
    try {
      return body();
    } catch (...) {
      failure_ = std::current_exception();
      return kCallbackUnrecoverable;
    }
  }

  // e_i(t, x) of every root function of the active mode.
  int atoms(double t, const double* x, double* g) noexcept {
    double t_n = t;
    CVodeGetCurrentTime(memory_.get(), &t_n);
    if (t != t_n) ++stats_->root_iterations;
    return guarded([&] {
      const auto& functions = roots();
      for (std::size_t i = 0; i < functions.size(); ++i) {
        ++stats_->guard_evals;
        g[i] = functions[i].atom->e(t, x);
        if (!std::isfinite(g[i])) {
          const auto& mode = model_.modes[static_cast<std::size_t>(mode_)];
          problem_ = "guard '" + mode.transitions[static_cast<std::size_t>(functions[i].transition)].name +
                     "' atom '" + functions[i].atom->name + "' evaluated to " + format_scalar(g[i]) +
                     " at t = " + format_scalar(t);
          return kCallbackUnrecoverable;
        }
      }
      return kCallbackOk;
    });
  }

  // ---- events -----------------------------------------------------------------------------

  // CVODE also returns a root where an atom is exactly 0 at the end of its bracket. For a
  // strict relation (x < 0 reached at x = 0) no guard fires literally there, yet one holds an
  // instant later, and CVODE will not report the same crossing again.
  bool an_atom_is_zero(double t, const double* x) {
    for (const RootFunction& function : roots()) {
      ++stats_->guard_evals;
      if (function.atom->e(t, x) == 0.0) return true;
    }
    return false;
  }

  // The transition that fires an instant after t when an atom is exactly 0 there: fired_after
  // reads such atoms by the sign of de/dt along the field (events/detection.hpp), as the
  // engine does at mode entry. -1 when none does.
  int fired_after_zero(double t, const double* x) {
    evaluate_field_or_throw(t, x);
    return detector_.fired_after(mode_, t, x, t, nullptr, field_.data()).index;
  }

  // ---- bookkeeping ------------------------------------------------------------------------

  // A step CVODE took since the last look becomes the pending step [step_start_, t_n].
  void note_step() {
    long steps = 0;
    check(CVodeGetNumSteps(memory_.get(), &steps), "CVodeGetNumSteps");
    if (steps == steps_seen_) return;
    steps_seen_ = steps;
    double t_n = step_start_;
    check(CVodeGetCurrentTime(memory_.get(), &t_n), "CVodeGetCurrentTime");
    // A step of at most eps |t| (about one ulp of t) makes no progress; CVODE itself only
    // warns that t + h == t and goes on. (options.min_step is CVODE's own hmin.)
    const double h = t_n - step_start_;
    const double h_floor = machine_epsilon<double>() * std::abs(step_start_);
    if (h <= h_floor) {
      throw SimulationError(where(step_start_) + ": step size " + format_scalar(h) +
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
    HYSIM_LOG_DEBUG("step t = {:.17g} h = {:.3e} mode {} ({})", pending_start_, h, mode_name(), step_limit_name(limit));
    if (observer_) observer_->on_step(pending_start_, h, limit);
  }

  // RunStatistics' step counters from CVODE's, plus those of earlier (re)starts.
  void sync_counters() {
    long steps = 0, error_test_fails = 0, solve_fails = 0;
    void* memory = memory_.get();
    check(CVodeGetNumSteps(memory, &steps), "CVodeGetNumSteps");
    check(CVodeGetNumErrTestFails(memory, &error_test_fails), "CVodeGetNumErrTestFails");
    check(CVodeGetNumStepSolveFails(memory, &solve_fails), "CVodeGetNumStepSolveFails");
    stats_->steps_accepted = steps_base_ + steps;
    stats_->steps_rejected = rejected_base_ + error_test_fails + solve_fails;
  }

  void sample(double t, const double* x) {
    if (observer_) observer_->on_sample(t, mode_, std::span<const double>(x, n_));
  }

  // field_ = f_a(t, x), counted; a non-finite value throws.
  void evaluate_field_or_throw(double t, const double* x) {
    ++stats_->rhs_evals;
    model_.modes[static_cast<std::size_t>(mode_)].field(t, x, field_.data());
    for (std::size_t j = 0; j < n_; ++j) {
      if (!std::isfinite(field_[j])) {
        throw SimulationError(where(t) + ": the field returned d" + model_.state_names[j] +
                              "/dt = " + format_scalar(field_[j]));
      }
    }
  }

  void check_finite(double t, const double* x, const char* what) const {
    hysim::check_finite(model_, mode_, t, x, what);
  }

  // A SUNDIALS call that must succeed.
  void check(int flag, const char* call) {
    if (flag < 0) fail(flag, call);
  }

  // Throws SimulationError for a CVODE error flag: where the run stands (CVODE's t_n), which
  // call, the flag's name, what a callback found wrong (at its own, trial, time) and CVODE's
  // own message.
  [[noreturn]] void fail(int flag, const char* call) {
    if (failure_) std::rethrow_exception(failure_);
    double t = std::numeric_limits<double>::quiet_NaN();  // t_n: where the run stands
    if (memory_) CVodeGetCurrentTime(memory_.get(), &t);
    std::string message = where(t) + ": " + call + " returned " + flag_name(flag);
    if (!problem_.empty()) message += ": " + problem_;
    if (!cvode_message_.empty()) message += " [" + cvode_message_ + "]";
    throw SimulationError(message);
  }

  double time_resolution(double t) const {
    return kTimeResolutionEps * machine_epsilon<double>() * std::max(std::abs(t), 1.0);
  }

  const std::vector<RootFunction>& roots() const { return roots_of_mode_[static_cast<std::size_t>(mode_)]; }

  const std::string& mode_name() const { return model_.modes[static_cast<std::size_t>(mode_)].name; }

  std::string where(double t) const { return hysim::where(model_, mode_, t); }

  const Model<double>& model_;
  const SimulationOptions& options_;
  Observer<double>* observer_;
  RunStatistics* stats_;
  CvodeMethod method_;
  const std::atomic<bool>* interrupt_;  // the caller's stop flag (run_cvode), or null
  std::size_t n_;
  TransitionDetector<double> detector_;
  TransitionChain<double> chain_;
  EventEmitter<double> emitter_;
  ZenoPolicy<double> zeno_;
  std::vector<std::vector<RootFunction>> roots_of_mode_;
  std::vector<double> field_;
  int mode_ = 0;
  double t_resume_ = 0.0;  // where integration goes on after the last event (t_r, or t_inf)

  bool stop_ = false;  // Zeno declared, and the model has no continuation

  // Steps: CVODE's count since the last (re)start, the pending step's start, the next one's.
  long steps_seen_ = 0;
  bool step_pending_ = false;
  double pending_start_ = 0.0;
  double step_start_ = 0.0;
  std::int64_t steps_base_ = 0;
  std::int64_t rejected_base_ = 0;

  // What went wrong inside a callback, reported after CVode returns.
  std::exception_ptr failure_;
  std::string problem_;
  std::string cvode_message_;
  std::string error_function_;  // the CVODE function that reported the last error
  bool root_without_event_ = false;  // since the last (re)start, CVODE returned a root...
  double last_root_t_ = 0.0;         // ...the last one at this time, and no event fired there

  // Declared last, freed first: CVODE's memory before its solvers, vectors and context.
  ContextHandle context_;
  VectorHandle y_;
  MatrixHandle matrix_;
  LinearSolverHandle linear_solver_;
  NonlinearSolverHandle nonlinear_solver_;
  CvodeHandle memory_;
};

}  // namespace

RunResult<double> run_cvode(const Model<double>& model, const SimulationOptions& options,
                            Observer<double>* observer, RunStatistics* stats, CvodeMethod method,
                            const std::atomic<bool>* stop) {
  CvodeRun run(model, options, observer, stats, method, stop);
  return run.run();
}

StrategyInfo cvode_strategy(CvodeMethod method) {
  const bool bdf = method == CvodeMethod::kBdf;
  StrategyInfo info;
  info.name = bdf ? "cvode" : "cvode-adams";
  info.description = bdf ? "SUNDIALS CVODE, BDF with Newton iteration (stiff), its own rootfinding, restarted after each event"
                         : "SUNDIALS CVODE, Adams-Moulton with fixed-point iteration (non-stiff), its own rootfinding, "
                           "restarted after each event";
  info.source = "Hindmarsh et al., ACM TOMS 31(3), 2005";
  info.driver = [method](const Model<double>& model, const SimulationOptions& options, Observer<double>* observer,
                         RunStatistics* stats, const std::atomic<bool>* stop) {
    return run_cvode(model, options, observer, stats, method, stop);
  };
  info.driver_solver = bdf ? "cvode/BDF" : "cvode/Adams";
  return info;
}

}  // namespace hysim
