// Cam follower: a follower (pushing rod) of mass m pressed by a preloaded spring onto a
// rotating eccentric cam (003, Fig. 1; its sliding mode Fig. 10, its bounces Fig. 11).
//
// The cam is a circular disc of eccentricity e turning at n rev/s (Omega = 2 pi n) under a
// flat-faced follower, whose lift is exactly harmonic: the cam surface under the follower is
// at c(t) = e sin(Omega t). The follower's position y (from the cam's mid-stroke) obeys
//   m d^2y/dt^2 = -(F0 + k y) + N,
// F0 the spring's preload at y = 0, k its stiffness, N >= 0 the cam's reaction, N = 0 when the
// follower is off the cam. Riding the cam (y = c) takes N = m c'' + F0 + k c =
// F0 - (m Omega^2 - k) e sin(Omega t), which turns negative when sin(Omega t) exceeds
// rho = F0 / ((m Omega^2 - k) e): the follower separates there.
//
// State, relative to the cam (so that the gap near 0 keeps full relative precision, as the
// bouncing ball's height does):
//   z = y - c(t)   the gap, >= 0
//   u = y' - c'(t) the relative velocity; 003's sliding surface v_rod = v_cam is u = 0
// Fields, with N(t, z) = F0 + k (z + c(t)) + m c''(t), the reaction that riding would take:
//   free      N = 0:  z' = u,  u' = -(F0 + k (z + c))/m - c'' = -N(t, z)/m
//   contact   the cam drives the follower back:  z' = u,  u' = N/m (N >= 0), 2|N|/m (N < 0)
//   impact    algebraic (a pinnacle): no field
// Transitions, in the order tried; the atoms z and u carry their exact rates f[z], f[u]:
//   free    -> contact  "touch":    u <= 0 && z <= 0
//   contact -> impact   "strike":   u < 0
//   contact -> free     "lift":     u > 0
//   impact  -> free     "rebound":  committed && u > 0
//   impact  -> contact  "stay":     committed
// The reset of strike is Newton's rule (003, Eq. 2, relative to the moving cam), with the
// follower put on the cam (the location leaves it a rounding-level gap on the pre-event side):
//   z+ = 0,  u+ = -eps u,   i.e. v+ = v_cam - eps (v - v_cam).
// The atom "committed" has the jump form +1 when the a priori state equals the state and -1
// otherwise: it fails across the jump (x, x+), so the impact is not mythical, and holds on
// (x+, x+) once the impulse is committed (003: a pinnacle is departed as soon as the a priori
// state is updated). Its continuous form is +1 (an algebraic mode never evolves).
//
// Why "contact" has this field. A follower on the cam is a Filippov sliding mode on
// u = 0 (003, Fig. 10 and its text: as the step tends to 0 the rod moves along v_rod = v_cam).
// The fields on either side of that surface are free (u' = -N/m: into the cam while the spring
// wins, N > 0) and contact (u' = +N/m: the cam drives an approaching follower back to its own
// velocity); together u' = -(N/m) sign(u), the symmetric relay of sliding-mode control. Both
// point into u = 0 while N > 0, so the chain contact -> free -> contact is a cycle of boundary
// links across the atom u, and the engine slides with
//   lambda = r_contact / (r_contact - r_free) = 1/2 exactly,  u' = 0,  reaction N,
// i.e. the follower rides the cam: z = u = 0 stay exact (the two rates are the same number
// with opposite signs, so lambda and u' have no rounding error). The sliding mode ends when
// free's field stops pointing into the cam, at N = 0: the separation, an event located like
// any other, after which the run goes on in free. Past it contact only has to drive u up,
// toward free; its u' = 2|N|/m (twice free's) keeps the equivalent field exactly u' = 0 there
// too (lambda = 2), so that the dense output on which the engine locates the end of sliding
// has no kink at N = 0. Contact is never an interior mode with N < 0. With sliding handling
// off (option sliding = false) the engine shows the chattering instead: one step of length h
// in contact raises u by h N/m, the follower flies for three steps and strikes the cam again,
// an inelastic collision that makes the velocities equal: 003's description of its Fig. 10,
// left. (docs/cam-follower.md discusses the alternatives.)
//
// A landing with u < 0 fires touch; contact cannot hold an approaching follower (strike fires
// on (x, x+)), so contact is mythical and the chain goes on to impact with the pre-impact
// state (003, Eq. 3). After the impulse: eps > 0 gives u+ > 0, rebound: back to free
// (Fig. 11's bounces); eps = 0 gives u+ = 0, stay: contact, then the sliding cycle.
// Bounces with eps > 0 accumulate (Zeno); the continuation (Model::zeno) is riding the cam:
// contact with z = u = 0, whose chain then slides.
//
// Parameters (defaults, chosen for this project: 003 gives no numbers): m = 1 kg, k = 10 N/m,
// F0 = 2.5 N, e = 0.1 m, n = 1 rev/s, eps = 0; the follower starts on the cam at
// t = 0 (z0 = u0 = 0). Then rho = 0.8481: the follower separates at Omega t = 58.0 deg
// (32 deg before the top of the stroke), flies over the top and lands at 186.0 deg
// (t = 0.5165 s) with u = -0.186 m/s, where N = 2.81 N > 0; with eps = 0 it then rides until
// the next separation, one revolution later. With eps = 0.6 (preset fig11) it bounces, with
// flights of 0.069 s, 0.036 s, ... shrinking about geometrically, and rides again before the
// next separation.
//
// Closed form (the reference): riding, the separations are at Omega t = asin(rho) + 2 pi j;
// a flight is harmonic about -F0/k, y = -F0/k + A cos(w tau) + B sin(w tau), w = sqrt(k/m);
// it lands at the first root of y(tau) - c(t0 + tau), found in 100-digit arithmetic.
#pragma once

#include <cstddef>

#include "hysim/core/model.hpp"
#include "hysim/core/parameters.hpp"
#include "hysim/models/catalog.hpp"

namespace hysim {

template <class S>
Model<S> make_cam_follower(const ParameterValues& values);

// The catalog entry of "cam-follower", with its reference (100-digit closed-form flights).
ModelEntry cam_follower_entry();

// Mode indices of the model built above, and the state components.
inline constexpr int kCamFree = 0;
inline constexpr int kCamContact = 1;
inline constexpr int kCamImpact = 2;
inline constexpr std::size_t kCamGap = 0;  // z = y - c(t) [m]
inline constexpr std::size_t kCamU = 1;    // u = dy/dt - dc/dt [m/s]

}  // namespace hysim
