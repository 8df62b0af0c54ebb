// Ball on an inclined plane: equations, modes, guards and closed form in models/ball_incline.hpp.
#include "hysim/models/ball_incline.hpp"

#include <boost/math/constants/constants.hpp>
#include <boost/multiprecision/cpp_bin_float.hpp>

#include <cmath>
#include <string>

#include "hysim/core/errors.hpp"

namespace hysim {

namespace {

// The forces of 001, Eqs. (6)-(9), in the sign conventions of the header.
template <class T>
struct BallForces {
  T m, R, J0;
  T F;   // rolling force along s: P sin phi with P = -m g
  T kN;  // magnitude of the sliding friction k N, N = m g cos phi
};

template <class T>
BallForces<T> ball_forces(const T& g, const T& phi_deg, const T& k, const T& m, const T& R, const T& j) {
  using std::cos;
  using std::sin;
  const T phi = phi_deg * boost::math::constants::pi<T>() / T(180);
  return {m, R, j * m * R * R, -m * g * sin(phi), k * m * g * cos(phi)};
}

}  // namespace

template <class S>
Model<S> make_ball_incline(const ParameterValues& values) {
  const BallForces<S> p = ball_forces<S>(values.get<S>("g"), values.get<S>("phi_deg"), values.get<S>("k"),
                                         values.get<S>("m"), values.get<S>("r"), values.get<S>("j"));
  if (!(p.m > 0 && p.R > 0 && p.J0 > 0)) throw InvalidArgument("ball-incline: m, r and j must be > 0");
  if (!(p.kN >= 0)) throw InvalidArgument("ball-incline: k must be >= 0 and |phi_deg| <= 90");

  Model<S> model;
  model.name = "ball-incline";
  model.source = "001 (Shpakov 2016), body of revolution on an inclined plane, Eqs. (6)-(11), Fig. 1 rules; "
                 "rolling as a Filippov sliding mode (003)";
  model.state_names = {"s", "V", "omega", "w"};
  model.x0 = {values.get<S>("s0"), values.get<S>("v0"), values.get<S>("omega0"), S(0)};

  // The slip velocity v_s = V + omega R (001, rule 16 and the text).
  const S R = p.R;
  auto slip = [R](const S* x) { return x[kBallV] + x[kBallOmega] * R; };

  // 001, Eqs. (6)-(7): ds/dt = V, m dV/dt = F + F_f, J0 domega/dt = F_f R, dw/dt = -F_f v_s,
  // with the constant friction F_f of the mode.
  auto field = [p, slip](S friction) {
    return [p, slip, friction](S, const S* x, S* dxdt) {
      dxdt[kBallS] = x[kBallV];
      dxdt[kBallV] = (p.F + friction) / p.m;
      dxdt[kBallOmega] = friction * p.R / p.J0;
      dxdt[kBallW] = -friction * slip(x);
    };
  };
  model.add_mode("slip_pos", field(-p.kN), "v_s > 0: F_f = -k N");
  model.add_mode("slip_neg", field(p.kN), "v_s < 0: F_f = +k N");

  // The switching surface v_s = 0, with its exact rate dv_s/dt = f[V] + R f[omega], so that
  // the engine's lambda is exact to rounding.
  auto vs_atom = [R, slip](Relation relation) {
    return Guard<S>::atom(
        "v_s", [slip](S, const S* x) { return slip(x); }, relation,
        [R](S, const S*, const S* f) { return f[kBallV] + R * f[kBallOmega]; });
  };
  model.add_transition("slip_pos", "slip_neg", "vs_zero", vs_atom(Relation::kLessEqual));
  model.add_transition("slip_neg", "slip_pos", "vs_zero", vs_atom(Relation::kGreaterEqual));

  // On the surface (v_s0 = 0, e.g. from rest) the run starts in slip_pos and the chain at t0
  // decides between rolling (a sliding cycle) and slipping.
  model.initial_mode = slip(model.x0.data()) < 0 ? kBallSlipNeg : kBallSlipPos;
  model.finalize();
  return model;
}

namespace {

using Real = boost::multiprecision::cpp_bin_float_100;

// The end of the slip that starts at t = 0, if it ends before t_end: the closed form of the
// header in 100-digit arithmetic. Afterwards the ball either rolls for ever (F is constant)
// or slips the other way for ever, so there is at most one event.
Reference ball_incline_reference(const ParameterValues& values, double t_end) {
  const BallForces<Real> p = ball_forces<Real>(Real(values.text("g")), Real(values.text("phi_deg")),
                                               Real(values.text("k")), Real(values.text("m")),
                                               Real(values.text("r")), Real(values.text("j")));
  if (!(p.m > 0 && p.R > 0 && p.J0 > 0)) throw InvalidArgument("ball-incline reference: m, r and j must be > 0");
  if (!(p.kN >= 0)) throw InvalidArgument("ball-incline reference: k must be >= 0 and |phi_deg| <= 90");
  if (!std::isfinite(t_end)) throw InvalidArgument("ball-incline reference: t_end must be finite");
  const Real s0(values.text("s0")), V0(values.text("v0")), omega0(values.text("omega0"));
  const Real vs0 = V0 + omega0 * p.R;

  Reference result;
  result.method = "closed form: linear V and omega while slipping, t* = -v_s0 / (dv_s/dt), 100-digit arithmetic";
  if (vs0 == 0) return result;  // starts on the surface: rolls or slips from t0, no later event
  const int sigma = vs0 > 0 ? 1 : -1;
  const Real friction = -sigma * p.kN;
  const Real aV = (p.F + friction) / p.m;
  const Real aOmega = friction * p.R / p.J0;
  const Real rate = aV + p.R * aOmega;  // dv_s/dt while slipping
  if (!(sigma * rate < 0)) return result;  // v_s never reaches 0
  const Real t = -vs0 / rate;
  if (t > Real(t_end)) return result;

  // Rolling when both slip fields point into v_s = 0: |F| < k N (1 + m R^2 / J0).
  const bool rolls = abs(p.F) < p.kN * (1 + p.m * p.R * p.R / p.J0);
  const char* from = sigma > 0 ? "slip_pos" : "slip_neg";
  const char* other = sigma > 0 ? "slip_neg" : "slip_pos";
  result.method += rolls ? "; then rolls (sliding mode)" : "; then slips the other way";
  result.events.push_back({static_cast<float128>(t), from, rolls ? from : other, "vs_zero",
                           {static_cast<float128>(s0 + V0 * t + aV * t * t / 2), static_cast<float128>(V0 + aV * t),
                            static_cast<float128>(omega0 + aOmega * t), static_cast<float128>(p.kN * abs(vs0) * t / 2)}});
  return result;
}

}  // namespace

ModelEntry ball_incline_entry() {
  ModelEntry entry;
  entry.name = "ball-incline";
  entry.summary = "ball on an inclined plane with Coulomb friction: slipping, then rolling as a Filippov sliding mode";
  entry.source = "001 (Shpakov 2016), body of revolution on an inclined plane, Eqs. (6)-(11), Figs. 1-3";
  entry.parameters = {
      {"phi_deg", "-20", "slope angle [deg]; s runs along (cos phi, sin phi), down the slope for phi < 0", "-30", "-10"},
      {"k", "0.3", "Coulomb friction coefficient: |F_f| = k N while slipping", "0.1", "0.5"},
      {"m", "1", "mass [kg]", "0.5", "2"},
      {"r", "1.5", "radius R [m]", "1", "2"},
      {"j", "0.4", "J0 / (m R^2): 0.4 solid ball, 1 hoop", "0.4", "1"},
      {"g", "9.81", "gravity [m/s^2]", "9.78", "9.83"},
      {"s0", "0", "initial position along the slope [m]", "-1", "1"},
      {"v0", "0", "initial velocity of the centre V0 [m/s]", "-1", "1"},
      {"omega0", "20", "initial angular velocity [rad/s]; omega R is the contact point's velocity along s", "-20", "20"},
  };
  entry.presets = {
      {"paper", "001's experiment (Fig. 3): slips until t* = 4.7438 s, then rolls", {}},
      {"from-rest", "001's first case: from rest, rolls at once (k N > F/3.5)", {{"omega0", "0"}}},
      {"slipping", "k = 0.05 < F/(3.5 N): the slip reverses at v_s = 0 and the ball never rolls",
       {{"k", "0.05"}, {"omega0", "-20"}}},
  };
  HYSIM_MODEL_BUILDERS(entry, make_ball_incline);
  entry.reference = ball_incline_reference;
  return entry;
}

#define HYSIM_INSTANTIATE(S) template Model<S> make_ball_incline<S>(const ParameterValues&);
HYSIM_FOR_EACH_SCALAR(HYSIM_INSTANTIATE)
#undef HYSIM_INSTANTIATE

}  // namespace hysim
