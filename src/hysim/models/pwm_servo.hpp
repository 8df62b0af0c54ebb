// PWM servo drive: 004 ("Modeling and Simulation of Event Systems", 2024), Eqs. (4)-(9).
//
//   d omega/dt = k_w f,   d phi/dt = omega,   d saw/dt = 1          (Eq. 4; saw: Eq. 10)
//   x = u(t) - k omega - phi,  u(t) = u + u_amp sin(u_freq t)        (Eq. 5)
//   f = sign(x) z,  z = 1 if kp |x| >= saw, else 0                    (Eqs. 6-8)
//
// Modes (004, Fig. 1): s1 (f = +1), s2 (f = -1), s3 (f = 0). Transitions, with the paper's
// predicates (Eq. 9) as guards:
//   p1 -> s1:  x >= 0 && saw - kp x <= 0
//   p2 -> s2:  x < 0  && saw + kp x <= 0
//   p3 -> s3:  kp |x| - saw < 0
//   saw_reset: saw - saw_max >= 0, to s1 if x >= 0, to s2 if x < 0, with saw := saw - saw_max
// Every mode tries saw_reset first, then the predicates in the order p1, p2, p3 (those that
// leave it). The sawtooth reset is written saw := saw - saw_max rather than saw := 0: both are
// 0 on the surface saw = saw_max, but the first keeps the sawtooth's phase exact when the
// event is located one-sidedly an ulp before the surface, so that the resets stay at
// t = 0.1 n instead of drifting by an ulp per period.
//
// Parameters (004, section 4): k_w = 100, k = 0.1, kp = 0.1, u = 1, saw_max = 0.1; all states
// 0 at t = 0. The first events are t1 = (sqrt(6) - 2)/10 (s1 -> s3) and t2 = 0.1 (saw_reset).
// The setpoint is constant by default (u_amp = 0): the state then converges to the rounding
// level within ~10 s. The preset `tracking` (u = 0, u_amp = 1, u_freq = 1) follows
// u(t) = sin t instead: one pulse per period (a p3 and a saw reset, 20 events per second),
// with |x| at the resets between 2e-6 and 0.1 over [0, 1000] s. There x = 0 at t = 0, and the
// initial s1 is left at once (p3 at t = 0: in s1 x' = u'(0) - k k_w = -9 < 0).
#pragma once

#include "hysim/core/model.hpp"
#include "hysim/core/parameters.hpp"

namespace hysim {

template <class S>
Model<S> make_pwm_servo(const ParameterValues& values);

// Mode indices of the model built above.
inline constexpr int kPwmS1 = 0;
inline constexpr int kPwmS2 = 1;
inline constexpr int kPwmS3 = 2;

}  // namespace hysim
