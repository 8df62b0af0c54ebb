// The falling rod of 003 (section "An Illustration: The Falling Rod", Figs. 5-7): a rigid
// rod dropped onto a floor with Coulomb friction. At the impact the stuck mode a1 is
// mythical (003's own example of a mythical mode); in Fig. 7 the sliding mode a2 is a
// boundary and the rod lifts off again.
//
// Bodies and coordinates. The centre C = (x, y), the angle theta of the rod against the
// floor, the contact end A = C + r with r = l (cos theta, sin theta) (l < 0 in 003's
// presets: A is the lower-left end), the far end B = C - r. State
//   (x, y, theta, vx, vy, omega),  mass m, moment of inertia J about C, gravity g.
// With s = sin theta, c = cos theta:
//   r_perp = l (-s, c)                     v_A = v + omega r_perp,  v_B = v - omega r_perp
//   W = I/m + r_perp r_perp^T / J          inverse effective mass at A:
//       W_xx = 1/m + l^2 s^2/J,  W_xy = W_yx = -l^2 s c/J,  W_yy = 1/m + l^2 c^2/J,
//       det W = 1/m^2 + l^2/(m J) > 0
// A force F at A:   m a_C = F - m g e_y,  J alpha = r_perp . F = l c F_y - l s F_x, so
//   a_A = a_C + alpha r_perp - omega^2 r = W F - g e_y - omega^2 r.                  (R1)
// An impulse P at A: m dv = P, J domega = r_perp . P, so dv_A = W P.                 (R2)
// Energy E = m |v|^2/2 + J omega^2/2 + m g y; along any mode dE/dt = F . v_A.        (R3)
//
// Modes (003, Fig. 5):
//   a0  free flight: F = 0.
//   a1  stuck, A pinned: a_A = 0; by (R1) the 2x2 system W F = (omega^2 l c, g + omega^2 l s).
//   a2  sliding, y_A = 0, Coulomb: F = F_n (-mu sigma, 1), sigma = sign(v_Ax) (when v_Ax = 0
//       exactly: the direction the rod slips from rest, -sign of a1's F_x); a_Ay = 0 gives
//       F_n = (g + omega^2 l s) / (W_yy - mu sigma W_yx).
//       (A denominator <= 0 would be Painleve's paradox; it is positive in 003's presets.)
//   flat     the rod lies on the floor at rest (zero field): the run ends there. Entered from
//            a1 or a2 when theta reaches 0, where B touches the floor too.
//   far_end  the far end B reaches the floor in flight: contact at B is outside the model
//            (003 models contact at A only); the run rests there (zero field, state kept).
//
// Resets (impulses at A, computed from the a priori state x: invariance of state):
//   into a1 (contact): perfectly inelastic, v_A+ = 0: by (R2) P = -W^{-1} v_A.
//   into a2 (slip): v_Ay+ = 0 with P = P_n (mu s, 1), s = sign of the a1 impulse's P_x
//            (friction opposes the slip): P_n = -v_Ay / (W_yy + mu s W_yx). The contact is
//            unilateral: with v_Ay >= 0 (no approach; from a stuck state v_Ay is the
//            integrator's drift of the constraint) the reset is the identity.
//   The constraint velocities are then set exactly (vx+ = l s omega+, vy+ = -l c omega+),
//   so that v_A+ evaluates to exactly 0 and an atom on v_Ay reads 0, not rounding noise.
//   into a1 (stick): the identity (below).  into flat: v = 0, omega = 0.
//
// Guards, in declaration order (the chain of 003, Eq. 3 reads an atom's jump form on the
// tentative jump (x, x+) and on (x+, x+), its continuous form e(t, x) otherwise):
//   a0 -> a1  contact   y_A <= 0 && v_Ay < 0                (exact rates)
//   a0 -> far_end end_B  y_B <= 0 && v_By < 0               (exact rates)
//   a1 -> a2  slip      |F_x| - mu F_n > 0   jump form |P_x| - mu P_y
//   a1 -> a0  lift      F_n < 0              jump form P_y
//   a1 -> flat lie_flat theta <= 0
//   a2 -> a0  lift      F_n < 0              jump form P_y (> 0 at an impact, 0 on (x+, x+))
//   a2 -> a1  stick     |v_Ax| - v_th < 0 (jump form: +v_th) && mu F1_n - |F1_x| >= 0
//   a2 -> flat lie_flat theta <= 0
// with P = m (v+ - v) the impulse of the tentative jump x -> x+, F the contact force of the
// mode's own dynamics and F1 that of a1. So at an impact a1 is mythical when its impulse
// leaves the friction cone, and a2, entered from the original x, is a boundary when its
// normal force is negative at x+ (Fig. 7).
//
// The stick guard: three choices beyond 003's threshold |v_Ax| < v_th (003 does not say how
// its simulator avoids the loop below):
//  * it also asks a1's force balance to hold (mu F1_n >= |F1_x|): a slip that reverses where
//    a1 cannot hold the rod (Fig. 6 at t = 0.53 s, and every mu = 0 run) passes through 0 in
//    a2, friction reversing with it (Coulomb), instead of looping a2 -> a1 -> a2 at one t;
//  * its reset is the identity: a slip below v_th counts as stopped, and a1 (a_A = 0) keeps
//    it as a creep of A slower than v_th. A stuck impulse of size m v_th would have P_y ~ 0,
//    never lie in the friction cone, and make every stick mythical;
//  * across a jump its slip atom reads +v_th (never slow): a stick is decided on the state a
//    mode reaches. An impact that leaves a slip below v_th with a1's force in the cone thus
//    shows a1 mythical, a2 boundary, a1 interior (mu = 0.046 in the test).
//
// Parameters (003, captions of Figs. 6 and 7; m, J, g fixed by hysim's specification): m = 1 kg, J = 0.1 kg m^2
// (fixed: with a uniform rod's J = m l^2/3 the outcomes of Figs. 6 and 7 swap), g = 9.81,
// presets fig6 (mu = 0.004, v_th = 0.0015, theta0 = 0.862, l = -0.1, y0 = 0.23) and fig7
// (mu = 0.5, l = -10, y0 = 23), all velocities 0. The first impact is at
//   t1 = sqrt(2 (y0 + l sin theta0) / g)  (y_A is a parabola in a0),
// 0.177 s for fig6 and 1.772 s for fig7 (run fig7 with --t-end 3: the default t_end is 1 s).
#pragma once

