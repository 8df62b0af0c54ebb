// The peers as their own users write them, for bench/pwm_servo_bench and
// bench/workprecision_bench: programs that include no hysim header and know nothing of its
// model classes. CVODE is called as SUNDIALS's examples call it (cvRoberts_dns, cvAdvDiff_bnd:
// plain C functions for the right-hand side and the root functions, user data through a void
// pointer, CVode in CV_NORMAL mode towards the end with a stop time, CVodeReInit after each
// event); odeint as its documentation's examples use it (a std::array state, a system functor,
// make_dense_output around runge_kutta_dopri5, do_step and calc_state), with a bisection on
// the dense output as a user adds it for events. Each program states its model's switching
// logic directly in plain code (the same modes, guards and resets as hysim's catalog model,
// read literally), so the only thing shared with hysim is the mathematics.
#pragma once

#include <array>
#include <cstddef>
#include <string>
#include <vector>

namespace standalone {

// One event: its time, the guard that fired (an index into the model's kGuards) and the state
// there before the reset (unused entries are 0).
struct Event {
  double t = 0;
  int guard = -1;
  std::array<double, 3> x{};
};

// A run: its events and the counts its user can read (steps of the solver, calls of the
// right-hand side and of the root or guard functions). `failure` is empty on success.
struct Run {
  std::vector<Event> events;
  long long steps = 0, rhs_evals = 0, guard_evals = 0;
  std::string failure;
};

struct Tolerances {
  double t_end = 1, rtol = 1e-10, atol = 1e-12;
};

// CVODE's configurations a user tries: Adams-Moulton with fixed-point iteration, Adams-Moulton
// with Newton iteration and the dense direct solver, BDF with Newton and the dense solver.
enum class Method { kAdams, kBdf, kAdamsNewton };

// The PWM servo drive (Modeling and Simulation of Event Systems, 2024, Eqs. (4)-(9)): modes
// s1, s2, s3 with f = +1, -1, 0; x = u + u_amp sin(u_freq t) - k omega - phi.
struct PwmServo {
  double k_w = 100, k = 0.1, kp = 0.1, u = 1, u_amp = 0, u_freq = 1, saw_max = 0.1, omega0 = 0, phi0 = 0;
};
inline constexpr const char* kPwmGuards[] = {"saw_reset", "p1", "p2", "p3"};
Run pwm_servo_cvode(const PwmServo& p, const Tolerances& tol, Method method);
// The CVODE program with one root function per comparison of the model's guards (four per
// mode), as hysim's CVODE engine gives them to CVODE, instead of the two a user folds them into.
Run pwm_servo_cvode_as_written(const PwmServo& p, const Tolerances& tol, Method method);
Run pwm_servo_odeint(const PwmServo& p, const Tolerances& tol);

// A ball with linear drag bouncing by Newton's law: y' = v, v' = -g - c v; at y = 0 falling,
// v := -e v.
struct DragBall {
  double g = 9.81, c = 0.5, e = 0.8, y0 = 10, v0 = 0;
};
inline constexpr const char* kDragBallGuards[] = {"impact"};
Run drag_ball_cvode(const DragBall& p, const Tolerances& tol, Method method);

// A relay with hysteresis, slow plant and fast sensor: y' = (u - y)/tau, s' = (y - s)/eps;
// high -> low when s >= y_high, low -> high when s <= y_low.
struct StiffRelay {
  double tau = 1, eps = 1e-4, u_high = 1, u_low = -1, y_high = 0.2, y_low = -0.2, y0 = 0, s0 = 0;
};
inline constexpr const char* kStiffRelayGuards[] = {"switch_down", "switch_up"};
Run stiff_relay_cvode(const StiffRelay& p, const Tolerances& tol, Method method);

// A heat rod of n cells with a thermostat (bench/heat_rod.hpp): T_i' = D n^2 (T_{i-1} - 2 T_i +
// T_{i+1}) - b (T_i - T_a), insulated ends, + q in the first `heated` cells while heating;
// heating -> idle when T_sensor >= T_high, idle -> heating when T_sensor <= T_low. BDF with the
// band solver (half-bandwidths 1), as cvAdvDiff_bnd.c solves its stencil.
struct HeatRod {
  std::size_t n = 500, heated = 50, sensor = 250;
  double D = 0.01, b = 0.1, q = 5, T_a = 20, T0 = 20, T_low = 21, T_high = 22;
};
inline constexpr const char* kHeatRodGuards[] = {"off", "on"};
Run heat_rod_cvode(const HeatRod& p, const Tolerances& tol);

}  // namespace standalone
