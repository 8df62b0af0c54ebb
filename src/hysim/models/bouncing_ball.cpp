// Bouncing ball: a point mass in free fall onto a rigid floor, Newton's restitution law at
// impact (the classic hybrid test model; 003 uses it for pinnacles and Zeno behaviour).
//
//   dy/dt = v,  dv/dt = -g                     mode "flight"
//   impact: y <= 0 && v < 0,  reset v := -e v  flight -> impact
//   rebound: v >= 0                            impact -> flight
//   "impact" is algebraic (no field): Newton's law acts at a point of time, a pinnacle
//   (003, Table 1). "rest" (dy/dt = dv/dt = 0) is the Zeno continuation: after the impacts
//   accumulate at t_inf the ball lies on the floor, y = v = 0.
//
// Parameters: g = 9.81 m/s^2, e = 0.8, dropped from y0 = 10 m at rest (v0 = 0).
//
// Closed form (the reference below), for y0 > 0, or y0 = 0 with v0 > 0: the ball reaches the
// floor with speed w = sqrt(v0^2 + 2 g y0) (energy) at the positive root of
// y0 + v0 t - g t^2 / 2 = 0,
//   t_1 = (v0 + w) / g,
// the k-th bounce leaves at speed e^k w and lasts 2 e^k w / g, so
//   t_{k+1} = t_k + 2 e^k w / g,  pre-impact state (y, v) = (0, -e^k w).
// For v0 = 0: w = sqrt(2 g y0), t_1 = sqrt(2 y0 / g). Evaluated in 100-digit arithmetic from the
// decimal parameters and rounded to float128.
//
// Zeno: the impacts accumulate at t_inf = t_1 + 2 e w / (g (1 - e)) (12.85 s for the
// defaults). The reference stops before the first impact whose flight would last less than
// 1e-9 s (for the defaults it keeps 98 impacts), or at t_end,
// whichever comes first, and says so in its `method`.
#include <boost/multiprecision/cpp_bin_float.hpp>

#include <cmath>
#include <string>

#include "hysim/core/errors.hpp"
#include "hysim/core/model.hpp"
#include "hysim/models/bouncing.hpp"
#include "hysim/models/catalog.hpp"

namespace hysim {

template <class S>
Model<S> make_bouncing_ball(const ParameterValues& values) {
  const S g = values.get<S>("g");
  const S e = values.get<S>("e");
  // e = 0 stops the ball at its first impact; its chain then has no mode to rest in.
  if (!(g > 0)) throw InvalidArgument("model 'bouncing-ball': the parameter g must be > 0 (g = " + values.text("g") + ")");
  if (!(e > 0 && e <= 1)) throw InvalidArgument("model 'bouncing-ball': the parameter e must lie in (0, 1] (e = " + values.text("e") + ")");
  Model<S> model;
  model.name = "bouncing-ball";
  model.source = "point mass with Newton's restitution law (003, pinnacles)";
  model.state_names = {"y", "v"};
  model.x0 = {values.get<S>("y0"), values.get<S>("v0")};
  add_bouncing_modes<S>(model, [g](S, const S* x, S* dxdt) {
    dxdt[0] = x[1];
    dxdt[1] = -g;
  }, "free fall: dy/dt = v, dv/dt = -g", e);
  model.finalize();
  return model;
}

namespace {

using Real = boost::multiprecision::cpp_bin_float_100;

// The reference stops before a flight shorter than this [s] (the Zeno accumulation; the
// engine declares Zeno when less than zeno_horizon = 1e-9 s remains).
constexpr double kShortestFlight = 1e-9;
// A guard against parameters that bounce forever without accumulating (e = 1).
constexpr std::size_t kMaxImpacts = 10'000'000;

Reference bouncing_ball_reference(const ParameterValues& values, double t_end) {
  const Real g(values.text("g"));
  const Real e(values.text("e"));
  const Real y0(values.text("y0"));
  const Real v0(values.text("v0"));
  if (!(g > 0)) throw InvalidArgument("bouncing-ball reference: g must be > 0");
  if (!(e > 0 && e <= 1)) throw InvalidArgument("bouncing-ball reference: e must lie in (0, 1]");
  if (!(y0 > 0 || (y0 == 0 && v0 > 0))) {
    throw InvalidArgument("bouncing-ball reference: the ball must start above the floor (y0 > 0) or leave it (y0 = 0, v0 > 0)");
  }
  if (!std::isfinite(t_end)) throw InvalidArgument("bouncing-ball reference: t_end must be finite");

  Reference result;
  result.method = "closed form t_1 = (v0 + w)/g, t_{k+1} = t_k + 2 e^k w/g, w = sqrt(v0^2 + 2 g y0), 100-digit arithmetic";
  const Real end(t_end);
  const Real shortest(kShortestFlight);
  const Real w = sqrt(v0 * v0 + 2 * g * y0);  // speed at the first impact
  Real flight = (v0 + w) / g;                  // duration of the flight that ends at the next impact
  Real speed = w;                              // speed at the next impact: e^k w
  Real t = 0;
  for (std::size_t k = 0; k < kMaxImpacts; ++k) {
    if (t + flight > end) return result;
    if (k > 0 && flight < shortest) {
      result.method += "; stopped before impact " + std::to_string(k + 1) + " (its flight < 1e-9 s: Zeno accumulation)";
      return result;
    }
    t += flight;
    result.events.push_back({static_cast<float128>(t), "flight", "impact", "impact",
                             {float128(0), static_cast<float128>(-speed)}});
    speed *= e;
    flight = 2 * speed / g;
  }
  throw SimulationError("bouncing-ball reference: more than 10^7 impacts before t_end");
}

}  // namespace

ModelEntry bouncing_ball_entry() {
  ModelEntry entry;
  entry.name = "bouncing-ball";
  entry.summary = "ball dropped on a rigid floor, restitution e: impacts at closed-form times";
  entry.source = "classic; closed form t_{k+1} = t_k + 2 e^k w/g, w = sqrt(v0^2 + 2 g y0)";
  entry.parameters = {
      {"g", "9.81", "gravity [m/s^2]", "9.78", "9.83"},
      {"e", "0.8", "coefficient of restitution", "0.3", "0.95"},
      {"y0", "10", "initial height [m]", "1", "20"},
      {"v0", "0", "initial velocity [m/s]", "-5", "5"},
  };
  HYSIM_MODEL_BUILDERS(entry, make_bouncing_ball);
  entry.reference = bouncing_ball_reference;
  return entry;
}

}  // namespace hysim
