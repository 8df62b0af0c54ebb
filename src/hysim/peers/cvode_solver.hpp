// CVODE itself, for the CVODE engine (peers/cvode.cpp): the SUNDIALS objects, one root
// function per atom of the active mode's guards, the callbacks CVODE calls (the mode's field,
// the atoms), CVODE's error flags turned into SimulationError, and CVODE's step counters
// mapped onto RunStatistics (the list is in peers/cvode.cpp). Included by peers/cvode.cpp only.
#pragma once

#include <cvode/cvode.h>
#include <cvode/cvode_ls.h>
#include <nvector/nvector_serial.h>
#include <sundials/sundials_context.h>
#include <sunlinsol/sunlinsol_band.h>
#include <sunlinsol/sunlinsol_dense.h>
#include <sunlinsol/sunlinsol_klu.h>
#include <sunmatrix/sunmatrix_band.h>
#include <sunmatrix/sunmatrix_dense.h>
#include <sunnonlinsol/sunnonlinsol_fixedpoint.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <exception>
#include <limits>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include "hysim/core/errors.hpp"
#include "hysim/core/log.hpp"
#include "hysim/core/model.hpp"
#include "hysim/events/run_checks.hpp"
#include "hysim/peers/cvode.hpp"
#include "hysim/peers/cvode_jacobian.hpp"
#include "hysim/run/exact_options.hpp"
#include "hysim/solvers/iteration_matrix.hpp"

namespace hysim {
namespace cvode_detail {

static_assert(std::is_same_v<realtype, double>, "the CVODE peer needs SUNDIALS built with double realtype");

// What a field or root-function callback returns to CVODE (CVODE guide, 4.6.1-4.6.2).
constexpr int kCallbackOk = 0;
constexpr int kCallbackUnrecoverable = -1;  // CVode returns at once with an error flag

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
inline std::string flag_name(int flag) {
  std::unique_ptr<char, decltype(&std::free)> name(CVodeGetReturnFlagName(flag), &std::free);
  return name ? std::string(name.get()) : "flag " + std::to_string(flag);
}

// One root function: an atom of a transition of the active mode.
struct RootFunction {
  const Atom<double>* atom = nullptr;
  int transition = -1;
};

// When CVODE's root memory must be allocated afresh. CVODE sets a root function inactive only
// in its check at a (re)start (cvRcheck1), where the function is exactly 0, and active again at
// the end of the first step where it is not (cvRcheck3); a CVodeRootInit with as many
// functions as CVODE holds keeps that mark. So the memory is cleared and allocated afresh,
// every function active, where a function was 0 at a start since the last allocation or the
// number changes; otherwise it is kept (the restart after most events: no allocation).
struct RootMemory {
  int count = -1;              // functions CVODE holds (-1: none allocated since CVodeCreate)
  bool maybe_inactive = false;  // one was exactly 0 at a start since the allocation
  bool starting = false;        // the next root call is CVODE's check at a (re)start

  // A (re)start with `functions` root functions: whether to allocate afresh.
  bool restart_needs_init(int functions) {
    starting = true;
    return functions != count || maybe_inactive;
  }
  void allocated(int functions) {
    count = functions;
    maybe_inactive = false;
  }
  // A root call's values g[0..n).
  void called(const double* g, std::size_t n) {
    if (starting) maybe_inactive = maybe_inactive || std::find(g, g + n, 0.0) != g + n;
    starting = false;
  }
};

class CvodeSolver {
 public:
  // The model, options and counters outlive the solver; *mode is the active mode, read by the
  // callbacks.
  CvodeSolver(const Model<double>& model, const ExactOptions<double>& exact, CvodeMethod method, RunStatistics* stats,
              const int* mode, LinearSolver linear_solver = LinearSolver::kAuto)
      : model_(model),
        exact_(exact),
        method_(method),
        linear_solver_choice_(linear_solver),
        stats_(*stats),
        mode_(*mode),
        n_(model.state_size()) {
    // Root functions of each mode: every atom of every transition, in declaration order, but
    // one function per shared event (Atom::shared): the atoms made from one event have the same
    // e, and so the same zeros (x >= 0 and x < 0 are one root function).
    roots_of_mode_.resize(model.modes.size());
    for (std::size_t a = 0; a < model.modes.size(); ++a) {
      const auto& transitions = model.modes[a].transitions;
      std::vector<const void*> events;  // the shared events of this mode given a function so far
      for (std::size_t k = 0; k < transitions.size(); ++k) {
        for (const Atom<double>& atom : transitions[k].guard.atoms()) {
          if (atom.shared) {
            if (std::find(events.begin(), events.end(), atom.shared.get()) != events.end()) continue;
            events.push_back(atom.shared.get());
          }
          roots_of_mode_[a].push_back({&atom, static_cast<int>(k)});
        }
      }
    }
  }