#include <cmath>

#include "hysim/core/model.hpp"
#include "hysim/core/parameters.hpp"

namespace hysim {

struct ModelEntry;

// State components and modes of the falling rod.
enum FallingRodIndex : std::size_t { kRodX = 0, kRodY, kRodTheta, kRodVx, kRodVy, kRodOmega, kRodStateSize };
enum FallingRodMode : int { kRodFree = 0, kRodStuck, kRodSliding, kRodFlat, kRodFarEnd };

// The rod's mechanics in closed form (equations in the header comment), shared by the model
// and its test.
template <class S>
struct Rod {
  S m, J, g, mu, v_th, l;

  struct Vec {
    S x, y;
  };
  // W = I/m + r_perp r_perp^T / J at angle theta.
  struct Mobility {
    S xx, xy, yy;
    S det() const { return xx * yy - xy * xy; }
    // W^{-1} b (2x2 solve by Cramer's rule).
    Vec solve(const Vec& b) const { return {(yy * b.x - xy * b.y) / det(), (xx * b.y - xy * b.x) / det()}; }
  };

  // l sin theta and l cos theta: the components of r, computed once so that the resets and
  // the atoms use the same rounded products.
  S ls(const S* q) const { using std::sin; return l * sin(q[kRodTheta]); }
  S lc(const S* q) const { using std::cos; return l * cos(q[kRodTheta]); }

  Vec contact_point(const S* q) const { return {q[kRodX] + lc(q), q[kRodY] + ls(q)}; }
  Vec contact_velocity(const S* q) const { return {q[kRodVx] - ls(q) * q[kRodOmega], q[kRodVy] + lc(q) * q[kRodOmega]}; }
  Vec far_end_point(const S* q) const { return {q[kRodX] - lc(q), q[kRodY] - ls(q)}; }
  Vec far_end_velocity(const S* q) const { return {q[kRodVx] + ls(q) * q[kRodOmega], q[kRodVy] - lc(q) * q[kRodOmega]}; }

