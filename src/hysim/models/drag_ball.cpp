// Bouncing ball with linear air drag: the classical projectile with a drag force proportional
// to velocity (Stokes drag, F = -m c v), dropped onto a rigid floor with Newton's restitution
// law at impact.
//
//   dy/dt = v,  dv/dt = -g - c v                 mode "flight"
//   impact: y <= 0 && v < 0,  reset v := -e v   flight -> impact
//   rebound: v >= 0                              impact -> flight
//   As in models/bouncing_ball.cpp, "impact" is algebraic (no field): Newton's law acts at a
//   point of time, a pinnacle (003, Table 1), so the engine's Zeno detector sees the impacts.
//   "rest" (dy/dt = dv/dt = 0) is the Zeno continuation: after the impacts accumulate the
//   ball lies on the floor, y = v = 0.
//
// Parameters: g = 9.81 m/s^2, c = 0.5 1/s (drag rate; terminal speed g/c = 19.62 m/s),
// e = 0.8, y0 = 10 m, v0 = 0.
//
// Closed form of a flight that starts at (y_s, v_s), tau = time since its start:
//   v(tau) = (v_s + g/c) exp(-c tau) - g/c
//   y(tau) = y_s - (g/c) tau + (v_s + g/c) (1 - exp(-c tau)) / c
// Unlike the drag-free ball, this is not a polynomial in tau, so no Runge-Kutta method
// integrates it exactly, and the impact times are roots of a transcendental equation.
//
// Reference (below): each flight's landing time is the root of y(tau) = 0, found by a
// safeguarded Newton iteration (Newton steps kept inside a sign bracket, bisection when a step
// leaves it) in 100-digit arithmetic (cpp_bin_float_100) to a relative 1e-90. The next flight
// starts from the exact state of the previous impact, (0, -e v_impact), also in 100 digits, so
// the error does not grow beyond the working precision; the times and pre-impact states are
// rounded to float128 once, at the end.
//
// Zeno: the bounces shrink (towards the drag-free ratio e as the speeds go to 0) and the
// impacts accumulate in finite time (at t = 7.0880 s for the defaults, after infinitely many
// impacts). The engine detects the accumulation from the shrinking intervals between the
// pinnacles and continues in "rest". The reference stops before the first impact whose
// flight would last less than 1e-6 s (for the defaults, the 63rd at t = 7.08799 s), or at
// t_end, whichever comes first; its `method` says where it stopped. Runs meant to be compared
// with it should stop well before the accumulation: the documented t_end = 6.9 s covers 14
// impacts (the 15th is at 6.929 s).
//
// Source: the classical projectile with linear drag (e.g. any mechanics text on Stokes drag),
// combined with the bouncing ball of models/bouncing_ball.cpp; the test problem is this
// project's.
#include <boost/math/special_functions/expm1.hpp>
#include <boost/multiprecision/cpp_bin_float.hpp>

#include <cmath>
#include <string>

#include "hysim/core/errors.hpp"
#include "hysim/core/model.hpp"
#include "hysim/core/scalar.hpp"
#include "hysim/models/bouncing.hpp"
#include "hysim/models/catalog.hpp"

namespace hysim {

template <class S>
Model<S> make_drag_ball(const ParameterValues& values) {
  const S g = values.get<S>("g");
  const S c = values.get<S>("c");
  const S e = values.get<S>("e");
  Model<S> model;
  model.name = "drag-ball";
  model.source = "projectile with linear drag and Newton's restitution law";
  model.state_names = {"y", "v"};
  model.x0 = {values.get<S>("y0"), values.get<S>("v0")};
  add_bouncing_modes<S>(model, [g, c](S, const S* x, S* dxdt) {
    dxdt[0] = x[1];
    dxdt[1] = -g - c * x[1];
  }, "fall with linear drag: dy/dt = v, dv/dt = -g - c v", e);
  model.finalize();
  return model;
}

namespace {

using Real = boost::multiprecision::cpp_bin_float_100;

// The reference stops before a flight shorter than this [s] (the Zeno accumulation). Unlike
// the drag-free ball (1e-9 s, where Runge-Kutta integrates the flights exactly), the engine's
// impact times here carry integration errors of a few 1e-6 s near the accumulation at default
// tolerances (2.4e-6 s at the 62nd impact), so shorter flights could not be matched to their
// reference impacts anyway.
constexpr double kShortestFlight = 1e-6;
// Landing times are converged to this relative accuracy (the working precision is ~1e-100).
constexpr const char* kRootTolerance = "1e-90";
constexpr int kMaxRootIterations = 2000;
// A guard against parameters that bounce forever without accumulating (e = 1).
constexpr std::size_t kMaxImpacts = 10'000'000;

struct DragParameters {
  Real g, c, e;
};

// One flight from (y_s, v_s): the closed form in tau.
struct Flight {
  const DragParameters& p;
  Real y_s, v_s;

