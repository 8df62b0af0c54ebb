#include "hysim/core/model.hpp"

#include <set>
#include <unordered_map>

#include "hysim/core/errors.hpp"

namespace hysim {

const char* relation_symbol(Relation relation) {
  switch (relation) {
    case Relation::kLess: return "<";
    case Relation::kLessEqual: return "<=";
    case Relation::kGreater: return ">";
    case Relation::kGreaterEqual: return ">=";
  }
  return "?";
}

template <class S>
int Model<S>::add_mode(std::string mode_name, FieldFunction<S> field, std::string description) {
  modes.push_back(Mode<S>{std::move(mode_name), std::move(description), std::move(field), {}});
  return static_cast<int>(modes.size()) - 1;
}

template <class S>
void Model<S>::add_transition(const std::string& from, const std::string& to,
                              std::string guard_name, Guard<S> guard, ResetFunction<S> reset) {
  const int from_index = find_mode(from);
  if (from_index < 0) {
    throw ModelError("model '" + name + "': transition '" + guard_name + "' leaves unknown mode '" +
                     from + "'");
  }
  modes[static_cast<std::size_t>(from_index)].transitions.push_back(
      Transition<S>{std::move(guard_name), to, -1, std::move(guard), std::move(reset)});
}

template <class S>
void Model<S>::add_crossing(const std::string& mode, std::string crossing_name, Guard<S> guard, ResetFunction<S> reset,
                            bool stop) {
  add_transition(mode, mode, std::move(crossing_name), std::move(guard), std::move(reset));
  Transition<S>& added = modes[static_cast<std::size_t>(find_mode(mode))].transitions.back();
  added.crossing = true;
  added.stop = stop;
}

template <class S>
int Model<S>::find_mode(const std::string& mode_name) const {
  for (std::size_t i = 0; i < modes.size(); ++i) {
    if (modes[i].name == mode_name) return static_cast<int>(i);
  }
  return -1;
}

template <class S>
void Model<S>::finalize() {
  const std::string where = "model '" + name + "'";
  if (modes.empty()) throw ModelError(where + " has no modes");
  if (state_names.empty()) throw ModelError(where + " has no state components");
  std::set<std::string> seen;
  for (const auto& state : state_names) {
    if (!seen.insert(state).second) throw ModelError(where + ": state '" + state + "' is named twice");
  }
  // Targets by a name index, not find_mode per transition: that was quadratic in the modes.
  std::unordered_map<std::string, int> index;
  index.reserve(modes.size());
  for (std::size_t i = 0; i < modes.size(); ++i) {
    if (!index.emplace(modes[i].name, static_cast<int>(i)).second) {
      throw ModelError(where + ": mode '" + modes[i].name + "' is named twice");
    }
  }
  for (auto& mode : modes) {
    for (auto& transition : mode.transitions) {
      const auto found = index.find(transition.target_name);
      transition.target = found == index.end() ? -1 : found->second;
      if (transition.target < 0) {
        throw ModelError(where + ", mode '" + mode.name + "', transition '" + transition.name +
                         "': unknown target mode '" + transition.target_name + "'");
      }
      if (transition.crossing && &modes[static_cast<std::size_t>(transition.target)] != &mode) {
        throw ModelError(where + ", mode '" + mode.name + "', crossing '" + transition.name +
                         "': a crossing keeps its mode, but its target is '" + transition.target_name + "'");
      }
      if (transition.crossing && !mode.field) {
        throw ModelError(where + ", mode '" + mode.name + "', crossing '" + transition.name +
                         "': the mode is algebraic (no field): nothing crosses in it");
      }
      if (transition.guard.empty()) {
        throw ModelError(where + ", mode '" + mode.name + "', transition '" + transition.name +
                         "': empty guard");
      }
      if (transition.part < -1 || transition.part >= static_cast<int>(parts.size())) {
        throw ModelError(where + ", mode '" + mode.name + "', transition '" + transition.name + "': part " +
                         std::to_string(transition.part) + " out of range (the model has " +
                         std::to_string(parts.size()) + ")");
      }
    }
  }
  if (initial_mode < 0 || initial_mode >= static_cast<int>(modes.size())) {
    throw ModelError(where + ": initial mode index " + std::to_string(initial_mode) + " out of range");
  }
  if (!modes[static_cast<std::size_t>(initial_mode)].field) {
    throw ModelError(where + ": the initial mode '" + modes[static_cast<std::size_t>(initial_mode)].name +
                     "' is algebraic (no field)");
  }
  if (!zeno.mode_name.empty()) {
    zeno.mode = find_mode(zeno.mode_name);
    if (zeno.mode < 0) throw ModelError(where + ": unknown Zeno continuation mode '" + zeno.mode_name + "'");
    if (!modes[static_cast<std::size_t>(zeno.mode)].field) {
      throw ModelError(where + ": the Zeno continuation mode '" + zeno.mode_name + "' is algebraic (no field)");
    }
  }
  if (x0.size() != state_names.size()) {
    throw ModelError(where + ": initial state has " + std::to_string(x0.size()) +
                     " components, the state layout has " + std::to_string(state_names.size()));
  }
  if (jacobian_pattern) {
    try {
      jacobian_pattern->validate(state_names.size(), where.c_str());
    } catch (const InvalidArgument& error) {
      throw ModelError(error.what());
    }
  }
}

template struct Model<double>;
template struct Model<long double>;
template struct Model<float128>;

}  // namespace hysim
