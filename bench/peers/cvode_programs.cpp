// The CVODE programs of standalone.hpp, written the way SUNDIALS's own examples are
// (cvRoberts_dns.c, cvAdvDiff_bnd.c; "User Documentation for CVODE v6.4.1", section 4.4.1, the
// skeleton of a user's main program): a context, an N_Vector, CVodeCreate / CVodeInit /
// CVodeSStolerances / CVodeRootInit, a fixed-point nonlinear solver for Adams or a dense
// linear solver for BDF (a band one for the heat rod, as cvAdvDiff_bnd.c), then CVode in CV_NORMAL mode towards t_end with CVodeSetStopTime.
// At a root the program applies its model's event in plain code and restarts CVODE with
// CVodeReInit, as the guide advises after a discontinuity (section 4.4.2.9, "reinitialization").
// No hysim header is included here.
#include <cvode/cvode.h>
#include <nvector/nvector_serial.h>
#include <sundials/sundials_context.h>
#include <sunlinsol/sunlinsol_band.h>
#include <sunlinsol/sunlinsol_dense.h>
#include <sunmatrix/sunmatrix_band.h>
#include <sunmatrix/sunmatrix_dense.h>
#include <sunnonlinsol/sunnonlinsol_fixedpoint.h>

#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

#include "pwm_logic.hpp"
#include "standalone.hpp"

namespace standalone {
namespace {

void check_flag(int flag, const char* call) {
  if (flag < 0) throw std::runtime_error(std::string(call) + " returned " + std::to_string(flag));
}

template <class T>
T* check_pointer(T* p, const char* call) {
  if (p == nullptr) throw std::runtime_error(std::string(call) + " returned NULL");
  return p;
}

// CVODE's memory for one program, set up as in the examples and freed in reverse order.
class Cvode {
 public:
  Cvode(sunindextype n, const double* y0, CVRhsFn f, int n_roots, CVRootFn g, void* user_data, const Tolerances& tol,
        Method method, sunindextype half_band = -1)
      : t_end_(tol.t_end) {
    check_flag(SUNContext_Create(nullptr, &context_), "SUNContext_Create");
    y_ = check_pointer(N_VNew_Serial(n, context_), "N_VNew_Serial");
    for (sunindextype i = 0; i < n; ++i) NV_Ith_S(y_, i) = y0[i];
    memory_ = check_pointer(CVodeCreate(method == Method::kBdf ? CV_BDF : CV_ADAMS, context_), "CVodeCreate");
    check_flag(CVodeInit(memory_, f, 0.0, y_), "CVodeInit");
    check_flag(CVodeSStolerances(memory_, tol.rtol, tol.atol), "CVodeSStolerances");
    check_flag(CVodeSetUserData(memory_, user_data), "CVodeSetUserData");
    check_flag(CVodeRootInit(memory_, n_roots, g), "CVodeRootInit");
    check_flag(CVodeSetMaxNumSteps(memory_, 100000), "CVodeSetMaxNumSteps");
    check_flag(CVodeSetStopTime(memory_, t_end_), "CVodeSetStopTime");
    if (method == Method::kAdams) {
      nonlinear_ = check_pointer(SUNNonlinSol_FixedPoint(y_, 0, context_), "SUNNonlinSol_FixedPoint");
      check_flag(CVodeSetNonlinearSolver(memory_, nonlinear_), "CVodeSetNonlinearSolver");
    } else if (half_band >= 0) {  // Newton with the band direct solver (cvAdvDiff_bnd.c)
      matrix_ = check_pointer(SUNBandMatrix(n, half_band, half_band, context_), "SUNBandMatrix");
      linear_ = check_pointer(SUNLinSol_Band(y_, matrix_, context_), "SUNLinSol_Band");
      check_flag(CVodeSetLinearSolver(memory_, linear_, matrix_), "CVodeSetLinearSolver");
    } else {  // Newton (CVODE's default nonlinear solver) with the dense direct solver
      matrix_ = check_pointer(SUNDenseMatrix(n, n, context_), "SUNDenseMatrix");
      linear_ = check_pointer(SUNLinSol_Dense(y_, matrix_, context_), "SUNLinSol_Dense");
      check_flag(CVodeSetLinearSolver(memory_, linear_, matrix_), "CVodeSetLinearSolver");
    }
  }
  ~Cvode() {
    N_VDestroy(y_);
    CVodeFree(&memory_);
    if (linear_ != nullptr) SUNLinSolFree(linear_);
    if (matrix_ != nullptr) SUNMatDestroy(matrix_);
    if (nonlinear_ != nullptr) SUNNonlinSolFree(nonlinear_);
    SUNContext_Free(&context_);
  }
  Cvode(const Cvode&) = delete;
  Cvode& operator=(const Cvode&) = delete;

  void set_root_direction(int* direction) { check_flag(CVodeSetRootDirection(memory_, direction), "CVodeSetRootDirection"); }

