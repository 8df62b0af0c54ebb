// Exact reference solution of the PWM servo drive (004, section 3, Eqs. 4-9).
//
// Model (all states 0 at t = 0):
//   d omega/dt = k_w * f,   d phi/dt = omega,   d saw/dt = 1                       (004, Eq. 4)
//   x = u(t) - k*omega - phi,  u(t) = u + u_amp*sin(u_freq*t)                       (004, Eq. 5)
//   f = sign(x) * z(x, t),  z = 1 if kp*|x| >= saw, 0 otherwise                    (004, Eqs. 6-8)
// as a statechart with modes s1 (f = +1), s2 (f = -1), s3 (f = 0) and the predicates
//   p1 (-> s1): x >= 0 && saw - kp*x <= 0
//   p2 (-> s2): x <  0 && saw + kp*x <= 0
//   p3 (-> s3): kp*|x| - saw < 0                                                   (004, Eq. 9)
// plus the sawtooth reset: when saw reaches saw_max, saw := saw - saw_max (= 0 on the surface)
// and the mode becomes s1 if x >= 0, s2 if x < 0. The initial mode is chosen by the same rule
// (saw = 0 at t = 0), so s1 for u = 1.
// Transitions, in tie-break order:
//   s1: p3 -> s3, p2 -> s2, saw_reset -> s1
//   s2: p3 -> s3, p1 -> s1, saw_reset -> s2
//   s3: saw_reset -> s1 | s2, p1 -> s1, p2 -> s2
//
// Citation: "Modeling and Simulation of Event Systems", 2024 preprint (seed 004), section 3,
// Eqs. 4-9. k_w = 100, k = 0.1, kp = 0.1 are its section 4 values, saw_max = 0.1 its section 9
// reset level (g = saw - 0.1); the setpoint u = 1 is this project's choice, as is the moving
// setpoint u(t) = sin t of the preset `tracking` (u = 0, u_amp = 1, u_freq = 1).
//
// Inside a mode the flow is polynomial in tau = t - t_mode_start:
//   omega = omega0 + k_w f tau,  phi = phi0 + omega0 tau + k_w f tau^2 / 2,  saw = saw0 + tau,
// so x, saw - kp*x and saw + kp*x are quadratics in tau (linear in s3). Every guard is a
// boolean function of their signs, hence constant between consecutive roots. A guard fires at
// the left end of the first root-to-root interval on which it holds (the limit from inside the
// mode: the first instant the guard function reaches its threshold moving into the firing
// side); the saw reset fires at tau = saw_max - saw0 if no guard fires before. Roots use the
// cancellation-free form q = -(b + sign(b) sqrt(b^2 - 4ac)) / 2, roots q/a and c/q, and all
// arithmetic is in 100-digit binary floating point (the state converges: |x| ~ 1e-30 at
// t = 20 s). Tangential touches (a double root) are not events.
//
// With a moving setpoint (u_amp != 0) x gains S(tau) = u_amp sin(u_freq (t0 + tau)), and the
// three functions g are a quadratic plus c S(tau), c = 1, -kp, +kp: no longer polynomials.
// Their roots are found in order by rigorous exclusion from a point a where g(a) != 0:
// |S''| <= |u_amp| u_freq^2 =: 2 M, so with the quadratic part (tau^2 coefficient a2) exact
// and s = sign(g(a)),
//   s g(a + h) >= |g(a)| + s g'(a) h + (s a2 - |c| M) h^2,
// and g has no root before the first positive root h* of that quadratic. The walk steps by
// the smallest h* of the three functions (one sine and cosine per point, shared); near a
// simple root this is a one-sided Newton iteration converging quadratically from the pre-root
// side. When h* < 1e-95 max(1, t) the root is reached; the signs 1e-92 max(1, t) past it
// confirm the crossing (the same sign: a tangential touch, not an event, and the walk goes
// on). The signs there are the next interval's, on which the guards are decided as above.
// S(tau) - S(0) = u_amp (cos(w t0) sin(w tau) - 2 sin(w t0) sin^2(w tau / 2)), w = u_freq,
// keeps the functions accurate near tau = 0. About 5 points per event: the tracking preset's
// 20,000 events over [0, 1000] s take ~6 s. The u_amp = 0 path is the quadratic one above.
//
// A guard that would hold immediately on entering a mode (a zero-length mode: chattering /
// sliding) throws hysim::SimulationError instead of producing events at the same time. The
// one exception is the run's initial mode: then the event is at t = 0 (with u = 0 and
// u_amp != 0, x = 0 at t = 0 and s1 is left at once, p3: in s1 x' = u'(0) - k k_w < 0).
#pragma once

#include <string>
#include <vector>

#include <boost/multiprecision/cpp_bin_float.hpp>

namespace hysim::reference {

using Real = boost::multiprecision::cpp_bin_float_100;

// Built from decimal strings: "0.1" is the 100-digit value nearest 1/10, not a widened double.
struct PwmServoParameters {
  Real k_w{"100"};
  Real k{"0.1"};
  Real kp{"0.1"};
  Real u{"1"};
  Real u_amp{"0"};   // setpoint u(t) = u + u_amp sin(u_freq t)
  Real u_freq{"1"};
  Real saw_max{"0.1"};
};

// One event. Mode indices: 0 = s1, 1 = s2, 2 = s3.
struct PwmServoExactEvent {
  Real t;
  int from = 0;
  int to = 0;
  std::string guard;  // "p1", "p2", "p3" or "saw_reset"
  Real omega, phi, saw;  // state at the event, pre-jump (saw = saw_max exactly for saw_reset)
  Real saw_after;        // saw after the jump: 0 for saw_reset, = saw otherwise
};

// Every event with t in (0, t_end], in time order (and one at t = 0 when the initial mode has
// zero length); an event within 1e-90 * max(1, |t_end|) past t_end counts as at t_end
// (rounding noise), so t_end = 5 includes the reset at t = 5. Throws hysim::InvalidArgument
// for saw_max <= 0 or a non-finite t_end, u_amp or u_freq, and hysim::SimulationError for a
// zero-length mode after t = 0 or more than 10^7 events.
std::vector<PwmServoExactEvent> pwm_servo_exact_events(const PwmServoParameters& p,
                                                       const Real& t_end);

// "s1", "s2", "s3" for 0, 1, 2; throws hysim::InvalidArgument otherwise.
const char* pwm_servo_mode_name(int mode);

// x = u - k*omega - phi (004, Eq. 5) for a constant setpoint; throws hysim::InvalidArgument
// when u_amp != 0.
Real pwm_servo_x(const PwmServoParameters& p, const Real& omega, const Real& phi);
// x = u + u_amp*sin(u_freq*t) - k*omega - phi at time t.
Real pwm_servo_x(const PwmServoParameters& p, const Real& t, const Real& omega, const Real& phi);

}  // namespace hysim::reference