  // Creates CVODE at (t0, x0) in the active mode with the options' tolerances and step bounds.
  void start(double t0, const double* x0) {
    SUNContext context = nullptr;
    if (SUNContext_Create(nullptr, &context) != 0 || context == nullptr) {
      throw SimulationError(where(t0) + ": SUNContext_Create failed");
    }
    context_.reset(context);
    y_.reset(N_VNew_Serial(static_cast<sunindextype>(n_), context));
    if (!y_) throw SimulationError(where(t0) + ": N_VNew_Serial failed");
    std::copy(x0, x0 + n_, y());
    memory_.reset(CVodeCreate(method_ == CvodeMethod::kBdf ? CV_BDF : CV_ADAMS, context));
    if (!memory_) throw SimulationError(where(t0) + ": CVodeCreate failed");
    root_memory_ = {};  // a new CVODE holds no root functions
    void* memory = memory_.get();
    check(CVodeSetErrHandlerFn(memory, &CvodeSolver::on_cvode_message, this), "CVodeSetErrHandlerFn");
    check(CVodeInit(memory, &CvodeSolver::field_callback, t0, y_.get()), "CVodeInit");
    check(CVodeSetUserData(memory, this), "CVodeSetUserData");
    if (exact_.atols.empty()) {
      check(CVodeSStolerances(memory, exact_.rtol, exact_.atol), "CVodeSStolerances");
    } else {  // CVODE keeps a copy of the vector
      const VectorHandle atols(N_VNew_Serial(static_cast<sunindextype>(n_), context));
      if (!atols) throw SimulationError(where(t0) + ": N_VNew_Serial failed");
      std::copy(exact_.atols.begin(), exact_.atols.end(), N_VGetArrayPointer(atols.get()));
      check(CVodeSVtolerances(memory, exact_.rtol, atols.get()), "CVodeSVtolerances");
    }
    iteration(t0, context);
    if (exact_.max_step > 0) check(CVodeSetMaxStep(memory, exact_.max_step), "CVodeSetMaxStep");
    if (exact_.min_step > 0) check(CVodeSetMinStep(memory, exact_.min_step), "CVodeSetMinStep");
    if (exact_.initial_step > 0) check(CVodeSetInitStep(memory, exact_.initial_step), "CVodeSetInitStep");
    check(CVodeSetStopTime(memory, exact_.t_end), "CVodeSetStopTime");
    arm_roots();
  }

  // After an event (or at a zero plateau): CVODE starts afresh (order 1, its own first-step
  // estimate) at (t, y) in the active mode.
  void restart(double t) {
    void* memory = memory_.get();
    steps_base_ = stats_.steps_accepted;
    rejected_base_ = stats_.steps_rejected;
    check(CVodeReInit(memory, t, y_.get()), "CVodeReInit");
    // initial_step is the run's first step; later starts use CVODE's estimate (hin = 0).
    if (exact_.initial_step > 0) check(CVodeSetInitStep(memory, 0.0), "CVodeSetInitStep");
    check(CVodeSetStopTime(memory, exact_.t_end), "CVodeSetStopTime");
    arm_roots();
  }

  // One internal step toward t_end (CV_ONE_STEP); *t_returned is where CVODE stands. A
  // callback's exception is rethrown; the step counters are brought up to date.
  int step(double* t_returned) {
    problem_.clear();
    cvode_message_.clear();
    error_function_.clear();
    const int flag = CVode(memory_.get(), exact_.t_end, y_.get(), t_returned, CV_ONE_STEP);
    if (failure_) std::rethrow_exception(failure_);
    sync_counters();
    return flag;
  }

