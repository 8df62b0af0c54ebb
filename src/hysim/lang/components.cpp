#include "hysim/lang/components.hpp"

#include <map>
#include <set>

#include "hysim/lang/guards.hpp"

namespace hysim::lang {

void ComponentResolver::declare() {
  for (const ComponentSyntax& c : syntax_.components) {
    const int state = static_cast<int>(spec_.states.size());
    spec_.components.push_back(ComponentSpec{c.name, -1, -1, {}});
    if (!expressions_.declare(c.name, c.where, NameKind::kState, state)) {
      state_of_.push_back(-1);
      continue;
    }
    spec_.components.back().state = state;
    if (c.modes.empty()) {
      expressions_.error(c.where, "component '" + c.name + "' declares no mode: add 'mode NAME { der(x) = ... }'");
    }
    std::string names;
    std::set<std::string> seen;
    for (std::size_t m = 0; m < c.modes.size(); ++m) {
      const ModeSyntax& mode = c.modes[m];
      if (!seen.insert(mode.name).second) {
        expressions_.error(mode.where, "mode '" + mode.name + "' is declared twice in component '" + c.name + "'");
      }
      if (mode.algebraic) {
        expressions_.error(mode.where, "mode '" + mode.name + "' of component '" + c.name +
                                           "' is algebraic; a component's modes give derivatives");
      }
      names += (m == 0 ? "" : ", ") + std::to_string(m) + ": " + mode.name;
    }
    const int initial = c.initial.empty() ? 0 : local_mode(c, c.initial, c.initial_where);
    spec_.states.push_back(StateInfo{c.name, spec_.graph.constant(std::to_string(initial < 0 ? 0 : initial)),
                                     "the mode of component " + c.name + " (" + names + ")", c.where});
    state_of_.push_back(state);
  }
}

std::vector<NodeId> ComponentResolver::fields() {
  Graph& g = spec_.graph;
  std::vector<NodeId> field(spec_.states.size(), -1);
  owner_.assign(spec_.states.size(), std::string());
  for (std::size_t k = 0; k < syntax_.components.size(); ++k) {
    if (state_of_[k] >= 0) owner_[static_cast<std::size_t>(state_of_[k])] = syntax_.components[k].name;
  }
  for (std::size_t k = 0; k < syntax_.components.size(); ++k) {
    const ComponentSyntax& c = syntax_.components[k];
    const int q = state_of_[k];
    if (q < 0) continue;
    field[static_cast<std::size_t>(q)] = g.constant("0");
    std::vector<std::map<int, NodeId>> given(c.modes.size());  // per local mode: state -> derivative
    std::set<int> owned;
    for (std::size_t m = 0; m < c.modes.size(); ++m) {
      for (const Equation& eq : c.modes[m].derivatives) {
        const NameInfo* found = expressions_.find_name(eq.state);
        if (found == nullptr || found->kind != NameKind::kState) {
          expressions_.error(eq.where, "der() of '" + eq.state + "', which is no state");
          continue;
        }
        const int s = found->index;
        if (!owner_[static_cast<std::size_t>(s)].empty() && owner_[static_cast<std::size_t>(s)] != c.name) {
          expressions_.error(eq.where, "component '" + c.name + "' gives der(" + eq.state + "), which component '" +
                                           owner_[static_cast<std::size_t>(s)] + "' gives or is");
          continue;
        }
        if (s == q) {
          expressions_.error(eq.where, "'" + eq.state + "' is the mode of its component; it has no derivative");
          continue;
        }
        NodeId value = -1;
        if (!given[m].emplace(s, value).second) {
          expressions_.error(eq.where, "der(" + eq.state + ") is given twice in mode '" + c.modes[m].name + "'");
          continue;
        }
        if (!expressions_.number(*eq.value, Context::kField, &value, "der(" + eq.state + ")")) value = g.constant("0");
        given[m][s] = value;
        owned.insert(s);
      }
    }
    for (const int s : owned) {  // der(x) = if q == 0 then f_0 else if q == 1 then f_1 ... else f_last
      owner_[static_cast<std::size_t>(s)] = c.name;
      NodeId chosen = -1;
      for (std::size_t m = c.modes.size(); m-- > 0;) {
        const auto it = given[m].find(s);
        if (it == given[m].end()) {
          expressions_.error(c.modes[m].where, "mode '" + c.modes[m].name + "' of component '" + c.name +
                                                   "' gives no derivative for state '" +
                                                   spec_.states[static_cast<std::size_t>(s)].name +
                                                   "', which the component's other modes give");
          continue;
        }
        const NodeId here = g.apply(Op::kEqual, {g.leaf(Op::kState, q), g.constant(std::to_string(m))});
        chosen = chosen < 0 ? it->second : g.apply(Op::kSelect, {here, it->second, chosen});
      }
      if (chosen >= 0 && g.height(chosen) > Graph::kMaxHeight) {  // one choice per local mode, nested
        expressions_.error(c.where, "component '" + c.name + "' chooses der(" +
                                        spec_.states[static_cast<std::size_t>(s)].name + ") among too many modes ("
                                        "more than " + std::to_string(Graph::kMaxHeight) + " operations deep)");
        chosen = g.constant("0");
      }
      field[static_cast<std::size_t>(s)] = chosen;
    }
  }
  return field;
}

const std::string& ComponentResolver::owner(std::size_t s) const {
  static const std::string kNone;
  return s < owner_.size() ? owner_[s] : kNone;
}

void ComponentResolver::transitions(const Resets& resets) {
  Graph& g = spec_.graph;
  for (std::size_t k = 0; k < syntax_.components.size(); ++k) {
    const ComponentSyntax& c = syntax_.components[k];
    const int q = state_of_[k];
    if (q < 0) continue;
    if (c.zeno) {
      ComponentSpec& component = spec_.components[k];
      component.zeno_mode = local_mode(c, c.zeno->target, c.zeno->where);
      component.zeno_resets = resets(c.zeno->resets, "the zeno continuation of component '" + c.name + "'");
      for (const auto& reset : component.zeno_resets) {
        if (reset.first == q) expressions_.error(c.zeno->where, "the zeno continuation of component '" + c.name +
                                                                    "' resets its mode: its target does");
      }
      if (component.zeno_mode >= 0) component.zeno_resets.emplace_back(q, g.constant(std::to_string(component.zeno_mode)));
    }
    for (const TransitionSyntax& t : c.transitions) {
      TransitionSpec tr;
      tr.label = c.name + "." + t.label;
      tr.where = t.label_where;
      tr.part = static_cast<int>(k);
      const int to = local_mode(c, t.to, t.to_where);
      const int root = guard_tree(*t.guard, &expressions_, &spec_, &tr);
      tr.resets = resets(t.resets, "transition '" + tr.label + "'");
      for (const auto& reset : tr.resets) {
        if (reset.first == q) expressions_.error(t.label_where, "transition '" + tr.label + "' resets '" + c.name +
                                                                     "', the mode of its component: its target does");
      }
      std::vector<int> sources;
      for (std::size_t m = 0; t.from.empty() && m < c.modes.size(); ++m) sources.push_back(static_cast<int>(m));
      for (const auto& [name, where] : t.from) sources.push_back(local_mode(c, name, where));
      if (to < 0 || root < 0) continue;
      tr.resets.emplace_back(q, g.constant(std::to_string(to)));
      for (const int from : sources) {
        if (from < 0) continue;
        TransitionSpec local = tr;  // (component in `from`) && guard; e = -1 there, +1 elsewhere
        AtomSpec in_mode;
        in_mode.name = c.name + " == " + std::to_string(from);
        in_mode.e = g.apply(Op::kSelect, {g.apply(Op::kEqual, {g.leaf(Op::kState, q), g.constant(std::to_string(from))}),
                                          g.constant("-1"), g.constant("1")});
        in_mode.relation = Relation::kLess;
        in_mode.rate = g.constant("0");  // it changes at events only
        in_mode.where = t.label_where;
        local.atoms.push_back(std::move(in_mode));
        local.guard.push_back(GuardNode{GuardNode::Kind::kAtom, static_cast<int>(local.atoms.size()) - 1, {}});
        local.guard.push_back(GuardNode{GuardNode::Kind::kAnd, -1, {static_cast<int>(local.guard.size()) - 1, root}});
        for (std::size_t m = 0; m < spec_.modes.size(); ++m) {
          if (spec_.modes[m].algebraic) continue;
          local.from = local.to = static_cast<int>(m);
          spec_.transitions.push_back(local);
        }
      }
    }
  }
}

int ComponentResolver::local_mode(const ComponentSyntax& c, const std::string& name, Location where) {
  for (std::size_t m = 0; m < c.modes.size(); ++m) {
    if (c.modes[m].name == name) return static_cast<int>(m);
  }
  expressions_.error(where, "component '" + c.name + "' has no mode '" + name + "'");
  return -1;
}

}  // namespace hysim::lang