  Mobility mobility(const S* q) const {
    const S a = ls(q), b = lc(q);
    return {1 / m + a * a / J, -a * b / J, 1 / m + b * b / J};
  }

  // a1: the contact force that keeps A pinned, W F = (omega^2 l c, g + omega^2 l s).
  Vec stuck_force(const S* q) const {
    const S w2 = q[kRodOmega] * q[kRodOmega];
    return mobility(q).solve({w2 * lc(q), g + w2 * ls(q)});
  }

  // a2: sigma = sign(v_Ax); at v_Ax = 0 the direction a1's force cannot hold, -sign(F1_x).
  S slip_direction(const S* q) const {
    const S v = contact_velocity(q).x;
    if (v > 0) return S(1);
    if (v < 0) return S(-1);
    const S f = stuck_force(q).x;
    return f > 0 ? S(-1) : (f < 0 ? S(1) : S(0));
  }

  // a2: F = F_n (-mu sigma, 1) with a_Ay = 0: F_n = (g + omega^2 l s) / (W_yy - mu sigma W_yx).
  Vec sliding_force(const S* q) const {
    const Mobility w = mobility(q);
    const S sigma = slip_direction(q);
    const S normal = (g + q[kRodOmega] * q[kRodOmega] * ls(q)) / (w.yy - mu * sigma * w.xy);
    return {-mu * sigma * normal, normal};
  }

  // Into a1: P = -W^{-1} v_A.
  Vec stuck_impulse(const S* q) const {
    const Vec v = contact_velocity(q);
    const Vec p = mobility(q).solve(v);
    return {-p.x, -p.y};
  }

  // Into a2: P = P_n (mu s, 1), P_n = -v_Ay / (W_yy + mu s W_yx), s = sign of the a1 impulse's P_x.
  Vec sliding_impulse(const S* q) const {
    const S px = stuck_impulse(q).x;
    const S s = px > 0 ? S(1) : (px < 0 ? S(-1) : S(0));
    const Mobility w = mobility(q);
    const S normal = -contact_velocity(q).y / (w.yy + mu * s * w.xy);
    return {mu * s * normal, normal};
  }

