// The PWM servo's switching logic as a user states it in plain code (Modeling and Simulation
// of Event Systems, 2024, Eqs. (4)-(9)), shared by the standalone CVODE and odeint programs.
#pragma once

#include <cmath>

#include "standalone.hpp"

namespace standalone::pwm {

enum Mode { kS1, kS2, kS3 };                   // f = +1, -1, 0
enum Guard { kSawReset, kP1, kP2, kP3 };       // the order of kPwmGuards
enum State { kOmega, kPhi, kSaw };

inline double pwm_output(int mode) { return mode == kS1 ? 1.0 : (mode == kS2 ? -1.0 : 0.0); }

// x = u(t) - k omega - phi, the control error (Eq. 5) with u(t) = u + u_amp sin(u_freq t).
inline double control_error(const PwmServo& p, double t, const double* y) {
  return p.u + p.u_amp * std::sin(p.u_freq * t) - p.k * y[kOmega] - y[kPhi];
}

// The guard of `mode` that holds at (t, y), in the model's order, with the mode it leads to;
// -1 if none holds. The saw is compared with kp |x| (Eq. 9).
inline int fired(const PwmServo& p, double t, const double* y, int mode, int* to) {
  const double x = control_error(p, t, y), saw = y[kSaw];
  if (saw >= p.saw_max) {
    *to = x >= 0 ? kS1 : kS2;
    return kSawReset;
  }
  const bool p1 = x >= 0 && saw - p.kp * x <= 0, p2 = x < 0 && saw + p.kp * x <= 0;
  const bool p3 = p.kp * std::fabs(x) - saw < 0;
  if (mode != kS1 && p1) return *to = kS1, kP1;
  if (mode != kS2 && p2) return *to = kS2, kP2;
  if (mode != kS3 && p3) return *to = kS3, kP3;
  return -1;
}

// The saw reset, by whole periods.
inline void reset(const PwmServo& p, int guard, double* y) {
  if (guard == kSawReset) y[kSaw] -= p.saw_max * std::fmax(1.0, std::floor(y[kSaw] / p.saw_max));
}

// Applies the guards that hold at (t, y) one after another (at most 16); records the first as
// the event. Returns whether anything fired.
inline bool apply_events(const PwmServo& p, double t, double* y, int* mode, Run& run) {
  int to = -1;
  ++run.guard_evals;
  int guard = fired(p, t, y, *mode, &to);
  if (guard < 0) return false;
  run.events.push_back({t, guard, {y[0], y[1], y[2]}});
  for (int chain = 0; guard >= 0 && chain < 16; ++chain) {
    reset(p, guard, y);
    *mode = to;
    ++run.guard_evals;
    guard = fired(p, t, y, *mode, &to);
  }
  return true;
}

// The mode at t0. The drive starts in s1, but a pulse of zero width (kp |x| <= saw, as at rest
// with x = 0) ends at once: the program switches to s3 there and records it, as hysim records
// its event at t0. (CVODE does not report a root function that is exactly 0 at t0: it starts
// looking for roots only where the function has become nonzero, so without this check the
// program would stay in s1.)
inline int initial_mode(const PwmServo& p, const double* y, Run& run) {
  if (p.kp * std::fabs(control_error(p, 0.0, y)) > y[kSaw]) return kS1;
  run.events.push_back({0.0, kP3, {y[0], y[1], y[2]}});
  return kS3;
}

}  // namespace standalone::pwm
