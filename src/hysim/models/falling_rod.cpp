// The falling rod of 003, Figs. 5-7: equations, modes, guards and resets in
// models/falling_rod.hpp.
#include "hysim/models/falling_rod.hpp"

#include <cmath>
#include <string>
#include <utility>

#include "hysim/core/errors.hpp"
#include "hysim/models/catalog.hpp"

namespace hysim {

template <class S>
Model<S> make_falling_rod(const ParameterValues& values) {
  using std::abs;
  const Rod<S> rod = Rod<S>::from(values);
  if (!(rod.m > 0)) throw InvalidArgument("falling-rod: m must be > 0");
  if (!(rod.J > 0)) throw InvalidArgument("falling-rod: J must be > 0");
  if (!(rod.l != 0)) throw InvalidArgument("falling-rod: l must be nonzero");
  if (!(rod.mu >= 0)) throw InvalidArgument("falling-rod: mu must be >= 0");
  if (!(rod.v_th >= 0)) throw InvalidArgument("falling-rod: v_th must be >= 0");

  Model<S> model;
  model.name = "falling-rod";
  model.source = "003, Figs. 5-7: rigid rod on a floor with Coulomb friction; a1 mythical, a2 boundary";
  model.state_names = {"x", "y", "theta", "vx", "vy", "omega"};
  model.x0 = {values.get<S>("x0"), values.get<S>("y0"), values.get<S>("theta0"),
              values.get<S>("vx0"), values.get<S>("vy0"), values.get<S>("omega0")};

  using Vec = typename Rod<S>::Vec;
  model.add_mode("a0", [rod](S, const S* q, S* dq) { rod.field(q, Vec{S(0), S(0)}, dq); },
                 "free flight: F = 0");
  model.add_mode("a1", [rod](S, const S* q, S* dq) { rod.field(q, rod.stuck_force(q), dq); },
                 "stuck: A pinned, W F = (omega^2 l c, g + omega^2 l s)");
  model.add_mode("a2", [rod](S, const S* q, S* dq) { rod.field(q, rod.sliding_force(q), dq); },
                 "sliding: y_A = 0, F = F_n (-mu sigma, 1), F_n = (g + omega^2 l s)/(W_yy - mu sigma W_yx)");
  const auto at_rest = [](S, const S*, S* dq) {
    for (std::size_t i = 0; i < kRodStateSize; ++i) dq[i] = S(0);
  };
  model.add_mode("flat", at_rest, "the rod lies on the floor at rest: the run ends");
  model.add_mode("far_end", at_rest, "end B reached the floor in flight: contact at B is not modelled, the run ends");

  // --- atoms on the state, with exact rates along a field value f = dq/dt ---------------
  // Every atom carries its rate as the model language derives it (Rod's rate helpers), so
  // that models/falling-rod.hym is this model's twin to the last bit.
  // y_A = y + l sin theta,  dy_A/dt = f_y + l (cos theta f_theta).
  const auto y_a = [rod] {
    return Guard<S>::atom("y_A", [rod](S, const S* q) { return rod.contact_point(q).y; }, Relation::kLessEqual,
                          [rod](S, const S* q, const S* f) { return f[kRodY] + rod.ls_rate(q, f); });
  };
  // v_Ay = vy + l cos theta omega,  dv_Ay/dt = f_vy + (l (-(sin theta f_theta)) omega + l cos theta f_omega).
  const auto v_ay = [rod] {
    return Guard<S>::atom("v_Ay", [rod](S, const S* q) { return rod.contact_velocity(q).y; }, Relation::kLess,
                          [rod](S, const S* q, const S* f) { return rod.contact_velocity_rate(q, f).y; });
  };
  // y_B = y - l sin theta and v_By = vy - l cos theta omega, the far end.
  auto y_b = Guard<S>::atom("y_B", [rod](S, const S* q) { return rod.far_end_point(q).y; }, Relation::kLessEqual,
                            [rod](S, const S* q, const S* f) { return f[kRodY] - rod.ls_rate(q, f); });
  auto v_by = Guard<S>::atom("v_By", [rod](S, const S* q) { return rod.far_end_velocity(q).y; }, Relation::kLess,
                             [rod](S, const S* q, const S* f) {
                               return f[kRodVy] - (rod.lc_rate(q, f) * q[kRodOmega] + rod.lc(q) * f[kRodOmega]);
                             });
  const auto theta_zero = [] {
    return Guard<S>::atom("theta", [](S, const S* q) { return q[kRodTheta]; }, Relation::kLessEqual,
                          [](S, const S*, const S* f) { return f[kRodTheta]; });
  };
  // |v_Ax| - v_th, v_Ax = vx - l sin theta omega; rate sign(v_Ax) dv_Ax/dt.
  // Across a jump it reads +v_th (as if |v_Ax| = 2 v_th): a stick is decided on the state a
  // mode reaches, never on a tentative jump (the header says why).
  auto slow_slip = Guard<S>::atom(
      "|v_Ax| - v_th", [rod](S, const S* q) { return abs(rod.contact_velocity(q).x) - rod.v_th; }, Relation::kLess,
      [rod](S, const S* q, const S* f) { return Rod<S>::sign(rod.contact_velocity(q).x) * rod.contact_velocity_rate(q, f).x; },
      [rod](S, const S*, const S*) { return rod.v_th; });

  // --- force atoms: a continuous form (the mode's contact force at x) and a jump form (the
  // impulse P = m (v+ - v) of the tentative jump x -> x+; 003, Eq. 3 reads gamma(x, x+)) ---
  // Their rates are those of the continuous forms (the jump forms are never located).
  const auto impulse = [rod](const S* q, const S* q_plus) {
    return Vec{rod.m * (q_plus[kRodVx] - q[kRodVx]), rod.m * (q_plus[kRodVy] - q[kRodVy])};
  };
  // a1 -> a2: |F_x| > mu F_n; across a jump |P_x| > mu P_y (the stuck impulse leaves the cone).
  auto beyond_cone = Guard<S>::atom(
      "|F_x| - mu F_n", [rod](S, const S* q) { const Vec f = rod.stuck_force(q); return abs(f.x) - rod.mu * f.y; },
      Relation::kGreater,
      [rod](S, const S* q, const S* f) {
        const Vec d = rod.stuck_force_rate(q, f);
        return Rod<S>::sign(rod.stuck_force(q).x) * d.x - rod.mu * d.y;
      },
      [rod, impulse](S, const S* q, const S* q_plus) { const Vec p = impulse(q, q_plus); return abs(p.x) - rod.mu * p.y; });
  // a1 -> a0 and a2 -> a0: F_n < 0; across a jump P_y < 0 (the floor would have to pull).
  const auto normal_force = [rod, impulse](bool stuck) {
    return Guard<S>::atom(
        "F_n", [rod, stuck](S, const S* q) { return stuck ? rod.stuck_force(q).y : rod.sliding_force(q).y; },
        Relation::kLess,
        [rod, stuck](S, const S* q, const S* f) {
          return stuck ? rod.stuck_force_rate(q, f).y : rod.sliding_normal_rate(q, f);
        },
        [impulse](S, const S* q, const S* q_plus) { return impulse(q, q_plus).y; });
  };
  // a2 -> a1 (with the slow slip): a1's force lies in the friction cone, mu F1_n - |F1_x| >= 0.
  auto holds = Guard<S>::atom(
      "mu F1_n - |F1_x|", [rod](S, const S* q) { const Vec f = rod.stuck_force(q); return rod.mu * f.y - abs(f.x); },
      Relation::kGreaterEqual, [rod](S, const S* q, const S* f) {
        const Vec d = rod.stuck_force_rate(q, f);
        return rod.mu * d.y - Rod<S>::sign(rod.stuck_force(q).x) * d.x;
      });

  // --- resets ---------------------------------------------------------------------------
  // Into a1: P = -W^{-1} v_A, then v_A+ = 0 set exactly.
  const auto stick_reset = [rod](S, const S* q, S* q_plus) {
    rod.apply_impulse(q, rod.stuck_impulse(q), q_plus);
    q_plus[kRodVx] = rod.ls(q) * q_plus[kRodOmega];
    q_plus[kRodVy] = -(rod.lc(q) * q_plus[kRodOmega]);
  };
  // Into a2: P = P_n (mu s, 1), then v_Ay+ = 0 set exactly. The contact is unilateral: an
  // impulse acts only on an approach (v_Ay < 0); from a stuck state, whose v_Ay is the
  // integrator's drift of the constraint (~rtol), the reset is the identity.
  const auto slide_reset = [rod](S, const S* q, S* q_plus) {
    if (!(rod.contact_velocity(q).y < 0)) return;
    rod.apply_impulse(q, rod.sliding_impulse(q), q_plus);
    q_plus[kRodVy] = -(rod.lc(q) * q_plus[kRodOmega]);
  };
  // Into flat: the rod comes to rest (the far end's impact is perfectly inelastic).
  const auto rest_reset = [](S, const S*, S* q_plus) {
    q_plus[kRodVx] = q_plus[kRodVy] = q_plus[kRodOmega] = S(0);
  };

  model.add_transition("a0", "a1", "contact", y_a() && v_ay(), stick_reset);
  model.add_transition("a0", "far_end", "end_B", std::move(y_b) && std::move(v_by));
  model.add_transition("a1", "a2", "slip", std::move(beyond_cone), slide_reset);
  model.add_transition("a1", "a0", "lift", normal_force(true));
  model.add_transition("a1", "flat", "lie_flat", theta_zero(), rest_reset);
  model.add_transition("a2", "a0", "lift", normal_force(false));
  model.add_transition("a2", "a1", "stick", std::move(slow_slip) && std::move(holds));
  model.add_transition("a2", "flat", "lie_flat", theta_zero(), rest_reset);
  model.finalize();
  return model;
}

ModelEntry falling_rod_entry() {
  ModelEntry entry;
  entry.name = "falling-rod";
  entry.summary = "rigid rod falling onto a floor with friction: a1 mythical at the impact, a2 interior or boundary";
  entry.source = "003, Figs. 5-7 (Mosterman, Zhao, Biswas): stuck a1 mythical; Fig. 7: sliding a2 a boundary";
  entry.parameters = {
      {"m", "1", "mass [kg]", "0.5", "2"},
      {"J", "0.1", "moment of inertia about the centre [kg m^2] (fixed by specification, not m l^2/3)", "0.05", "0.2"},
      {"g", "9.81", "gravity [m/s^2]", "9.78", "9.83"},
      {"mu", "0.004", "Coulomb friction coefficient at A", "0.001", "0.01"},
      {"v_th", "0.0015", "slip speed [m/s] below which the rod may stick (003)", "0.001", "0.003"},
      {"l", "-0.1", "signed half-length [m]: A = C + l (cos theta, sin theta)", "-0.12", "-0.08"},
      {"theta0", "0.862", "initial angle [rad]", "0.7", "1"},
      {"x0", "0", "initial centre x [m]", "-1", "1"},
      {"y0", "0.23", "initial centre height [m]", "0.2", "0.3"},
      {"vx0", "0", "initial vx [m/s]"},
      {"vy0", "0", "initial vy [m/s]"},
      {"omega0", "0", "initial angular velocity [rad/s]"},
  };
  entry.presets = {
      {"fig6", "003 Fig. 6 (the defaults): a1 mythical at the impact, the rod slides (a2 interior) until it lies flat",
       {{"mu", "0.004"}, {"v_th", "0.0015"}, {"theta0", "0.862"}, {"l", "-0.1"}, {"y0", "0.23"}}},
      {"fig7", "003 Fig. 7: a1 mythical, a2 a boundary (F_n < 0 at once), the rod lifts off; impact at 1.77 s, runs to 3 s",
       {{"mu", "0.5"}, {"v_th", "0.0015"}, {"theta0", "0.862"}, {"l", "-10"}, {"y0", "23"}}, 3.0},
  };
  HYSIM_MODEL_BUILDERS(entry, make_falling_rod);
  return entry;
}

#define HYSIM_INSTANTIATE(S) template Model<S> make_falling_rod<S>(const ParameterValues&);
HYSIM_FOR_EACH_SCALAR(HYSIM_INSTANTIATE)
#undef HYSIM_INSTANTIATE

}  // namespace hysim
