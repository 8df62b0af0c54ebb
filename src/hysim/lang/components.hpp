// The components of a model file (docs/model-language.md, "Components"), resolved as
// core/components.hpp builds them in C++: each component's local mode is a state of its own
// (named after it, holding the mode's index, derivative 0); the derivative of a state the
// component owns is its local modes' derivatives chosen by that state; and each local
// transition a -> b is, in every mode of the model with a field, a transition back into that
// mode named COMPONENT.LABEL, guarded by (the component is in a) && guard and resetting the
// component to b after its own resets. The global mode is never enumerated.
#pragma once

#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "hysim/lang/expressions.hpp"
#include "hysim/lang/spec.hpp"
#include "hysim/lang/syntax.hpp"

namespace hysim::lang {

class ComponentResolver {
 public:
  using Resets = std::function<std::vector<std::pair<int, NodeId>>(const std::vector<Equation>&, const std::string&)>;

  ComponentResolver(const ModelSyntax& syntax, ExpressionResolver* expressions, ModelSpec* spec)
      : syntax_(syntax), expressions_(*expressions), spec_(*spec) {}

  // The components' states, after the model's: names in the table, initial values the index
  // of each component's initial mode.
  void declare();
  // Per state: the derivative its component gives it, or -1 where no component owns it (the
  // components' own states: 0). Every local mode of a component gives every state it owns.
  std::vector<NodeId> fields();
  // The name of the component that owns state s ("" where none does), for messages.
  const std::string& owner(std::size_t s) const;
  // Every component's transitions, into each mode of the model with a field.
  void transitions(const Resets& resets);

 private:
  int local_mode(const ComponentSyntax& c, const std::string& name, Location where);

  const ModelSyntax& syntax_;
  ExpressionResolver& expressions_;
  ModelSpec& spec_;
  std::vector<int> state_of_;          // per component: its state, -1 where its name clashed
  std::vector<std::string> owner_;     // per state: the owning component's name
};

}  // namespace hysim::lang
