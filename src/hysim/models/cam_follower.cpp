// Cam follower: equations, modes, guards and closed form in models/cam_follower.hpp.
#include "hysim/models/cam_follower.hpp"

#include <boost/math/constants/constants.hpp>
#include <boost/multiprecision/cpp_bin_float.hpp>

#include <cmath>
#include <string>

#include "hysim/core/errors.hpp"

namespace hysim {

namespace {

// The cam and the spring: c(t) = e sin(Omega t), and N(t, z), the cam's reaction that riding
// takes at gap z (the follower at y = z + c).
template <class T>
struct Cam {
  T m, k, F0, e, Omega;

  T c(const T& t) const {
    using std::sin;
    return e * sin(Omega * t);
  }
  T dc(const T& t) const {
    using std::cos;
    return e * Omega * cos(Omega * t);
  }
  T ddc(const T& t) const { return -Omega * Omega * c(t); }
  // N = F0 + k y + m c''  with y = z + c(t).
  T reaction(const T& t, const T& z) const { return F0 + k * (z + c(t)) + m * ddc(t); }
};

// The cam of the parameters m, k, f0, ecc, n (Omega = 2 pi n), in T.
template <class T>
Cam<T> cam_of(const T& m, const T& k, const T& F0, const T& e, const T& n) {
  return {m, k, F0, e, boost::math::constants::two_pi<T>() * n};
}

}  // namespace

template <class S>
Model<S> make_cam_follower(const ParameterValues& values) {
  const Cam<S> cam = cam_of<S>(values.get<S>("m"), values.get<S>("k"), values.get<S>("f0"),
                               values.get<S>("ecc"), values.get<S>("n"));
  const S eps = values.get<S>("eps");
  if (!(cam.m > 0)) throw InvalidArgument("cam-follower: m must be > 0");
  if (!(eps >= 0 && eps <= 1)) throw InvalidArgument("cam-follower: eps must lie in [0, 1]");

  Model<S> model;
  model.name = "cam-follower";
  model.source = "003 (Mosterman, Zhao, Biswas), cam follower, Figs. 1, 10, 11: riding as a Filippov sliding mode "
                 "on v_rod = v_cam, Newton's impact rule (Eq. 2) as a pinnacle";
  model.state_names = {"z", "u"};
  model.x0 = {values.get<S>("z0"), values.get<S>("u0")};
  if (!(model.x0[kCamGap] >= 0)) throw InvalidArgument("cam-follower: z0 must be >= 0 (the follower cannot start inside the cam)");

  // free: N = 0, so u' = y'' - c'' = -(F0 + k y)/m - c'' = -N(t, z)/m.
  model.add_mode("free", [cam](S t, const S* x, S* dxdt) {
    dxdt[kCamGap] = x[kCamU];
    dxdt[kCamU] = -cam.reaction(t, x[kCamGap]) / cam.m;
  }, "off the cam: z' = u, u' = -N(t, z)/m");
  // contact: u' = N/m while N >= 0 (free's field mirrored about u = 0, the same expression
  // negated, so that lambda = 1/2 exactly) and u' = 2|N|/m while N < 0 (drives u up, toward
  // free; lambda = 2 exactly): the equivalent field is u' = 0 to the last bit on both sides of
  // the separation (models/cam_follower.hpp).
  model.add_mode("contact", [cam](S t, const S* x, S* dxdt) {
    const S N = cam.reaction(t, x[kCamGap]);
    dxdt[kCamGap] = x[kCamU];
    dxdt[kCamU] = (N >= 0 ? N : S(-2) * N) / cam.m;
  }, "the cam drives the follower back to its velocity: z' = u, u' = N/m (N >= 0), 2|N|/m (N < 0)");
  model.add_mode("impact", {}, "Newton's impact rule, a pinnacle (no field)");

  // The atoms, with their exact rates along a field value f.
  auto gap_atom = [](Relation relation) {
    return Guard<S>::atom("z", [](S, const S* x) { return x[kCamGap]; }, relation,
                          [](S, const S*, const S* f) { return f[kCamGap]; });
  };
  auto u_atom = [](Relation relation) {
    return Guard<S>::atom("u", [](S, const S* x) { return x[kCamU]; }, relation,
                          [](S, const S*, const S* f) { return f[kCamU]; });
  };
  // +1 once the impulse is committed (a priori state = state), -1 across the jump.
  auto committed = [] {
    return Guard<S>::atom(
        "committed", [](S, const S*) { return S(1); }, Relation::kGreater, {},
        [](S, const S* x_prior, const S* x) {
          return x_prior[kCamGap] == x[kCamGap] && x_prior[kCamU] == x[kCamU] ? S(1) : S(-1);
        });
  };

  // u first: it is the switching surface of the sliding pair (the first atom on its surface).
  model.add_transition("free", "contact", "touch", u_atom(Relation::kLessEqual) && gap_atom(Relation::kLessEqual));
  model.add_transition("contact", "impact", "strike", u_atom(Relation::kLess),
                       [eps](S, const S* x, S* x_plus) {
                         x_plus[kCamGap] = S(0);             // on the cam
                         x_plus[kCamU] = -eps * x[kCamU];    // 003, Eq. (2)
                       });
  model.add_transition("contact", "free", "lift", u_atom(Relation::kGreater));
  model.add_transition("impact", "free", "rebound", committed() && u_atom(Relation::kGreater));
  model.add_transition("impact", "contact", "stay", committed());

  // Zeno (bounces accumulating with eps > 0): continue riding the cam.
  model.zeno.mode_name = "contact";
  model.zeno.reset = [](S, const S*, S* x_plus) {
    x_plus[kCamGap] = S(0);
    x_plus[kCamU] = S(0);
  };

  // On the cam at rest relative to it (z0 = u0 = 0) the run starts in contact and the chain
  // at t0 decides between riding (the sliding cycle) and leaving; otherwise in free.
  model.initial_mode = model.x0[kCamGap] > 0 || model.x0[kCamU] > 0 ? kCamFree : kCamContact;
  model.finalize();
  return model;
}

namespace {

using Real = boost::multiprecision::cpp_bin_float_100;

// The reference stops before a flight shorter than this [s] (Zeno accumulation of bounces).
constexpr double kShortestFlight = 1e-6;
// Landing roots converge to this absolute accuracy in tau [s].
constexpr const char* kRootTolerance = "1e-80";
constexpr int kMaxRootIterations = 1000;
// Landings are searched with steps of T / kScanSteps (or less, for short bounces) over at
// most kMaxScanRevolutions revolutions.
constexpr int kScanSteps = 4096;
constexpr int kMaxScanRevolutions = 1000;
constexpr std::size_t kMaxEvents = 10'000'000;

// A free flight from (t0, y0, v0): harmonic about -F0/k with w = sqrt(k/m).
struct Flight {
  const Cam<Real>& cam;
  Real t0, y0, v0, w;