  // CVode towards t_end; at each root, `event(t, y)` applies the model's event and says whether
  // the state or the field changed, in which case CVODE restarts there. Adds the steps taken.
  template <class OnRoot>
  void integrate(Run& run, OnRoot&& event) {
    double t = 0;
    while (t < t_end_) {
      const int flag = CVode(memory_, t_end_, y_, &t, CV_NORMAL);
      check_flag(flag, "CVode");
      if (flag != CV_ROOT_RETURN) break;
      if (event(t, N_VGetArrayPointer(y_))) {
        add_steps(run);
        check_flag(CVodeReInit(memory_, t, y_), "CVodeReInit");
        check_flag(CVodeSetStopTime(memory_, t_end_), "CVodeSetStopTime");
      }
    }
    add_steps(run);
  }

 private:
  void add_steps(Run& run) {
    long steps = 0;
    check_flag(CVodeGetNumSteps(memory_, &steps), "CVodeGetNumSteps");
    run.steps += steps;
  }

  double t_end_;
  SUNContext context_ = nullptr;
  N_Vector y_ = nullptr;
  void* memory_ = nullptr;
  SUNMatrix matrix_ = nullptr;
  SUNLinearSolver linear_ = nullptr;
  SUNNonlinearSolver nonlinear_ = nullptr;
};

// ---- The PWM servo: g0 = saw - saw_max (the saw's reset), g1 = kp |x| - saw (a pulse ends, or begins in s3).

struct PwmData {
  PwmServo p;
  int mode = pwm::kS1;
  Run* run = nullptr;
};

int pwm_rhs(sunrealtype, N_Vector y, N_Vector ydot, void* user_data) {
  auto* data = static_cast<PwmData*>(user_data);
  ++data->run->rhs_evals;
  const double* Y = N_VGetArrayPointer(y);
  double* dY = N_VGetArrayPointer(ydot);
  dY[pwm::kOmega] = data->p.k_w * pwm::pwm_output(data->mode);
  dY[pwm::kPhi] = Y[pwm::kOmega];
  dY[pwm::kSaw] = 1.0;
  return 0;
}

int pwm_roots(sunrealtype t, N_Vector y, sunrealtype* gout, void* user_data) {
  auto* data = static_cast<PwmData*>(user_data);
  ++data->run->guard_evals;
  const double* Y = N_VGetArrayPointer(y);
  gout[0] = Y[pwm::kSaw] - data->p.saw_max;
  gout[1] = data->p.kp * std::fabs(pwm::control_error(data->p, t, Y)) - Y[pwm::kSaw];
  return 0;
}

// The same program with the root functions hysim's CVODE engine hands to CVODE: one per
// comparison in the mode's guards as the paper writes them (Eq. 9: saw >= saw_max, x >= 0,
// saw -/+ kp x <= 0, kp |x| - saw < 0), four per mode, where the program above folds them into
// two. It measures what CVODE's own rootfinding costs for the model as written.
int pwm_roots_as_written(sunrealtype t, N_Vector y, sunrealtype* gout, void* user_data) {
  auto* data = static_cast<PwmData*>(user_data);
  ++data->run->guard_evals;
  const double* Y = N_VGetArrayPointer(y);
  const double x = pwm::control_error(data->p, t, Y), kp = data->p.kp, saw = Y[pwm::kSaw];
  gout[0] = saw - data->p.saw_max;
  gout[1] = x;
  switch (data->mode) {
    case pwm::kS1: gout[2] = saw + kp * x; gout[3] = kp * std::fabs(x) - saw; break;  // p2, p3
    case pwm::kS2: gout[2] = saw - kp * x; gout[3] = kp * std::fabs(x) - saw; break;  // p1, p3
    default: gout[2] = saw - kp * x; gout[3] = saw + kp * x; break;                    // p1, p2
  }
  return 0;
}

// ---- The drag ball: g = y, falling only.

struct DragData {
  DragBall p;
  Run* run = nullptr;
};

int drag_rhs(sunrealtype, N_Vector y, N_Vector ydot, void* user_data) {
  auto* data = static_cast<DragData*>(user_data);
  ++data->run->rhs_evals;
  NV_Ith_S(ydot, 0) = NV_Ith_S(y, 1);
  NV_Ith_S(ydot, 1) = -data->p.g - data->p.c * NV_Ith_S(y, 1);
  return 0;
}

int drag_roots(sunrealtype, N_Vector y, sunrealtype* gout, void* user_data) {
  ++static_cast<DragData*>(user_data)->run->guard_evals;
  gout[0] = NV_Ith_S(y, 0);
  return 0;
}

// ---- The stiff relay: g = s - the threshold of the current mode.

struct RelayData {
  StiffRelay p;
  bool high = true;
  Run* run = nullptr;
};

int relay_rhs(sunrealtype, N_Vector y, N_Vector ydot, void* user_data) {
  auto* data = static_cast<RelayData*>(user_data);
  ++data->run->rhs_evals;
  const double u = data->high ? data->p.u_high : data->p.u_low;
  NV_Ith_S(ydot, 0) = (u - NV_Ith_S(y, 0)) / data->p.tau;
  NV_Ith_S(ydot, 1) = (NV_Ith_S(y, 0) - NV_Ith_S(y, 1)) / data->p.eps;
  return 0;
}

int relay_roots(sunrealtype, N_Vector y, sunrealtype* gout, void* user_data) {
  auto* data = static_cast<RelayData*>(user_data);
  ++data->run->guard_evals;
  gout[0] = NV_Ith_S(y, 1) - (data->high ? data->p.y_high : data->p.y_low);
  return 0;
}

// ---- The heat rod: the three-point stencil with insulated ends; g = the middle cell - the
// threshold of the current mode.

struct RodData {
  HeatRod p;
  bool heating = true;
  Run* run = nullptr;
};

int rod_rhs(sunrealtype, N_Vector y, N_Vector ydot, void* user_data) {
  auto* data = static_cast<RodData*>(user_data);
  ++data->run->rhs_evals;
  const HeatRod& p = data->p;
  const sunindextype n = static_cast<sunindextype>(p.n);
  const double a = p.D * static_cast<double>(p.n) * static_cast<double>(p.n);
  const double* T = N_VGetArrayPointer(y);
  double* dT = N_VGetArrayPointer(ydot);
  for (sunindextype i = 0; i < n; ++i) {
    const double left = T[i == 0 ? 0 : i - 1], right = T[i + 1 == n ? n - 1 : i + 1];
    dT[i] = a * (left - 2 * T[i] + right) - p.b * (T[i] - p.T_a);
  }
  if (data->heating) {
    for (std::size_t i = 0; i < p.heated; ++i) dT[i] += p.q;
  }
  return 0;
}

int rod_roots(sunrealtype, N_Vector y, sunrealtype* gout, void* user_data) {
  auto* data = static_cast<RodData*>(user_data);
  ++data->run->guard_evals;
  gout[0] = NV_Ith_S(y, static_cast<sunindextype>(data->p.sensor)) - (data->heating ? data->p.T_high : data->p.T_low);
  return 0;
}

// Runs `body` and turns an error into the run's failure.
template <class Body>
Run guarded(Body&& body) {
  Run run;
  run.events.reserve(1 << 16);
  try {
    body(run);
  } catch (const std::exception& e) {
    run.failure = e.what();
  }
  return run;
}

// The PWM program with `n_roots` root functions `roots`.
Run pwm_program(const PwmServo& p, const Tolerances& tol, Method method, int n_roots, CVRootFn roots) {
  return guarded([&](Run& run) {
    const double y0[3] = {p.omega0, p.phi0, 0.0};
    PwmData data{p, pwm::initial_mode(p, y0, run), &run};
    Cvode cvode(3, y0, pwm_rhs, n_roots, roots, &data, tol, method);
    cvode.integrate(run, [&](double t, double* y) { return pwm::apply_events(p, t, y, &data.mode, run); });
  });
}

}  // namespace

Run pwm_servo_cvode(const PwmServo& p, const Tolerances& tol, Method method) {
  return pwm_program(p, tol, method, 2, pwm_roots);
}

Run pwm_servo_cvode_as_written(const PwmServo& p, const Tolerances& tol, Method method) {
  return pwm_program(p, tol, method, 4, pwm_roots_as_written);
}

Run drag_ball_cvode(const DragBall& p, const Tolerances& tol, Method method) {
  return guarded([&](Run& run) {
    DragData data{p, &run};
    const double y0[2] = {p.y0, p.v0};
    Cvode cvode(2, y0, drag_rhs, 1, drag_roots, &data, tol, method);
    int falling = -1;
    cvode.set_root_direction(&falling);
    cvode.integrate(run, [&](double t, double* y) {
      if (!(y[1] < 0)) return false;
      run.events.push_back({t, 0, {y[0], y[1], 0.0}});
      y[1] = -p.e * y[1];
      return true;
    });
  });
}

Run stiff_relay_cvode(const StiffRelay& p, const Tolerances& tol, Method method) {
  return guarded([&](Run& run) {
    RelayData data{p, true, &run};
    const double y0[2] = {p.y0, p.s0};
    Cvode cvode(2, y0, relay_rhs, 1, relay_roots, &data, tol, method);
    cvode.integrate(run, [&](double t, double* y) {
      const bool switches = data.high ? y[1] >= p.y_high : y[1] <= p.y_low;
      if (!switches) return false;
      run.events.push_back({t, data.high ? 0 : 1, {y[0], y[1], 0.0}});
      data.high = !data.high;
      return true;
    });
  });
}

Run heat_rod_cvode(const HeatRod& p, const Tolerances& tol) {
  return guarded([&](Run& run) {
    RodData data{p, true, &run};
    const std::vector<double> y0(p.n, p.T0);
    Cvode cvode(static_cast<sunindextype>(p.n), y0.data(), rod_rhs, 1, rod_roots, &data, tol, Method::kBdf, 1);
    cvode.integrate(run, [&](double t, double* y) {
      const double s = y[p.sensor];
      const bool switches = data.heating ? s >= p.T_high : s <= p.T_low;
      if (!switches) return false;
      run.events.push_back({t, data.heating ? 0 : 1, {s, 0.0, 0.0}});
      data.heating = !data.heating;
      return true;
    });
  });
}

}  // namespace standalone
