// A ball (any body of revolution) on an inclined plane with Coulomb friction at the contact
// point: 001 (Shpakov 2016), section "Физическая модель движения тела вращения по наклонной
// плоскости", Eqs. (6)-(11) and the rule table of its Fig. 1. Rolling without slipping is
// the Filippov sliding mode on the surface v_s = 0 of the slip velocity (003, "Sliding Mode":
// equivalence of dynamics); the model has no rolling mode, the engine computes it.
//
// Sign conventions (001's, read from its rules and from its description of Fig. 3):
//   * s is the position of the centre along the slope, positive along (cos phi, sin phi)
//     in the vertical plane (rules 12-15: Vx = V cos phi, Vy = V sin phi, y upwards); V = ds/dt.
//     With phi = -20 deg the positive direction points down the slope.
//   * F = P sin phi is the rolling force along s (Eq. 6's "скатывающая сила"), with P = -m g
//     the weight as a vertical component; F = -m g sin phi > 0 for phi < 0. N = m g cos phi is
//     the normal force.
//   * V_r = omega R is the velocity of the contact point in the rotation about the centre
//     (rule 8), positive along s. The slip velocity is the sum v_s = V + omega R (rules 16-18
//     and the text: "скорость скольжения равна сумме ..."); rolling is V = -omega R ("equal in
//     magnitude and opposite in sign", the description of Fig. 3).
//   * F_f, the friction force at the contact point, opposes the slip (rule 3):
//     F_f = -k N sign(v_s) while slipping.
//
// Equations (001, Eqs. 6-7 with the signs above):
//   ds/dt = V,   m dV/dt = F + F_f,   J0 d omega/dt = F_f R,
//   dw/dt = -F_f v_s = k N |v_s|     (w: the work done against friction, >= 0)
// so that the energy m V^2/2 + J0 omega^2/2 + m g s sin phi + w is constant: d/dt of the
// kinetic energy is F V + F_f v_s, of the potential energy -F V.
//
// Modes:
//   slip_pos   v_s > 0: F_f = -k N
//   slip_neg   v_s < 0: F_f = +k N
// Transitions, both named "vs_zero"; the atom v_s carries its exact rate
// dv_s/dt = f[V] + R f[omega] along a field value f:
//   slip_pos -> slip_neg:  v_s <= 0
//   slip_neg -> slip_pos:  v_s >= 0
// All resets are the identity.
//
// Rolling. Along slip_pos, dv_s/dt = r_pos = (F - k N)/m - k N R^2/J0; along slip_neg,
// r_neg = (F + k N)/m + k N R^2/J0 > r_pos. When r_pos < 0 < r_neg, i.e.
// |F| < k N (1 + m R^2/J0) (001's predicate (10) negated), both fields point into v_s = 0:
// the chain slip_pos -> slip_neg -> slip_pos is a cycle of boundary links and the ball rolls
// on the surface with the equivalent field (1 - lambda) f_pos + lambda f_neg,
// lambda = r_pos / (r_pos - r_neg). Its friction is (1 - 2 lambda)(-k N) =
// -F / (1 + m R^2/J0), 001's F*_f of Eq. (9) (F/3.5 for J0 = 0.4 m R^2), and its
// acceleration F / (m (1 + J0/(m R^2))) = -g sin phi / (1 + J0/(m R^2)). Otherwise the slip
// reverses at v_s = 0 (an interior transition) and never ends.
//
// Parameters (001, the experiment of Figs. 2-3): phi = -20 deg, k = 0.3, m = 1, R = 1.5,
// J0 = 0.4 m R^2 (parameter j = J0/(m R^2) = 0.4), V0 = 0, omega0 = 20; g = 9.81, s0 = 0.
// Then F = 3.3552, k N = 2.7655; the ball starts with v_s = 30 > 0 (the contact point slides
// down the slope, friction acts up it: "V_вр положительна, сила трения отрицательна"),
// V grows slowly at 0.5897 m/s^2 while omega R falls at 6.9138 m/s^2 through 0
// (t = 4.339 s) to -V; the slip ends at t* = 30 / 6.3241 = 4.7438 s, after which the ball
// rolls at 2.3966 m/s^2 with the friction F/3.5 = 0.9586 N up the slope.
//
// Closed form (the reference): while slipping with F_f = -sigma k N (sigma = sign v_s), V and
// omega are linear in t and v_s(t) = v_s0 + r t; the slip ends at t* = -v_s0 / r when r has
// the opposite sign of v_s0. s is quadratic, w = k N |v_s0| t* / 2 at the end.
#pragma once

#include <cstddef>

#include "hysim/core/model.hpp"
#include "hysim/core/parameters.hpp"
#include "hysim/models/catalog.hpp"

namespace hysim {

template <class S>
Model<S> make_ball_incline(const ParameterValues& values);

// The catalog entry of "ball-incline", with its exact reference (100-digit closed form).
ModelEntry ball_incline_entry();

// Mode indices of the model built above, and the state components.
inline constexpr int kBallSlipPos = 0;
inline constexpr int kBallSlipNeg = 1;
inline constexpr std::size_t kBallS = 0;      // position along the slope [m]
inline constexpr std::size_t kBallV = 1;      // velocity of the centre [m/s]
inline constexpr std::size_t kBallOmega = 2;  // angular velocity [rad/s]; omega R: contact point
inline constexpr std::size_t kBallW = 3;      // work done against friction [J]

}  // namespace hysim
