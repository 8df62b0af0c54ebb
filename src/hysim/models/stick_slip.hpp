// Stick-slip oscillator: a mass on a spring, dragged by a belt moving at constant speed v_b,
// with Coulomb friction (static coefficient mu_s, kinetic mu_k < mu_s). Sticking is the
// Filippov sliding mode on the surface u = 0 of the relative velocity u = v_b - v (003,
// "Sliding Mode": equivalence of dynamics, Table 1); the engine computes it, the model has
// no stick mode.
//
//   dx/dt = v,   m dv/dt = -k x + F,   u = v_b - v,   N = m g
//   F = mu_k N sign(u)            while slipping (u != 0)
//   F in [-mu_s N, mu_s N]        while sticking (u = 0): the set-valued static law
//
// Modes, F the friction force on the mass:
//   slip_pos    u > 0: the belt outruns the mass, F = +mu_k N
//   slip_neg    u < 0: the mass outruns the belt, F = -mu_k N
//   static_pos  F = +mu_s N, the end of the static set on the u > 0 side
//   static_neg  F = -mu_s N, the end of the static set on the u < 0 side
// Transitions (in the order tried); the atom u carries its exact rate du/dt = -dv/dt:
//   slip_pos   -> static_neg  "u_zero":     u <= 0 && (k x - mu_k N)/m < 0   (du/dt < 0 along f)
//   slip_neg   -> static_pos  "u_zero":     u >= 0 && (k x + mu_k N)/m > 0   (du/dt > 0 along f)
//   static_pos -> slip_pos    "breakaway":  k x - mu_s N >= 0
//   static_pos -> static_neg  "u_zero":     u <= 0
//   static_neg -> slip_neg    "breakaway":  k x + mu_s N <= 0
//   static_neg -> static_pos  "u_zero":     u >= 0
// All resets are the identity.
//
// Why the static modes. On u = 0 the two static fields point into the surface from both
// sides while |k x| < mu_s N (du/dt = (k x - mu_s N)/m < 0 in static_pos, (k x + mu_s N)/m > 0
// in static_neg), so they form the sliding pair. Filippov's convex combination of their
// fields, f_s = (1 - lambda) f_neg + lambda f_pos with lambda = r_neg / (r_neg - r_pos)
// = (k x + mu_s N) / (2 mu_s N) (r the rates of u), gives the friction
// (2 lambda - 1) mu_s N = k x: exactly the static force that keeps u = 0, and lambda lies in
// [0, 1] exactly while |k x| <= mu_s N. So the sliding mode ends exactly when the spring force
// reaches the static limit, with no threshold on |u|. (With the kinetic fields as the sliding
// pair, lambda would leave [0, 1] at |k x| = mu_k N: the wrong law. A field that switches to
// mu_s when |u| is below a threshold makes the departure tangent, du/dt = 0 at k x = mu_s N,
// so the mass would creep with static friction until |u| exceeds the threshold: an error of
// (mu_s - mu_k) N/m times that creeping time in v.) The static modes never govern for a
// positive time: the run enters them only at u = 0, where they are a boundary of the chain or
// one face of the sliding mode, and leaves them for a slip mode the instant k x reaches
// +-mu_s N: the breakaway guard of static_pos (or static_neg), which the engine watches
// during the sliding motion, fires together with lambda reaching 1 (or 0), and the run
// records static_pos -> slip_pos.
//
// Why the slip guards read du/dt. During the sliding motion u is 0 only to rounding (a few
// ulps of v_b, of either sign), and so it is when the breakaway hands the state to slip_pos.
// A guard u <= 0 alone could read that rounding as "the slip has already ended" and make
// slip_pos mythical. The second atom (the slip field drives u across 0, as the bouncing ball's
// "y <= 0 && v < 0") is false there, because du/dt = (k x - mu_k N)/m = (mu_s - mu_k) N/m > 0.
//
// Closed form (reference below), omega = sqrt(k/m):
//   slip with F = s mu_k N (s = sign u): harmonic about x_c = s mu_k N / k,
//     x - x_c = y0 cos(omega tau) + (v0/omega) sin(omega tau), ends at the first tau > 0 with
//     v = v_b (then sticks if |k x| <= mu_s N, else crosses into the other slip mode);
//   stick: v = v_b, x = x_s + v_b tau, ends when k x = mu_s N (v_b > 0).
// The limit cycle (default parameters m = 1, k = 1, g = 9.81, v_b = 0.5, mu_s = 0.6,
// mu_k = 0.4): with Delta = (mu_s - mu_k) N / k = 1.962, the slip starts at x = mu_s N/k = 5.886
// and ends at x = (2 mu_k - mu_s) N / k = 1.962 (symmetry of the harmonic arc about x_c) after
// (2 pi - 2 atan(omega Delta / v_b)) / omega = 3.6412 s; the stick lasts 2 Delta / v_b = 7.848 s.
// From rest (x0 = 0, v0 = 0) the mass first slips for asin(v_b / (omega mu_k N / k)) / omega
// = 0.12776 s, sticks until k x = mu_s N (t = 11.84 s), and then follows the cycle.
#pragma once

#include "hysim/core/model.hpp"
#include "hysim/core/parameters.hpp"
#include "hysim/models/catalog.hpp"

namespace hysim {

template <class S>
Model<S> make_stick_slip(const ParameterValues& values);

// The catalog entry of "stick-slip", with its exact reference (100-digit closed form).
ModelEntry stick_slip_entry();

// Mode indices of the model built above, and the state components.
inline constexpr int kSlipPos = 0;
inline constexpr int kSlipNeg = 1;
inline constexpr int kStaticPos = 2;
inline constexpr int kStaticNeg = 3;
inline constexpr std::size_t kStickX = 0;
inline constexpr std::size_t kStickV = 1;

}  // namespace hysim
