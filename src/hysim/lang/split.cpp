// Switches inside a field become located events (docs/model-language.md, "Switches inside a
// field"). A field that reads `if c then a else b`, or sign, abs, min or max of the state or
// of t, is discontinuous (or not smooth) where the condition changes; a Runge-Kutta step
// across that surface loses its order and the switch goes unrecorded. The compiler splits
// such a mode m into one mode per combination of the branches, m[+-...] (one sign per
// condition: + holds, - fails), whose field has every branch frozen, and joins them by
// implicit transitions whose guards are the conditions: the engine then locates each switch
// one-sidedly like any other event (transition label switch1, switch2...), and a surface that
// both neighbours push towards becomes a sliding mode (Filippov), as with explicit modes.
//
//   construct      condition c            frozen when c holds / fails
//   if c then a else b   c                 a / b
//   abs(a)          a >= 0                a / -a
//   sign(a)         a >= 0                1 / -1
//   min(a, b)       b < a                 b / a        (std::min's tie rule)
//   max(a, b)       a < b                 b / a        (std::max's tie rule)
//
// Transitions into m enter m[all conditions false]; when the state there satisfies some
// condition, the implicit transition fires at once and the chain moves on (the intermediate
// mode is mythical, 003), so the right branch is reached within the event. The initial mode
// is chosen by the conditions at the initial state. User transitions out of m are copied to
// every part, before the implicit ones (they keep their priority).
//
// A mode whose field switches on two or more conditions, each one comparison of something that
// reads the state, and whose surfaces' rates along the field each read no other condition's
// branch, is not split: each condition becomes a switch part
// (core/switch_parts.hpp, PartMaker below), a state sigma read by the field, so that k
// independent switches cost k states instead of 2^k modes and each slides on its own surface.
// One condition keeps the two modes (the engine classifies its sliding); coupled surfaces keep
// the modes and their corners (Dieci and Lopez's bilinear weights).
#include <algorithm>
#include <map>
#include <set>

#include "hysim/lang/spec.hpp"

namespace hysim::lang {

namespace {

// More switching functions than this in one mode would make 2^k modes: unless they can be
// switch parts, the mode is left whole (its switches stepped across) and a warning says so.
constexpr int kMaxSwitches = 5;

// The condition a switching construct branches on, or -1.
NodeId condition_of(Graph& g, const Node& node) {
  const NodeId zero = g.constant("0");
  switch (node.op) {
    case Op::kSelect: return node.args[0];
    case Op::kAbs:
    case Op::kSign: return g.apply(Op::kGreaterEqual, {node.args[0], zero});
    case Op::kMin: return g.apply(Op::kLess, {node.args[1], node.args[0]});
    case Op::kMax: return g.apply(Op::kLess, {node.args[0], node.args[1]});
    default: return -1;
  }
}

// The expression with each switching construct (if, abs, sign, min, max) replaced by what
// `replace(op, condition, rewritten arguments)` gives for it (-1: kept), inside out; a
// stepped(...) is kept whole.
template <class Replace>
NodeId rewrite_switches(Graph& g, NodeId id, const Replace& replace, std::map<NodeId, NodeId>* memo) {
  if (g.is_constant(id)) return id;
  if (const auto hit = memo->find(id); hit != memo->end()) return hit->second;
  const Node node = g[id];
  if (node.op == Op::kStepped) return id;
  std::vector<NodeId> args;
  for (NodeId a : node.args) args.push_back(rewrite_switches(g, a, replace, memo));
  const NodeId c = condition_of(g, node);
  NodeId result = c >= 0 ? replace(node.op, c, args) : -1;
  if (result < 0) result = node.args.empty() ? id : g.apply(node.op, std::move(args));
  memo->emplace(id, result);
  return result;
}

// Switch parts of a one-mode model's many conditions (core/switch_parts.hpp).
class PartMaker {
 public:
  explicit PartMaker(ModelSpec* spec) : spec_(*spec), g_(spec->graph) {}