  double* y() { return N_VGetArrayPointer(y_.get()); }
  // y := y(t) from CVODE's interpolant.
  void interpolate(double t) { check(CVodeGetDky(memory_.get(), t, 0, y_.get()), "CVodeGetDky"); }
  long steps() {
    long steps = 0;
    check(CVodeGetNumSteps(memory_.get(), &steps), "CVodeGetNumSteps");
    return steps;
  }
  double current_time() {
    double t_n = 0.0;
    check(CVodeGetCurrentTime(memory_.get(), &t_n), "CVodeGetCurrentTime");
    return t_n;
  }
  // The CVODE function that reported the last error ("cvRcheck2").
  const std::string& error_function() const { return error_function_; }
  const std::vector<RootFunction>& roots() const { return roots_of_mode_[static_cast<std::size_t>(mode_)]; }

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

 private:
  // Newton iteration (CVODE's default nonlinear solver) for BDF on a dense matrix, on a band
  // matrix when the model's Jacobian pattern is a narrow band, or with KLU on the pattern when
  // it is sparse otherwise (the rule of the implicit steppers' sparse LU,
  // solvers/iteration_matrix.hpp). Dense and band: CVODE forms J by difference quotients (the
  // band one in ml + mu + 1 evaluations, by groups of columns); KLU: ours, grouped the same way
  // (peers/cvode_jacobian.hpp). Fixed-point (functional) iteration without acceleration for
  // Adams: the non-stiff pairing.
  void iteration(double t0, SUNContext context) {
    void* memory = memory_.get();
    if (method_ == CvodeMethod::kBdf) {
      const auto n = static_cast<sunindextype>(n_);
      const JacobianPattern* pattern = model_.jacobian_pattern.get();
      const CvodeMatrix kind = cvode_matrix(pattern, linear_solver_choice_);
      const bool banded = kind == CvodeMatrix::kBand, sparse = kind == CvodeMatrix::kSparse;
      if (banded) {
        matrix_.reset(SUNBandMatrix(n, static_cast<sunindextype>(pattern->upper_bandwidth()),
                                    static_cast<sunindextype>(pattern->lower_bandwidth()), context));
        if (!matrix_) throw SimulationError(where(t0) + ": SUNBandMatrix failed");
        linear_solver_.reset(SUNLinSol_Band(y_.get(), matrix_.get(), context));
        if (!linear_solver_) throw SimulationError(where(t0) + ": SUNLinSol_Band failed");
      } else if (sparse) {  // KLU, with our grouped quotients (peers/cvode_jacobian.hpp)
        if (!jacobian_) jacobian_ = std::make_unique<SparseDifferenceJacobian>(*pattern);
        matrix_.reset(SUNSparseMatrix(n, n, static_cast<sunindextype>(pattern->nonzeros()), CSC_MAT, context));
        if (!matrix_) throw SimulationError(where(t0) + ": SUNSparseMatrix failed");
        linear_solver_.reset(SUNLinSol_KLU(y_.get(), matrix_.get(), context));
        if (!linear_solver_) throw SimulationError(where(t0) + ": SUNLinSol_KLU failed");
      } else {
        matrix_.reset(SUNDenseMatrix(n, n, context));
        if (!matrix_) throw SimulationError(where(t0) + ": SUNDenseMatrix failed");
        linear_solver_.reset(SUNLinSol_Dense(y_.get(), matrix_.get(), context));
        if (!linear_solver_) throw SimulationError(where(t0) + ": SUNLinSol_Dense failed");
      }
      check(CVodeSetLinearSolver(memory, linear_solver_.get(), matrix_.get()), "CVodeSetLinearSolver");
      if (sparse) check(CVodeSetJacFn(memory, &CvodeSolver::jacobian_callback), "CVodeSetJacFn");
    } else {
      nonlinear_solver_.reset(SUNNonlinSol_FixedPoint(y_.get(), 0, context));
      if (!nonlinear_solver_) throw SimulationError(where(t0) + ": SUNNonlinSol_FixedPoint failed");
      check(CVodeSetNonlinearSolver(memory, nonlinear_solver_.get()), "CVodeSetNonlinearSolver");
    }
  }

  // One root function per atom of the active mode's guards (memory as RootMemory says).
  void arm_roots() {
    const int count = static_cast<int>(roots().size());
    if (!root_memory_.restart_needs_init(count)) return;
    check(CVodeRootInit(memory_.get(), 0, nullptr), "CVodeRootInit");
    if (count > 0) check(CVodeRootInit(memory_.get(), count, &CvodeSolver::root_callback), "CVodeRootInit");
    root_memory_.allocated(count);
  }

