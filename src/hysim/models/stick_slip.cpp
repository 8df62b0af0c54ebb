// Stick-slip oscillator: equations, modes, guards and closed form in models/stick_slip.hpp.
#include "hysim/models/stick_slip.hpp"

#include <boost/math/constants/constants.hpp>
#include <boost/multiprecision/cpp_bin_float.hpp>

#include <cmath>
#include <string>

#include "hysim/core/errors.hpp"

namespace hysim {

namespace {

// The parameters' constraints, for the model and its reference alike (docs/stick-slip.md).
void check_parameters(const ParameterValues& values) {
  const auto get = [&](const char* name) { return values.get<long double>(name); };
  if (!(get("m") > 0 && get("k") > 0 && get("g") > 0)) {
    throw InvalidArgument("model 'stick-slip': the parameters m, k and g must be > 0");
  }
  if (!(get("v_b") > 0)) throw InvalidArgument("model 'stick-slip': the belt speed v_b must be > 0 (v_b = " + values.text("v_b") + ")");
  if (!(get("mu_k") > 0 && get("mu_s") >= get("mu_k"))) {
    throw InvalidArgument("model 'stick-slip': need 0 < mu_k <= mu_s (mu_k = " + values.text("mu_k") + ", mu_s = " +
                          values.text("mu_s") + ")");
  }
}

}  // namespace

template <class S>
Model<S> make_stick_slip(const ParameterValues& values) {
  check_parameters(values);
  const S m = values.get<S>("m");
  const S k = values.get<S>("k");
  const S N = m * values.get<S>("g");  // normal force
  const S v_b = values.get<S>("v_b");
  const S kinetic = values.get<S>("mu_k") * N;  // |F| while slipping
  const S limit = values.get<S>("mu_s") * N;    // largest |F| while sticking

  Model<S> model;
  model.name = "stick-slip";
  model.source = "mass-spring on a moving belt with Coulomb friction; sticking as Filippov sliding (003, sliding modes)";
  model.state_names = {"x", "v"};
  model.x0 = {values.get<S>("x0"), values.get<S>("v0")};
  constexpr std::size_t kX = kStickX, kV = kStickV;

  // dx/dt = v, m dv/dt = -k x + F with a constant friction force F.
  auto field = [m, k](S F) {
    return [m, k, F](S, const S* x, S* dxdt) {
      dxdt[kX] = x[kV];
      dxdt[kV] = (-k * x[kX] + F) / m;
    };
  };
  model.add_mode("slip_pos", field(kinetic), "u > 0: F = +mu_k N");
  model.add_mode("slip_neg", field(-kinetic), "u < 0: F = -mu_k N");
  model.add_mode("static_pos", field(limit), "u = 0 face, u > 0 side: F = +mu_s N");
  model.add_mode("static_neg", field(-limit), "u = 0 face, u < 0 side: F = -mu_s N");

  // The switching surface u = v_b - v = 0, with its exact rate du/dt = -dv/dt along f.
  auto u_atom = [v_b](Relation relation) {
    return Guard<S>::atom("u", [v_b](S, const S* x) { return v_b - x[kV]; }, relation,
                          [](S, const S*, const S* f) { return -f[kV]; });
  };
  // The spring force reaches the static limit on either side: d(k x)/dt = k v.
  auto spring_rate = [k](S, const S*, const S* f) { return k * f[kX]; };
  auto beyond_pos = Guard<S>::atom("k x - mu_s N", [k, limit](S, const S* x) { return k * x[kX] - limit; },
                                   Relation::kGreaterEqual, spring_rate);
  auto beyond_neg = Guard<S>::atom("k x + mu_s N", [k, limit](S, const S* x) { return k * x[kX] + limit; },
                                   Relation::kLessEqual, spring_rate);

  // A slip ends when u reaches 0 while the slip field drives it across: du/dt = (k x -+ mu_k N)/m
  // along f_pos / f_neg (the bouncing ball's "y <= 0 && v < 0"). The second atom keeps a
  // slip mode entered at a breakaway from reading the rounding-level u of the sliding state.
  auto u_rate_atom = [m, k, kinetic](const char* name, S sign_of_F, Relation relation) {
    return Guard<S>::atom(name, [m, k, kinetic, sign_of_F](S, const S* x) { return (k * x[kX] - sign_of_F * kinetic) / m; },
                          relation, [m, k](S, const S*, const S* f) { return k * f[kX] / m; });
  };
  model.add_transition("slip_pos", "static_neg", "u_zero",
                       u_atom(Relation::kLessEqual) && u_rate_atom("(k x - mu_k N)/m", S(1), Relation::kLess));
  model.add_transition("slip_neg", "static_pos", "u_zero",
                       u_atom(Relation::kGreaterEqual) && u_rate_atom("(k x + mu_k N)/m", S(-1), Relation::kGreater));
  model.add_transition("static_pos", "slip_pos", "breakaway", std::move(beyond_pos));
  model.add_transition("static_pos", "static_neg", "u_zero", u_atom(Relation::kLessEqual));
  model.add_transition("static_neg", "slip_neg", "breakaway", std::move(beyond_neg));
  model.add_transition("static_neg", "static_pos", "u_zero", u_atom(Relation::kGreaterEqual));

  // Initial mode from the initial relative velocity; on the surface (v0 = v_b) the run starts
  // in static_pos and the chain at t0 decides between sticking and breakaway.
  const S u0 = v_b - model.x0[kV];
  model.initial_mode = u0 > 0 ? kSlipPos : (u0 < 0 ? kSlipNeg : kStaticPos);
  model.finalize();
  return model;
}

namespace {

using Real = boost::multiprecision::cpp_bin_float_100;

// A guard against reference runs of absurd length.
constexpr std::size_t kMaxPhases = 10'000'000;
// A root of the slip phase closer than this to its start [s] is the start itself (the phase
// begins on the surface u = 0); in 100-digit arithmetic that root is ~1e-99 from 0.
constexpr const char* kStartRoot = "1e-60";

struct StickSlipParameters {
  Real m, k, N, v_b, mu_s, mu_k, omega;
};

// The first tau > 0 at which the slip with friction s mu_k N, from (x, v), reaches v = v_b:
// x - x_c = A sin(omega tau + phi) with v = A omega cos(omega tau + phi); -1 when v never
// reaches v_b (A omega < v_b: the mass slips for ever).
Real slip_duration(const StickSlipParameters& p, int s, const Real& x, const Real& v) {
  const Real pi = boost::math::constants::pi<Real>();
  const Real y0 = x - s * p.mu_k * p.N / p.k;
  const Real amplitude = sqrt(y0 * y0 + (v / p.omega) * (v / p.omega));
  const Real c = p.v_b / (amplitude * p.omega);
  if (abs(c) > 1) return Real(-1);
  const Real phi = atan2(y0, v / p.omega);
  const Real start(kStartRoot);
  Real best = -1;
  for (const Real& root : {Real(acos(c)), Real(-acos(c))}) {
    // omega tau + phi = root + 2 pi j: the smallest tau above `start`.
    Real theta = root - phi;
    while (theta > start) theta -= 2 * pi;
    while (theta <= start) theta += 2 * pi;
    if (best < 0 || theta < best) best = theta;
  }
  return best / p.omega;
}

// The phase boundaries over (0, t_end]: each end of a slip (u = 0, the mass sticks or passes
// into the other slip mode) and each breakaway (k x = +-mu_s N during a stick), from the
// closed forms of the header, in 100-digit arithmetic.
Reference stick_slip_reference(const ParameterValues& values, double t_end) {
  StickSlipParameters p;
  p.m = Real(values.text("m"));
  p.k = Real(values.text("k"));
  p.N = p.m * Real(values.text("g"));
  p.v_b = Real(values.text("v_b"));
  p.mu_s = Real(values.text("mu_s"));
  p.mu_k = Real(values.text("mu_k"));
  check_parameters(values);
  if (!std::isfinite(t_end)) throw InvalidArgument("stick-slip reference: t_end must be finite");
  p.omega = sqrt(p.k / p.m);

  Reference result;
  result.method = "closed form: harmonic slips about +-mu_k N/k, linear sticks until k x = mu_s N, 100-digit arithmetic";
  const Real end(t_end);
  auto event = [&](const Real& t, const char* from, const char* to, const char* guard, const Real& x, const Real& v) {
    result.events.push_back({static_cast<float128>(t), from, to, guard,
                             {static_cast<float128>(x), static_cast<float128>(v)}});
  };

  Real t = 0, x(values.text("x0")), v(values.text("v0"));
  const Real limit = p.mu_s * p.N;
  // s: +1 slip_pos, -1 slip_neg, 0 stick.
  int s = v < p.v_b ? 1 : (v > p.v_b ? -1 : 0);
  if (s == 0 && abs(p.k * x) > limit) s = p.k * x > 0 ? 1 : -1;  // starts on the surface but cannot stick
  for (std::size_t phase = 0; phase < kMaxPhases; ++phase) {
    if (s == 0) {  // stick: x = x_s + v_b tau until k x = mu_s N
      const Real tau = (limit / p.k - x) / p.v_b;
      if (t + tau > end) return result;
      t += tau;
      x = limit / p.k;
      v = p.v_b;
      event(t, "static_pos", "slip_pos", "breakaway", x, v);
      s = 1;
      continue;
    }
    const Real tau = slip_duration(p, s, x, v);
    if (tau < 0 || t + tau > end) return result;
    const Real x_c = s * p.mu_k * p.N / p.k;
    const Real y0 = x - x_c, v0 = v;
    const Real c = cos(p.omega * tau), sn = sin(p.omega * tau);
    t += tau;
    x = x_c + y0 * c + (v0 / p.omega) * sn;
    v = p.v_b;  // -y0 omega sin + v0 cos, exactly v_b at the root
    const char* from = s > 0 ? "slip_pos" : "slip_neg";
    if (abs(p.k * x) <= limit) {
      event(t, from, s > 0 ? "static_neg" : "static_pos", "u_zero", x, v);
      s = 0;
    } else {  // static friction cannot hold: the mass passes into the other slip mode
      event(t, from, s > 0 ? "slip_neg" : "slip_pos", "u_zero", x, v);
      s = -s;
    }
  }
  throw SimulationError("stick-slip reference: more than 10^7 phases before t_end");
}

}  // namespace

ModelEntry stick_slip_entry() {
  ModelEntry entry;
  entry.name = "stick-slip";
  entry.summary = "mass-spring dragged by a belt, Coulomb friction: sticking as a Filippov sliding mode";
  entry.source = "mass on a moving belt with static/kinetic Coulomb friction; 003 sliding modes";
  entry.parameters = {
      {"m", "1", "mass [kg]", "0.5", "2"},
      {"k", "1", "spring stiffness [N/m]", "0.5", "2"},
      {"g", "9.81", "gravity [m/s^2]: normal force N = m g", "9.78", "9.83"},
      {"v_b", "0.5", "belt speed [m/s], > 0", "0.2", "1"},
      {"mu_s", "0.6", "static friction coefficient, >= mu_k", "0.5", "0.8"},
      {"mu_k", "0.4", "kinetic friction coefficient", "0.2", "0.45"},
      {"x0", "0", "initial spring extension [m]", "-0.5", "0.5"},
      {"v0", "0", "initial velocity [m/s]", "-0.5", "0.5"},
  };
  entry.presets = {
      {"periodic", "the defaults: from rest, slip 0.128 s, then a stick-slip cycle of 11.489 s", {}},
      {"on-belt", "starts stuck to the belt (v0 = v_b) at x0 = 0: sticks until k x = mu_s N",
       {{"v0", "0.5"}}},
  };
  HYSIM_MODEL_BUILDERS(entry, make_stick_slip);
  entry.reference = stick_slip_reference;
  return entry;
}

#define HYSIM_INSTANTIATE(S) template Model<S> make_stick_slip<S>(const ParameterValues&);
HYSIM_FOR_EACH_SCALAR(HYSIM_INSTANTIATE)
#undef HYSIM_INSTANTIATE

}  // namespace hysim