  // A mode whose field switches on two or more conditions: each condition becomes a switch part (core/switch_parts.hpp) with a state sigma of its own,
  // which the field reads as Filippov's convex combination of the two branches
  //   if c then a else b -> (1 + sigma)/2 a + (1 - sigma)/2 b    abs(a) -> sigma a
  //   sign(a) -> sigma     min, max -> as `if` on their condition
  // (exactly the branch at sigma = +1 or -1, b finite). Its surface s is a - b for c = a >= b
  // or a > b, b - a for a < b or a <= b; its rates are ds/dt along the field with sigma at +1
  // and at -1. False, nothing changed, when a condition is not one comparison of something that
  // reads the state (a time event keeps its exact root as a mode's guard) or a rate reads
  // another part's sigma (surfaces that slide together are solved one by one).
  bool make(const ModeSpec& mode, const std::vector<NodeId>& found, int index, ModeSpec* out) {
    const int first = static_cast<int>(spec_.states.size()), count = static_cast<int>(found.size());
    std::map<NodeId, NodeId> sigma;
    std::vector<NodeId> surfaces;
    for (int j = 0; j < count; ++j) {
      const Node c = g_[found[static_cast<std::size_t>(j)]];
      const bool up = c.op == Op::kGreater || c.op == Op::kGreaterEqual;
      if (!up && c.op != Op::kLess && c.op != Op::kLessEqual) return false;
      if (!g_.reads_state(found[static_cast<std::size_t>(j)])) return false;  // a time event: modes locate it exactly
      surfaces.push_back(g_.apply(Op::kSubtract, {c.args[up ? 0 : 1], c.args[up ? 1 : 0]}));
      sigma[found[static_cast<std::size_t>(j)]] = g_.leaf(Op::kState, first + j);
    }
    ModeSpec with_parts = mode;
    std::map<NodeId, NodeId> memo;
    for (NodeId& d : with_parts.field) d = soften(d, sigma, &memo);
    std::vector<PartSpec> parts;
    for (int j = 0; j < count; ++j) {
      PartSpec part;
      part.state = first + j;
      part.surface = surfaces[static_cast<std::size_t>(j)];
      std::map<NodeId, NodeId> along_memo;
      const NodeId along = substitute(g_.rate(part.surface), [&](const Node& leaf) {
        return leaf.op == Op::kFieldValue ? with_parts.field[static_cast<std::size_t>(leaf.index)] : -1;
      }, &along_memo);
      for (const char* side : {"1", "-1"}) {
        std::map<NodeId, NodeId> side_memo;
        const NodeId value = g_.constant(side);
        (side[0] == '1' ? part.rate_up : part.rate_down) = substitute(along, [&](const Node& leaf) {
          return leaf.op == Op::kState && leaf.index == part.state ? value : -1;
        }, &side_memo);
      }
      std::set<int> reads;
      std::set<NodeId> seen;
      for (NodeId id : {part.surface, part.rate_up, part.rate_down}) states_read(id, &reads, &seen);
      for (int r : reads) {
        if (r >= first) return false;
        part.reads.push_back(r);
      }
      part.name = unused_name("switch" + std::to_string(spec_.parts.size() + static_cast<std::size_t>(j) + 1));
      part.mode = index;
      part.where = mode.where;
      parts.push_back(std::move(part));
    }
    for (int j = 0; j < count; ++j) {
      const PartSpec& part = parts[static_cast<std::size_t>(j)];
      spec_.states.push_back(StateInfo{part.name, g_.constant("1"),
                                       "the switch part of " + spec_.print(found[static_cast<std::size_t>(j)]),
                                       mode.where});
    }
    spec_.parts.insert(spec_.parts.end(), parts.begin(), parts.end());
    *out = std::move(with_parts);
    return true;
  }

 private:
  // The field with each switching construct of a part's condition read through its sigma.
  NodeId soften(NodeId id, const std::map<NodeId, NodeId>& sigma, std::map<NodeId, NodeId>* memo) {
    const auto read = [&](Op op, NodeId c, const std::vector<NodeId>& args) -> NodeId {
      const auto s = sigma.find(c);
      if (s == sigma.end()) return -1;
      const NodeId one = g_.constant("1"), two = g_.constant("2");
      const auto weigh = [&](NodeId holds, NodeId fails) {  // (1 + sigma)/2 holds + (1 - sigma)/2 fails
        const NodeId up = g_.apply(Op::kDivide, {g_.apply(Op::kAdd, {one, s->second}), two});
        const NodeId down = g_.apply(Op::kDivide, {g_.apply(Op::kSubtract, {one, s->second}), two});
        return g_.apply(Op::kAdd, {g_.apply(Op::kMultiply, {up, holds}), g_.apply(Op::kMultiply, {down, fails})});
      };
      switch (op) {
        case Op::kSelect: return weigh(args[1], args[2]);
        case Op::kAbs: return g_.apply(Op::kMultiply, {s->second, args[0]});
        case Op::kSign: return s->second;
        case Op::kMin: case Op::kMax: return weigh(args[1], args[0]);
        default: return -1;
      }
    };
    return rewrite_switches(g_, id, read, memo);
  }