  Real y(const Real& tau) const {
    return -cam.F0 / cam.k + (y0 + cam.F0 / cam.k) * cos(w * tau) + v0 / w * sin(w * tau);
  }
  Real v(const Real& tau) const { return -(y0 + cam.F0 / cam.k) * w * sin(w * tau) + v0 * cos(w * tau); }
  Real gap(const Real& tau) const { return y(tau) - cam.c(t0 + tau); }
  Real u(const Real& tau) const { return v(tau) - cam.dc(t0 + tau); }

  // The first tau > 0 where the gap closes: scan for a negative gap, then safeguarded Newton.
  Real landing() const {
    const Real T = boost::math::constants::two_pi<Real>() / cam.Omega;
    Real step = T / kScanSteps;
    // A short bounce (u0 > 0 off a cam with N > 0) lasts about 2 m u / N: scan finer.
    const Real u0 = u(Real(0)), N0 = cam.reaction(t0, y0 - cam.c(t0));
    if (u0 > 0 && N0 > 0) step = std::min(step, Real(2 * cam.m * u0 / N0 / 64));
    Real lo = 0, hi = step;
    const Real limit = T * kMaxScanRevolutions;
    while (!(gap(hi) < 0)) {
      lo = hi;
      hi += step;
      if (hi > limit) throw SimulationError("cam-follower reference: no landing within 1000 revolutions");
    }
    const Real tolerance(kRootTolerance);
    Real tau = hi;
    for (int i = 0; i < kMaxRootIterations; ++i) {
      const Real g = gap(tau);
      if (g < 0) hi = tau; else lo = tau;
      const Real slope = u(tau);
      Real next = slope != 0 ? Real(tau - g / slope) : Real((lo + hi) / 2);
      if (!(next > lo && next < hi)) next = (lo + hi) / 2;
      tau = next;
      if (hi - lo <= tolerance) return hi;
    }
    throw SimulationError("cam-follower reference: a landing time did not converge");
  }
};

// Separations while riding, landings in flight, from the closed forms of the header.
Reference cam_follower_reference(const ParameterValues& values, double t_end) {
  const Cam<Real> cam = cam_of<Real>(Real(values.text("m")), Real(values.text("k")), Real(values.text("f0")),
                                     Real(values.text("ecc")), Real(values.text("n")));
  const Real eps(values.text("eps"));
  const Real z0(values.text("z0")), u0(values.text("u0"));
  if (!(cam.m > 0 && cam.k > 0 && cam.e > 0 && cam.Omega > 0)) {
    throw InvalidArgument("cam-follower reference: m, k, ecc and n must be > 0");
  }
  if (!(eps >= 0 && eps < 1)) throw InvalidArgument("cam-follower reference: eps must lie in [0, 1)");
  if (!(z0 >= 0) || (z0 == 0 && u0 < 0)) throw InvalidArgument("cam-follower reference: needs z0 > 0, or z0 = 0 and u0 >= 0");
  if (!std::isfinite(t_end)) throw InvalidArgument("cam-follower reference: t_end must be finite");
  const Real stiffness = (cam.m * cam.Omega * cam.Omega - cam.k) * cam.e;  // N = F0 - stiffness sin(Omega t)
  if (!(stiffness > cam.F0)) throw InvalidArgument("cam-follower reference: the follower never separates (F0 >= (m Omega^2 - k) e)");
  if (!(cam.F0 > -stiffness)) throw InvalidArgument("cam-follower reference: the cam can never hold the follower");
  const Real two_pi = boost::math::constants::two_pi<Real>();
  const Real phase_s = asin(cam.F0 / stiffness);  // separation: Omega t = asin(rho) + 2 pi j

  Reference result;
  result.method = "closed form: separations at Omega t = asin(rho) + 2 pi j, harmonic flights, landings by safeguarded "
                  "Newton, 100-digit arithmetic";
  const Real end(t_end);
  auto event = [&](const Real& t, const char* from, const char* to, const char* guard, const Real& u) {
    result.events.push_back({static_cast<float128>(t), from, to, guard, {float128(0), static_cast<float128>(u)}});
  };

  bool riding = z0 == 0 && u0 == 0;
  if (riding && !(cam.F0 > 0)) throw InvalidArgument("cam-follower reference: N(0) = F0 <= 0, the follower leaves at t0");
  Real t = 0, y = z0 + cam.c(Real(0)), v = u0 + cam.dc(Real(0));
  for (std::size_t count = 0; count < kMaxEvents; ++count) {
    if (riding) {
      // The next separation strictly after t.
      Real j = floor((cam.Omega * t - phase_s) / two_pi) + 1;
      Real t_s = (phase_s + two_pi * j) / cam.Omega;
      if (t_s <= t) t_s += two_pi / cam.Omega;
      if (t_s > end) return result;
      event(t_s, "contact", "free", "lift", Real(0));
      t = t_s;
      y = cam.c(t);
      v = cam.dc(t);
      riding = false;
      continue;
    }
    const Flight flight{cam, t, y, v, sqrt(cam.k / cam.m)};
    const Real tau = flight.landing();
    if (t + tau > end) return result;
    if (eps > 0 && tau < Real(kShortestFlight)) {
      result.method += "; stopped before a flight < 1e-6 s (Zeno accumulation of bounces)";
      return result;
    }
    const Real u = flight.u(tau);
    t += tau;
    if (eps == 0) {
      if (!(cam.reaction(t, Real(0)) > 0)) throw InvalidArgument("cam-follower reference: a landing where N <= 0 is not covered");
      event(t, "free", "contact", "touch", u);
      riding = true;
    } else {
      event(t, "free", "free", "touch", u);
      y = cam.c(t);
      v = cam.dc(t) - eps * u;
    }
  }
  throw SimulationError("cam-follower reference: more than 10^7 events before t_end");
}

}  // namespace

ModelEntry cam_follower_entry() {
  ModelEntry entry;
  entry.name = "cam-follower";
  entry.summary = "spring-loaded follower on an eccentric cam: riding as a sliding mode, separation, impacts (pinnacles)";
  entry.source = "003 (Mosterman, Zhao, Biswas), cam follower, Figs. 1, 10, 11; Newton's impact rule, Eq. (2)";
  entry.parameters = {
      {"m", "1", "follower mass [kg]", "0.5", "2"},
      {"k", "10", "spring stiffness [N/m]", "5", "20"},
      {"f0", "2.5", "spring preload at the cam's mid-stroke y = 0 [N]", "1", "4"},
      {"ecc", "0.1", "cam eccentricity e [m]: the cam surface is at e sin(Omega t)", "0.05", "0.15"},
      {"n", "1", "cam speed [rev/s]: Omega = 2 pi n", "0.5", "1.5"},
      {"eps", "0", "coefficient of restitution (003, Eq. 2), in [0, 1]", "0", "0.8"},
      {"z0", "0", "initial gap [m], >= 0", "0", "0.01"},
      {"u0", "0", "initial velocity relative to the cam [m/s]"},
  };
  entry.presets = {
      {"fig10", "eps = 0: separates at 58 deg, lands at 186 deg and rides (a sliding mode) until the next revolution", {}},
      {"fig11", "eps = 0.6: bounces after each landing, accumulating (Zeno), then rides", {{"eps", "0.6"}}},
  };
  HYSIM_MODEL_BUILDERS(entry, make_cam_follower);
  entry.reference = cam_follower_reference;
  return entry;
}

#define HYSIM_INSTANTIATE(S) template Model<S> make_cam_follower<S>(const ParameterValues&);
HYSIM_FOR_EACH_SCALAR(HYSIM_INSTANTIATE)
#undef HYSIM_INSTANTIATE

}  // namespace hysim