  // (1 - exp(-c tau)) / c without cancellation for small c tau.
  Real decay_integral(const Real& tau) const { return -boost::math::expm1(Real(-p.c * tau)) / p.c; }
  Real y(const Real& tau) const { return y_s - (p.g / p.c) * tau + (v_s + p.g / p.c) * decay_integral(tau); }
  Real v(const Real& tau) const { return (v_s + p.g / p.c) * exp(-p.c * tau) - p.g / p.c; }

  // The landing time: the root of y(tau) = 0 with v < 0. y rises (if v_s > 0) until the apex
  // tau_apex = ln(1 + c v_s / g) / c and then decreases monotonically (v < 0 from there on)
  // towards -infinity, so with y_s >= 0 and y(tau) > 0 just after the start there is exactly
  // one root, beyond the apex.
  Real landing_time() const {
    Real lo = v_s > 0 ? Real(log1p(p.c * v_s / p.g) / p.c) : Real(0);  // y(lo) > 0 (or y_s = 0)
    Real width = 1;
    Real hi = lo + width;
    while (y(hi) > 0) {  // widen until the ball is below the floor
      lo = hi;
      width *= 2;
      hi = lo + width;
    }
    const Real tolerance(kRootTolerance);
    Real tau = hi;
    for (int i = 0; i < kMaxRootIterations; ++i) {
      const Real y_tau = y(tau);
      if (y_tau > 0) lo = tau; else hi = tau;
      // Newton step tau - y / y'; y' = v < 0 on [lo, hi].
      Real next = tau - y_tau / v(tau);
      if (!(next > lo && next < hi)) next = (lo + hi) / 2;
      const Real step = abs(next - tau);
      tau = next;
      if (step <= tolerance * tau || hi - lo <= tolerance * tau) return tau;
    }
    throw SimulationError("drag-ball reference: the landing time did not converge");
  }
};

Reference drag_ball_reference(const ParameterValues& values, double t_end) {
  const DragParameters p{Real(values.text("g")), Real(values.text("c")), Real(values.text("e"))};
  const Real y0(values.text("y0"));
  const Real v0(values.text("v0"));
  if (!(p.g > 0)) throw InvalidArgument("drag-ball reference: g must be > 0");
  if (!(p.c > 0)) throw InvalidArgument("drag-ball reference: c must be > 0 (use bouncing-ball for c = 0)");
  if (!(p.e > 0 && p.e <= 1)) throw InvalidArgument("drag-ball reference: e must lie in (0, 1]");
  if (!(y0 > 0 || (y0 == 0 && v0 > 0))) {
    throw InvalidArgument("drag-ball reference: the ball must start above the floor (y0 > 0) or leave it (y0 = 0, v0 > 0)");
  }
  if (!std::isfinite(t_end)) throw InvalidArgument("drag-ball reference: t_end must be finite");

  Reference result;
  result.method = "closed form per flight, landing times by safeguarded Newton in 100-digit arithmetic";
  const Real end(t_end);
  const Real shortest(kShortestFlight);
  Real t = 0;
  Real y_s = y0, v_s = v0;
  for (std::size_t k = 0; k < kMaxImpacts; ++k) {
    const Flight flight{p, y_s, v_s};
    const Real tau = flight.landing_time();
    if (t + tau > end) return result;
    if (k > 0 && tau < shortest) {
      result.method += "; stopped before impact " + std::to_string(k + 1) + " (its flight < 1e-6 s: Zeno accumulation)";
      return result;
    }
    t += tau;
    const Real v_impact = flight.v(tau);
    // The event's first row: flight -> impact by the guard "impact" (the chain then
    // rebounds into flight at the same t).
    result.events.push_back({static_cast<float128>(t), "flight", "impact", "impact",
                             {float128(0), static_cast<float128>(v_impact)}});
    y_s = 0;
    v_s = -p.e * v_impact;
  }
  throw SimulationError("drag-ball reference: more than 10^7 impacts before t_end");
}

}  // namespace

ModelEntry drag_ball_entry() {
  ModelEntry entry;
  entry.name = "drag-ball";
  entry.summary = "bouncing ball with linear air drag: impacts are roots of a transcendental equation";
  entry.source = "classical projectile with linear (Stokes) drag and Newton's restitution law";
  entry.parameters = {
      {"g", "9.81", "gravity [m/s^2]", "9.78", "9.83"},
      {"c", "0.5", "drag rate [1/s]: dv/dt = -g - c v", "0.1", "1"},
      {"e", "0.8", "coefficient of restitution", "0.3", "0.95"},
      {"y0", "10", "initial height [m]", "1", "20"},
      {"v0", "0", "initial velocity [m/s]", "-5", "5"},
  };
  HYSIM_MODEL_BUILDERS(entry, make_drag_ball);
  entry.reference = drag_ball_reference;
  return entry;
}

#define HYSIM_INSTANTIATE(S) template Model<S> make_drag_ball<S>(const ParameterValues&);
HYSIM_FOR_EACH_SCALAR(HYSIM_INSTANTIATE)
#undef HYSIM_INSTANTIATE

}  // namespace hysim