  // id with each leaf for which `replace` gives a node (not -1) replaced by it.
  template <class Replace>
  NodeId substitute(NodeId id, const Replace& replace, std::map<NodeId, NodeId>* memo) {
    if (g_.is_constant(id)) return id;
    if (const auto hit = memo->find(id); hit != memo->end()) return hit->second;
    const Node node = g_[id];
    NodeId result = id;
    if (node.args.empty()) {
      if (const NodeId r = replace(node); r >= 0) result = r;
    } else {
      std::vector<NodeId> args;
      for (NodeId a : node.args) args.push_back(substitute(a, replace, memo));
      if (args != node.args) result = g_.apply(node.op, std::move(args));
    }
    memo->emplace(id, result);
    return result;
  }

  void states_read(NodeId id, std::set<int>* reads, std::set<NodeId>* seen) const {
    if (g_.is_constant(id) || !seen->insert(id).second) return;
    const Node& node = g_[id];
    if (node.op == Op::kState || node.op == Op::kPrior) reads->insert(node.index);
    for (NodeId a : node.args) states_read(a, reads, seen);
  }

  // `name`, or it with underscores appended until no state, parameter or let has it.
  std::string unused_name(std::string name) const {
    const auto taken = [&](const std::string& candidate) {
      for (const auto& x : spec_.states) if (x.name == candidate) return true;
      for (const auto& p : spec_.parameters) if (p.name == candidate) return true;
      for (const auto& l : spec_.lets) if (l.name == candidate) return true;
      return false;
    };
    while (taken(name)) name += "_";
    return name;
  }

  ModelSpec& spec_;
  Graph& g_;
};

class Splitter {
 public:
  explicit Splitter(ModelSpec* spec) : spec_(*spec), g_(spec->graph) {}

  void run() {
    std::vector<ModeSpec> modes = split_modes();
    for (ModeSpec& mode : modes) {  // the parts' states change at events only
      if (!mode.algebraic) mode.field.resize(spec_.states.size(), g_.constant("0"));
    }
    if (modes.size() == spec_.modes.size()) {  // nothing split; a mode's conditions may be parts
      if (!spec_.parts.empty()) spec_.modes = std::move(modes);
      return;
    }
    std::vector<TransitionSpec> transitions = split_transitions();
    std::vector<ModelSpec::Initial> initial = split_initial();
    if (spec_.zeno) spec_.zeno->mode = parts_[static_cast<std::size_t>(spec_.zeno->mode)][0];
    spec_.modes = std::move(modes);
    spec_.transitions = std::move(transitions);
    spec_.initial = std::move(initial);
  }

 private:
  // The parts of every mode (parts_: old mode -> new indices) and the conditions each
  // switches on (conditions_), one mode per combination of its branches.
  std::vector<ModeSpec> split_modes() {
    std::vector<ModeSpec> modes;
    parts_.assign(spec_.modes.size(), {});
    conditions_.assign(spec_.modes.size(), {});
    for (std::size_t m = 0; m < spec_.modes.size(); ++m) {
      const ModeSpec& mode = spec_.modes[m];
      std::vector<NodeId> found;
      if (!mode.algebraic) found = switches_of(mode.field);
      if (found.size() >= 2) {  // parts, not 2^k modes, where they can be
        ModeSpec with_parts;
        if (PartMaker(&spec_).make(mode, found, static_cast<int>(modes.size()), &with_parts)) {
          conditions_[m] = {};
          parts_[m].push_back(static_cast<int>(modes.size()));
          modes.push_back(std::move(with_parts));
          continue;
        }
      }
      if (static_cast<int>(found.size()) > kMaxSwitches) {
        spec_.warnings.push_back(Diagnostic{Severity::kWarning, mode.where,
                                            "mode '" + mode.name + "' switches on " + std::to_string(found.size()) +
                                                " conditions; more than " + std::to_string(kMaxSwitches) +
                                                " are stepped across, not located (write them as modes; they are switch parts when each is "
                                                "one comparison of the state and no surface's rate reads another)"});
        found.clear();
      }
      conditions_[m] = found;
      if (found.empty()) {
        parts_[m].push_back(static_cast<int>(modes.size()));
        modes.push_back(mode);
        continue;
      }
      for (unsigned bits = 0; bits < (1u << found.size()); ++bits) {
        parts_[m].push_back(static_cast<int>(modes.size()));
        modes.push_back(part(mode, found, bits));
      }
    }
    return modes;
  }