  // --- rates along a field value f (dq/dt = f) -------------------------------------------
  // Written as the model language derives them, by forward-mode differentiation
  // (src/hysim/lang/expr.cpp, Graph::rate), so that models/falling-rod.hym is this model's
  // twin to the last bit: (u v)' = u' v + u v', (u/v)' = u'/v - (u/v) v'/v, sin' = cos theta',
  // cos' = -(sin theta'), |u|' = sign(u) u', constants and sign() have tangent 0.
  static S sign(const S& v) { return v > 0 ? S(1) : (v < 0 ? S(-1) : S(0)); }
  // d/dt (l sin theta) and d/dt (l cos theta).
  S ls_rate(const S* q, const S* f) const { using std::cos; return l * (cos(q[kRodTheta]) * f[kRodTheta]); }
  S lc_rate(const S* q, const S* f) const { using std::sin; return l * -(sin(q[kRodTheta]) * f[kRodTheta]); }
  // d/dt of v_A = (vx - l s omega, vy + l c omega).
  Vec contact_velocity_rate(const S* q, const S* f) const {
    return {f[kRodVx] - (ls_rate(q, f) * q[kRodOmega] + ls(q) * f[kRodOmega]),
            f[kRodVy] + (lc_rate(q, f) * q[kRodOmega] + lc(q) * f[kRodOmega])};
  }
  // d/dt of W and of det W.
  struct MobilityRate {
    S xx, xy, yy, det;
  };
  MobilityRate mobility_rate(const S* q, const S* f) const {
    const S a = ls(q), b = lc(q), da = ls_rate(q, f), db = lc_rate(q, f);
    const Mobility w = mobility(q);
    MobilityRate d;
    d.xx = (da * a + a * da) / J;
    d.xy = (-da * b + -a * db) / J;
    d.yy = (db * b + b * db) / J;
    d.det = (d.xx * w.yy + w.xx * d.yy) - (d.xy * w.xy + w.xy * d.xy);
    return d;
  }
  // d/dt (omega^2) and d/dt (g + omega^2 l s), the right-hand side's y component.
  S omega2_rate(const S* q, const S* f) const { return f[kRodOmega] * q[kRodOmega] + q[kRodOmega] * f[kRodOmega]; }
  S lift_rate(const S* q, const S* f) const {
    const S w2 = q[kRodOmega] * q[kRodOmega];
    return omega2_rate(q, f) * ls(q) + w2 * ls_rate(q, f);
  }
  // d/dt of a1's force F1 = W^{-1} (omega^2 l c, g + omega^2 l s).
  Vec stuck_force_rate(const S* q, const S* f) const {
    const Mobility w = mobility(q);
    const MobilityRate d = mobility_rate(q, f);
    const S w2 = q[kRodOmega] * q[kRodOmega];
    const S bx = w2 * lc(q), by = g + w2 * ls(q);
    const S dbx = omega2_rate(q, f) * lc(q) + w2 * lc_rate(q, f), dby = lift_rate(q, f);
    const Vec force = stuck_force(q);
    const S det = w.det();
    const S dx = (d.yy * bx + w.yy * dbx) - (d.xy * by + w.xy * dby);
    const S dy = (d.xx * by + w.xx * dby) - (d.xy * bx + w.xy * dbx);
    return {dx / det - force.x * d.det / det, dy / det - force.y * d.det / det};
  }
  // d/dt of a2's normal force F_n (sigma is piecewise constant: its tangent is 0).
  S sliding_normal_rate(const S* q, const S* f) const {
    const Mobility w = mobility(q);
    const MobilityRate d = mobility_rate(q, f);
    const S sigma = slip_direction(q);
    const S denominator = w.yy - mu * sigma * w.xy;
    const S denominator_rate = d.yy - mu * sigma * d.xy;
    return lift_rate(q, f) / denominator - sliding_force(q).y * denominator_rate / denominator;
  }

  // x+ = x with the impulse P at A: v += P/m, omega += r_perp . P / J.
  void apply_impulse(const S* q, const Vec& p, S* q_plus) const {
    q_plus[kRodVx] = q[kRodVx] + p.x / m;
    q_plus[kRodVy] = q[kRodVy] + p.y / m;
    q_plus[kRodOmega] = q[kRodOmega] + (lc(q) * p.y - ls(q) * p.x) / J;
  }

  // The field of a mode with contact force F at A: (R1) without the constraint.
  void field(const S* q, const Vec& f, S* dq) const {
    dq[kRodX] = q[kRodVx];
    dq[kRodY] = q[kRodVy];
    dq[kRodTheta] = q[kRodOmega];
    dq[kRodVx] = f.x / m;
    dq[kRodVy] = f.y / m - g;
    dq[kRodOmega] = (lc(q) * f.y - ls(q) * f.x) / J;
  }

  // Kinetic plus potential energy.
  S energy(const S* q) const {
    return m * (q[kRodVx] * q[kRodVx] + q[kRodVy] * q[kRodVy]) / 2 + J * q[kRodOmega] * q[kRodOmega] / 2 + m * g * q[kRodY];
  }

  // Rod<S> from the model's parameters.
  static Rod from(const ParameterValues& values) {
    return {values.get<S>("m"), values.get<S>("J"), values.get<S>("g"),
            values.get<S>("mu"), values.get<S>("v_th"), values.get<S>("l")};
  }
};

// The model (modes, guards and resets above), from parameters m, J, g, mu, v_th, l, theta0,
// x0, y0, vx0, vy0, omega0.
template <class S>
Model<S> make_falling_rod(const ParameterValues& values);

// The catalog entry "falling-rod", presets fig6 and fig7.
ModelEntry falling_rod_entry();

}  // namespace hysim