  // RunStatistics' step counters from CVODE's, plus those of earlier (re)starts.
  void sync_counters() {
    long steps = 0, error_test_fails = 0, solve_fails = 0;
    void* memory = memory_.get();
    check(CVodeGetNumSteps(memory, &steps), "CVodeGetNumSteps");
    check(CVodeGetNumErrTestFails(memory, &error_test_fails), "CVodeGetNumErrTestFails");
    check(CVodeGetNumStepSolveFails(memory, &solve_fails), "CVodeGetNumStepSolveFails");
    stats_.steps_accepted = steps_base_ + steps;
    stats_.steps_rejected = rejected_base_ + error_test_fails + solve_fails;
  }

  // ---- callbacks (called from C: they catch everything and report by return value) ---------

  static int field_callback(realtype t, N_Vector y, N_Vector dydt, void* self) {
    return static_cast<CvodeSolver*>(self)->field(t, N_VGetArrayPointer(y), N_VGetArrayPointer(dydt));
  }

  static int jacobian_callback(realtype t, N_Vector y, N_Vector fy, SUNMatrix J, void* self, N_Vector work1,
                               N_Vector work2, N_Vector work3) {
    auto& solver = *static_cast<CvodeSolver*>(self);
    const auto field = [&](double at, const double* x, double* f) { return solver.field(at, x, f); };
    return solver.jacobian_->fill(solver.memory_.get(), t, y, fy, J, work1, work2, work3, field);
  }

  static int root_callback(realtype t, N_Vector y, realtype* g, void* self) {
    return static_cast<CvodeSolver*>(self)->atoms(t, N_VGetArrayPointer(y), g);
  }

  static void on_cvode_message(int code, const char* module, const char* function, char* message, void* self) {
    try {  // into the strings' kept capacity: an error recovered from (a zero plateau) allocates nothing
      if (code == CV_WARNING) {
        HYSIM_LOG_DEBUG("CVODE warning: {} {}: {}", module, function, message);
      } else {
        auto& solver = *static_cast<CvodeSolver*>(self);
        solver.cvode_message_.assign(module).append(" ").append(function).append(": ").append(message);
        solver.error_function_.assign(function);
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
    ++stats_.rhs_evals;
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

  // e_i(t, x) of every root function of the active mode.
  int atoms(double t, const double* x, double* g) noexcept {
    double t_n = t;
    CVodeGetCurrentTime(memory_.get(), &t_n);
    if (t != t_n) ++stats_.root_iterations;
    return guarded([&] {
      const auto& functions = roots();
      for (std::size_t i = 0; i < functions.size(); ++i) {
        ++stats_.guard_evals;
        g[i] = functions[i].atom->e(t, x);
        if (!std::isfinite(g[i])) {
          const auto& mode = model_.modes[static_cast<std::size_t>(mode_)];
          problem_ = "guard '" + mode.transitions[static_cast<std::size_t>(functions[i].transition)].name +
                     "' atom '" + functions[i].atom->name + "' evaluated to " + format_scalar(g[i]) +
                     " at t = " + format_scalar(t);
          return kCallbackUnrecoverable;
        }
      }
      root_memory_.called(g, functions.size());
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

  std::string where(double t) const { return hysim::where(model_, mode_, t); }

  const Model<double>& model_;
  const ExactOptions<double>& exact_;
  CvodeMethod method_;
  LinearSolver linear_solver_choice_;  // BDF: dense; band or KLU on a Jacobian pattern
  std::unique_ptr<SparseDifferenceJacobian> jacobian_;  // KLU's Jacobian, when chosen
  RunStatistics& stats_;
  const int& mode_;
  std::size_t n_;
  std::vector<std::vector<RootFunction>> roots_of_mode_;
  RootMemory root_memory_;
  std::int64_t steps_base_ = 0;     // the counters of earlier (re)starts
  std::int64_t rejected_base_ = 0;

  // What went wrong inside a callback, reported after CVode returns.
  std::exception_ptr failure_;
  std::string problem_;
  std::string cvode_message_;
  std::string error_function_;  // the CVODE function that reported the last error

  // Declared last, freed first: CVODE's memory before its solvers, vectors and context.
  ContextHandle context_;
  VectorHandle y_;
  MatrixHandle matrix_;
  LinearSolverHandle linear_solver_;
  NonlinearSolverHandle nonlinear_solver_;
  CvodeHandle memory_;
};

}  // namespace cvode_detail
}  // namespace hysim