  // The part of `mode` where condition j holds when bit j of `bits` is set.
  ModeSpec part(const ModeSpec& mode, const std::vector<NodeId>& found, unsigned bits) {
    ModeSpec part = mode;
    std::map<NodeId, bool> branch;
    std::string signs, label;
    for (std::size_t j = 0; j < found.size(); ++j) {
      const bool holds = (bits >> j) & 1u;
      branch[found[j]] = holds;
      signs += holds ? '+' : '-';
      label += (j ? ", " : "") + condition_text(found[j], holds);
    }
    part.name = mode.name + "[" + signs + "]";  // one sign per condition: + holds, - fails
    part.description = mode.description + (mode.description.empty() ? "" : "; ") + "while " + label;
    std::map<NodeId, NodeId> memo;
    for (NodeId& d : part.field) d = freeze(d, branch, &memo);
    return part;
  }

  // The user's transitions copied to every part, then the implicit switches between parts.
  std::vector<TransitionSpec> split_transitions() {
    std::vector<std::vector<const TransitionSpec*>> leaving(spec_.modes.size());  // not a scan per mode
    for (const TransitionSpec& tr : spec_.transitions) leaving[static_cast<std::size_t>(tr.from)].push_back(&tr);
    std::vector<TransitionSpec> transitions;
    for (std::size_t m = 0; m < spec_.modes.size(); ++m) {
      for (std::size_t p = 0; p < parts_[m].size(); ++p) {
        for (const TransitionSpec* leaving_tr : leaving[m]) {
          const TransitionSpec& tr = *leaving_tr;
          TransitionSpec copy = tr;
          copy.from = parts_[m][p];
          copy.to = tr.crossing ? copy.from : parts_[static_cast<std::size_t>(tr.to)][0];  // a crossing keeps its part
          transitions.push_back(std::move(copy));
        }
        for (std::size_t j = 0; j < conditions_[m].size(); ++j) {  // the implicit switches
          const bool holds = (p >> j) & 1u;
          TransitionSpec sw;
          sw.from = parts_[m][p];
          sw.to = parts_[m][p ^ (std::size_t{1} << j)];
          sw.label = "switch" + std::to_string(j + 1);
          sw.where = spec_.modes[m].where;
          guard_of(conditions_[m][j], holds, &sw);  // fires when the condition flips
          transitions.push_back(std::move(sw));
        }
      }
    }
    return transitions;
  }

  // An initial declaration of a split mode holds in the part its conditions choose.
  std::vector<ModelSpec::Initial> split_initial() {
    std::vector<ModelSpec::Initial> initial;
    for (const auto& i : spec_.initial) {
      const auto m = static_cast<std::size_t>(i.mode);
      for (std::size_t p = 0; p < parts_[m].size(); ++p) {
        NodeId condition = i.condition;
        for (std::size_t j = 0; j < conditions_[m].size(); ++j) {
          const NodeId c = (p >> j) & 1u ? conditions_[m][j] : g_.apply(Op::kNot, {conditions_[m][j]});
          condition = condition < 0 ? c : g_.apply(Op::kAnd, {condition, c});
        }
        initial.push_back(ModelSpec::Initial{parts_[m][p], condition, i.where});
      }
    }
    return initial;
  }

