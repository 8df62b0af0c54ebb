// Components: parallel parts of a model, each with its own modes, guards and resets
// (Mosterman's 5-tuple per part), sharing the states and the parameters. The global mode is
// the model's mode together with each component's local mode, which is never enumerated: k
// components of two modes each cost k states, not 2^k modes.
//
// Component c holds its local mode in a state of its own, q_c = the mode's index (derivative
// 0), which the model's field reads (a room heats where q_c is its "on" mode's index). Each
// local transition a -> b with guard gamma and reset g becomes, in every mode of the model, a
// transition back into that mode, named "COMPONENT.NAME", with
//   guard  q_c == a  &&  gamma          reset  x+ = g(x), then q_c := b,
// so the engine locates it one-sidedly, chains the transitions of several components that
// fire at one instant (a component entering a local mode whose guard already holds goes on
// within the event: a pinnacle), and records each with its class and the states before and
// after, q_c among them. The test q_c == a is an atom that changes only at events (rate 0).
//
// Two local modes that share a surface and whose fields both drive into it would chatter
// between them (one global mode, so no two-mode sliding cycle): such a switch is a switch
// part (core/switch_parts.hpp), which slides. Zeno is watched per component (the events of its
// transitions alone, events/zeno.hpp): where they accumulate the run goes on from the
// accumulation time with the component in its zeno_mode, the other parts as they were.
#pragma once

#include <cstddef>
#include <limits>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "hysim/core/errors.hpp"
#include "hysim/core/guard.hpp"
#include "hysim/core/model.hpp"

namespace hysim {

template <class S>
struct ComponentTransition {
  std::string name;        // recorded as "COMPONENT.NAME"
  std::string from, to;    // local modes, by name
  Guard<S> guard;          // over t and the shared states
  ResetFunction<S> reset;  // on the shared states; empty: none
};

template <class S>
struct Component {
  std::string name;                 // the state holding its local mode, and its transitions' prefix
  std::vector<std::string> modes;   // the local modes; q_c holds the index
  std::string initial;              // empty: the first local mode
  std::vector<ComponentTransition<S>> transitions;  // in priority order
  // Where its events accumulate (Zeno, watched per component): the local mode it rests in
  // after, with the reset (empty mode: the run stops there, as without a model continuation).
  std::string zeno_mode{};
  ResetFunction<S> zeno_reset{};
};

// Appends one state per component (its initial local mode's index), wraps every mode's field
// so that those states' derivatives are 0, and gives every mode with a field the components'
// transitions (after its own). Call after the modes, states and x0, before finalize().
// Returns the index of the first component's state: component c's mode is x[first + c].
template <class S>
std::size_t add_components(Model<S>& model, std::vector<Component<S>> components) {
  const std::size_t first = model.state_names.size();
  const std::string where = "model '" + model.name + "'";
  if (model.x0.size() != first) throw ModelError(where + ": components are added after x0 is given for every state");
  const auto local = [&](const Component<S>& c, const std::string& mode, const std::string& role) {
    for (std::size_t m = 0; m < c.modes.size(); ++m) {
      if (c.modes[m] == mode) return m;
    }
    throw ModelError(where + ", component '" + c.name + "': " + role + " '" + mode + "' is none of its modes");
  };
  for (std::size_t c = 0; c < components.size(); ++c) {
    const Component<S>& component = components[c];
    if (component.name.empty() || component.modes.empty()) {
      throw ModelError(where + ": a component needs a name and at least one mode");
    }
    model.state_names.push_back(component.name);
    model.x0.push_back(S(component.initial.empty() ? 0 : local(component, component.initial, "the initial mode")));
  }
  const std::size_t n = model.state_names.size();
  if (!model.state_atol.empty()) model.state_atol.resize(n, std::numeric_limits<S>::quiet_NaN());
  for (auto& mode : model.modes) {
    if (!mode.field) continue;
    mode.field = [field = std::move(mode.field), first, n](S t, const S* x, S* dxdt) {
      field(t, x, dxdt);
      for (std::size_t j = first; j < n; ++j) dxdt[j] = S(0);
    };
  }
  for (std::size_t c = 0; c < components.size(); ++c) {
    const std::size_t q = first + c;
    const int part = static_cast<int>(model.parts.size());
    ModelPart<S> info{components[c].name, components[c].name + ".zeno", {}};
    if (!components[c].zeno_mode.empty()) {
      const S rest = S(local(components[c], components[c].zeno_mode, "the Zeno continuation's mode"));
      info.zeno_reset = [q, rest, user = std::move(components[c].zeno_reset)](S t, const S* x, S* x_plus) {
        if (user) user(t, x, x_plus);
        x_plus[q] = rest;
      };
    }
    model.parts.push_back(std::move(info));
    for (auto& tr : components[c].transitions) {
      const S from = S(local(components[c], tr.from, "transition '" + tr.name + "' leaves"));
      const S to = S(local(components[c], tr.to, "transition '" + tr.name + "' enters"));
      auto in_mode = Guard<S>::atom(
          components[c].name + " == " + tr.from, [q, from](S, const S* x) { return x[q] == from ? S(-1) : S(1); },
          Relation::kLess, [](S, const S*, const S*) { return S(0); });
      ResetFunction<S> reset = [q, to, user = std::move(tr.reset)](S t, const S* x_pre, S* x_post) {
        if (user) user(t, x_pre, x_post);
        x_post[q] = to;
      };
      const std::string label = components[c].name + "." + tr.name;
      for (auto& mode : model.modes) {
        if (!mode.field) continue;
        model.add_transition(mode.name, mode.name, label, Guard<S>(in_mode) && Guard<S>(tr.guard), reset);
        mode.transitions.back().part = part;
      }
    }
  }
  return first;
}

}  // namespace hysim
