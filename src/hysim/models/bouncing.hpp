// The modes a bouncing ball shares, whatever its flight: a point mass over the floor y = 0,
// state (y, v), with Newton's restitution law at each impact (003: the impact is a pinnacle,
// an algebraic mode whose reset changes the state) and a Zeno continuation at rest.
//   flight -[impact: y <= 0 and v < 0; v := -e v]-> impact -[rebound: v >= 0]-> flight
//   Zeno continuation: rest (y = v = 0, zero field)
// Used by models/bouncing_ball.cpp (free fall) and models/drag_ball.cpp (linear drag).
#pragma once

#include <string>
#include <utility>

#include "hysim/core/model.hpp"

namespace hysim {

// Adds the modes flight (with field `flight`, described by `flight_doc`), impact and rest,
// their transitions and the Zeno continuation to `model`, whose state is (y, v).
template <class S>
void add_bouncing_modes(Model<S>& model, FieldFunction<S> flight, std::string flight_doc, S e) {
  model.add_mode("flight", std::move(flight), std::move(flight_doc));
  model.add_mode("impact", FieldFunction<S>{}, "Newton's restitution law at a point of time (pinnacle)");
  model.add_mode("rest", [](S, const S*, S* dxdt) {
    dxdt[0] = S(0);
    dxdt[1] = S(0);
  }, "on the floor after the Zeno accumulation: y = v = 0");
  // The atoms carry their rates (dy/dt = f_y, dv/dt = f_v), as the model language derives them.
  const EventRate<S> y_rate = [](S, const S*, const S* f) { return f[0]; };
  const EventRate<S> v_rate = [](S, const S*, const S* f) { return f[1]; };
  auto below = Guard<S>::atom("y", [](S, const S* x) { return x[0]; }, Relation::kLessEqual, y_rate);
  auto falling = Guard<S>::atom("v", [](S, const S* x) { return x[1]; }, Relation::kLess, v_rate);
  model.add_transition("flight", "impact", "impact", std::move(below) && std::move(falling),
                       [e](S, const S* x, S* x_plus) { x_plus[1] = -e * x[1]; });
  model.add_transition("impact", "flight", "rebound",
                       Guard<S>::atom("v", [](S, const S* x) { return x[1]; }, Relation::kGreaterEqual, v_rate));
  model.zeno = {"rest", -1, [](S, const S*, S* x_plus) {
                  x_plus[0] = S(0);
                  x_plus[1] = S(0);
                }};
}

}  // namespace hysim