  // The conditions a field switches on, in order of first appearance.
  std::vector<NodeId> switches_of(const std::vector<NodeId>& field) {
    std::vector<NodeId> found;
    std::set<NodeId> seen;
    std::vector<NodeId> pending(field.rbegin(), field.rend());
    while (!pending.empty()) {
      const NodeId id = pending.back();
      pending.pop_back();
      if (!seen.insert(id).second || g_.is_constant(id)) continue;
      const Node node = g_[id];
      if (node.op == Op::kStepped) continue;  // the user asked for these switches to be stepped across
      const NodeId c = condition_of(g_, node);
      if (c >= 0 && !g_.is_constant(c) && locatable(c) &&
          std::find(found.begin(), found.end(), c) == found.end()) {
        found.push_back(c);
      }
      for (auto a = node.args.rbegin(); a != node.args.rend(); ++a) pending.push_back(*a);
    }
    return found;
  }

  // Conditions made of <, <=, >, >= joined by &&, || and !: the engine can locate them.
  bool locatable(NodeId c) const {
    const Node& n = g_[c];
    switch (n.op) {
      case Op::kLess: case Op::kLessEqual: case Op::kGreater: case Op::kGreaterEqual: return true;
      case Op::kAnd: case Op::kOr: return locatable(n.args[0]) && locatable(n.args[1]);
      case Op::kNot: return locatable(n.args[0]);
      default: return false;
    }
  }

  // The field with each switching construct replaced by its branch.
  NodeId freeze(NodeId id, const std::map<NodeId, bool>& branch, std::map<NodeId, NodeId>* memo) {
    const auto choose = [&](Op op, NodeId c, const std::vector<NodeId>& args) -> NodeId {
      const auto chosen = branch.find(c);
      if (chosen == branch.end()) return -1;
      const bool holds = chosen->second;
      switch (op) {
        case Op::kSelect: return holds ? args[1] : args[2];
        case Op::kAbs: return holds ? args[0] : g_.apply(Op::kNegate, {args[0]});
        case Op::kSign: return g_.constant(holds ? "1" : "-1");
        case Op::kMin: case Op::kMax: return holds ? args[1] : args[0];
        default: return -1;
      }
    };
    return rewrite_switches(g_, id, choose, memo);
  }

  // Adds the guard "c" (or "!c" when `negate`) to tr, De Morgan's rules pushing the negation
  // to the comparisons; returns the node index.
  int guard_of(NodeId c, bool negate, TransitionSpec* tr) {
    const Node n = g_[c];
    if (n.op == Op::kNot) return guard_of(n.args[0], !negate, tr);
    if (n.op == Op::kAnd || n.op == Op::kOr) {
      const int a = guard_of(n.args[0], negate, tr);
      const int b = guard_of(n.args[1], negate, tr);
      const bool conjunction = (n.op == Op::kAnd) != negate;
      tr->guard.push_back(GuardNode{conjunction ? GuardNode::Kind::kAnd : GuardNode::Kind::kOr, -1, {a, b}});
      return static_cast<int>(tr->guard.size()) - 1;
    }
    tr->atoms.push_back(comparison_atom(&spec_, n.op, n.args[0], n.args[1], negate));
    tr->guard.push_back(GuardNode{GuardNode::Kind::kAtom, static_cast<int>(tr->atoms.size()) - 1, {}});
    return static_cast<int>(tr->guard.size()) - 1;
  }

  // "x > 0" when the condition holds, "x <= 0" when a comparison fails, "!(...)" otherwise.
  std::string condition_text(NodeId c, bool holds) {
    const Node& n = g_[c];
    if (holds) return spec_.print(c);
    static const std::map<Op, Op> kFlip = {{Op::kLess, Op::kGreaterEqual}, {Op::kLessEqual, Op::kGreater},
                                           {Op::kGreater, Op::kLessEqual}, {Op::kGreaterEqual, Op::kLess}};
    if (const auto flip = kFlip.find(n.op); flip != kFlip.end()) {
      return spec_.print(g_.apply(flip->second, {n.args[0], n.args[1]}));
    }
    return "!(" + spec_.print(c) + ")";
  }

  ModelSpec& spec_;
  Graph& g_;
  std::vector<std::vector<int>> parts_;         // old mode -> its parts' indices
  std::vector<std::vector<NodeId>> conditions_;  // old mode -> the conditions it switches on
};

}  // namespace

void split_switching_modes(ModelSpec* spec) { Splitter(spec).run(); }

}  // namespace hysim::lang
