// Bouncing ball: a point mass in free fall onto a rigid floor, Newton's restitution law at
// impact (the classic hybrid test model; 003 uses it for pinnacles and Zeno behaviour).
//
//   dy/dt = v,  dv/dt = -g                     mode "flight"
//   impact: y <= 0 && v < 0,  reset v := -e v  flight -> flight
//
// Parameters: g = 9.81 m/s^2, e = 0.8, dropped from y0 = 10 m at rest.
// Closed form: v_1 = sqrt(2 g y0) reached at t_1 = v_1/g; the k-th bounce leaves at speed
// e^k v_1 and lasts 2 e^k v_1/g, so t_{k+1} = t_k + 2 e^k v_1 / g.
#include "core/model.hpp"
#include "models/catalog.hpp"

namespace hysim {

template <class S>
Model<S> make_bouncing_ball(const ParameterValues& values) {
  const S g = values.get<S>("g");
  const S e = values.get<S>("e");
  Model<S> model;
  model.name = "bouncing-ball";
  model.source = "point mass with Newton's restitution law (003, pinnacles)";
  model.state_names = {"y", "v"};
  model.x0 = {values.get<S>("y0"), values.get<S>("v0")};
  model.add_mode("flight", [g](S, const S* x, S* dxdt) {
    dxdt[0] = x[1];
    dxdt[1] = -g;
  }, "free fall: dy/dt = v, dv/dt = -g");
  auto below = Guard<S>::atom("y", [](S, const S* x) { return x[0]; }, Relation::kLessEqual);
  auto falling = Guard<S>::atom("v", [](S, const S* x) { return x[1]; }, Relation::kLess);
  model.add_transition("flight", "flight", "impact", std::move(below) && std::move(falling),
                       [e](S, const S* x, S* x_plus) { x_plus[1] = -e * x[1]; });
  model.finalize();
  return model;
}

ModelEntry bouncing_ball_entry() {
  ModelEntry entry;
  entry.name = "bouncing-ball";
  entry.summary = "ball dropped on a rigid floor, restitution e: impacts at closed-form times";
  entry.source = "classic; closed form t_{k+1} = t_k + 2 e^k sqrt(2 g y0)/g";
  entry.parameters = {
      {"g", "9.81", "gravity [m/s^2]"},
      {"e", "0.8", "coefficient of restitution"},
      {"y0", "10", "initial height [m]"},
      {"v0", "0", "initial velocity [m/s]"},
  };
  HYSIM_MODEL_BUILDERS(entry, make_bouncing_ball);
  return entry;
}

}  // namespace hysim
