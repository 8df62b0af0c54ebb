#include "hysim/lang/expr.hpp"

#include <algorithm>
#include <cstring>

#include "hysim/lang/operators.hpp"

namespace hysim::lang {

const char* op_spelling(Op op) { return operator_of(op).name; }

// pow(a, b) is a ^ b, spelled as C and most modelling tools spell it.
constexpr const char* kPowerFunction = "pow";

bool find_function(const std::string& name, Op* op, int* arity) {
  if (name == kPowerFunction) {
    *op = Op::kPower;
    *arity = 2;
    return true;
  }
  for (const auto& f : kOperators<double>) {
    if (f.function && name == f.name) {
      *op = f.op;
      *arity = f.arity;
      return true;
    }
  }
  return false;
}

std::vector<std::string> function_names() {
  std::vector<std::string> names = {kPowerFunction};
  for (const auto& f : kOperators<double>) {
    if (f.function) names.emplace_back(f.name);
  }
  return names;
}

bool is_square(const Graph& graph, const Node& node) {
  if (node.op != Op::kPower) return false;
  const Node& exponent = graph[node.args[1]];
  return exponent.op == Op::kConstant && exponent.text == "2";
}

bool is_comparison(Op op) { return op >= Op::kLess && op <= Op::kNotEqual; }
bool is_boolean(Op op) { return op >= Op::kLess || op == Op::kJumping; }

NodeId Graph::intern(Node node) {
  auto key = std::make_tuple(node.op, node.index, node.text, node.args);
  const auto found = index_.find(key);
  if (found != index_.end()) return found->second;
  std::uint8_t flags = 0;
  switch (node.op) {
    case Op::kState: flags = kReadsState; break;
    case Op::kPrior: flags = kReadsState | kReadsPrior; break;
    case Op::kTime: flags = kReadsTime; break;
    case Op::kJumping: flags = kReadsPrior | kReadsJumping; break;
    case Op::kFieldValue: flags = kReadsField; break;
    default: break;
  }
  int height = 1;
  for (NodeId arg : node.args) {
    flags |= flags_[static_cast<std::size_t>(arg)];
    height = std::max(height, heights_[static_cast<std::size_t>(arg)] + 1);
  }
  const auto id = static_cast<NodeId>(nodes_.size());
  nodes_.push_back(std::move(node));
  flags_.push_back(flags);
  heights_.push_back(height);
  index_.emplace(std::move(key), id);
  return id;
}

NodeId Graph::constant(const std::string& text) { return intern(Node{Op::kConstant, -1, text, {}}); }
NodeId Graph::leaf(Op op, int index) {
  return intern(Node{op, op == Op::kTime || op == Op::kJumping ? -1 : index, {}, {}});
}
NodeId Graph::apply(Op op, std::vector<NodeId> args) { return intern(Node{op, -1, {}, std::move(args)}); }

bool Graph::is_constant(NodeId id) const { return flags_[static_cast<std::size_t>(id)] == 0; }
bool Graph::reads_prior(NodeId id) const { return (flags_[static_cast<std::size_t>(id)] & kReadsPrior) != 0; }
bool Graph::reads_jumping(NodeId id) const { return (flags_[static_cast<std::size_t>(id)] & kReadsJumping) != 0; }
bool Graph::reads_time(NodeId id) const { return (flags_[static_cast<std::size_t>(id)] & kReadsTime) != 0; }
bool Graph::reads_state(NodeId id) const { return (flags_[static_cast<std::size_t>(id)] & kReadsState) != 0; }

NodeId Graph::time_root(NodeId e) {
  if ((*this)[e].op == Op::kTime) return constant("0");
  const Node& n = (*this)[e];
  if (n.op != Op::kSubtract) return -1;
  const Node& a = (*this)[n.args[0]];
  const Node& b = (*this)[n.args[1]];
  if (a.op == Op::kTime && is_constant(n.args[1])) return n.args[1];
  if (b.op == Op::kTime && is_constant(n.args[0])) return n.args[0];
  return -1;
}

NodeId Graph::without_prior(NodeId id) {
  if (!reads_prior(id)) return id;
  const Node node = (*this)[id];
  if (node.op == Op::kPrior) return leaf(Op::kState, node.index);
  std::vector<NodeId> args;
  for (NodeId a : node.args) args.push_back(without_prior(a));
  return apply(node.op, std::move(args));
}

bool Graph::is_literal(NodeId id, const char* text) const {
  const Node& n = (*this)[id];
  return n.op == Op::kConstant && n.text == text;
}

// The identities below hold exactly in IEEE arithmetic (a + (-b) and a - b round the same
// real number; (-1)*b is -b), so the rates they build are the derivatives rounded as written.
NodeId Graph::sum(NodeId a, NodeId b) {
  if (is_literal(a, "0")) return b;
  if (is_literal(b, "0")) return a;
  if ((*this)[b].op == Op::kNegate) return difference(a, (*this)[b].args[0]);
  if ((*this)[a].op == Op::kNegate) return difference(b, (*this)[a].args[0]);
  return apply(Op::kAdd, {a, b});
}
NodeId Graph::difference(NodeId a, NodeId b) {
  if (is_literal(b, "0")) return a;
  if (is_literal(a, "0")) return negative(b);
  if ((*this)[b].op == Op::kNegate) return sum(a, (*this)[b].args[0]);
  return apply(Op::kSubtract, {a, b});
}
NodeId Graph::product(NodeId a, NodeId b) {
  if (is_literal(a, "0") || is_literal(b, "0")) return constant("0");
  if (is_literal(a, "1")) return b;
  if (is_literal(b, "1")) return a;
  if (is_literal(a, "-1")) return negative(b);
  if (is_literal(b, "-1")) return negative(a);
  return apply(Op::kMultiply, {a, b});
}
NodeId Graph::quotient(NodeId a, NodeId b) {
  if (is_literal(a, "0")) return constant("0");
  if (is_literal(b, "1")) return a;
  return apply(Op::kDivide, {a, b});
}
NodeId Graph::negative(NodeId a) {
  if (is_literal(a, "0")) return a;
  const Node& n = (*this)[a];
  if (n.op == Op::kNegate) return n.args[0];
  if (n.op == Op::kConstant) {  // the negation of a literal is exact in every scalar type
    return constant(n.text[0] == '-' ? n.text.substr(1) : "-" + n.text);
  }
  return apply(Op::kNegate, {a});
}

NodeId Graph::derivative_by_state(NodeId id, int state) {
  std::map<NodeId, NodeId> memo;
  return derivative(id, state, &memo);
}
NodeId Graph::derivative_by_time(NodeId id) {
  std::map<NodeId, NodeId> memo;
  return derivative(id, kByTime, &memo);
}
NodeId Graph::rate(NodeId id) {
  std::map<NodeId, NodeId> memo;
  return derivative(id, kAlongField, &memo);
}

// d(node)/d(variable): by the state `wrt` (wrt >= 0), by t (kByTime), or along the field
// (kAlongField: the tangent of x_i is f_i and that of t is 1, forward-mode differentiation).
// Chain rule per operation; the derivative of a boolean, of sign, floor and ceil is 0 almost
// everywhere (they are piecewise constant: their jumps are switching surfaces, not part of a
// rate).
NodeId Graph::derivative(NodeId id, int wrt, std::map<NodeId, NodeId>* memo) {
  if (const auto hit = memo->find(id); hit != memo->end()) return hit->second;
  const Node node = (*this)[id];  // a copy: interning below may grow nodes_
  const NodeId zero = constant("0");
  const NodeId one = constant("1");
  const auto d = [&](std::size_t i) { return derivative(node.args[i], wrt, memo); };
  const auto arg = [&](std::size_t i) { return node.args[i]; };
  NodeId result = zero;
  const bool depends = wrt >= 0 ? reads_state(id) : wrt == kByTime ? reads_time(id) : !is_constant(id);
  if (!depends) {
    memo->emplace(id, zero);
    return zero;
  }
  switch (node.op) {
    case Op::kState:
    case Op::kPrior:
      result = wrt == kAlongField ? leaf(Op::kFieldValue, node.index) : node.index == wrt ? one : zero;
      break;
    case Op::kTime: result = wrt < 0 ? one : zero; break;
    case Op::kNegate: result = negative(d(0)); break;
    case Op::kAdd: result = sum(d(0), d(1)); break;
    case Op::kSubtract: result = difference(d(0), d(1)); break;
    case Op::kMultiply: result = sum(product(d(0), arg(1)), product(arg(0), d(1))); break;
    case Op::kDivide: {  // (a/b)' = a'/b - (a/b) b'/b
      const NodeId db = d(1);
      result = is_literal(db, "0") ? quotient(d(0), arg(1))
                                   : difference(quotient(d(0), arg(1)), quotient(product(id, db), arg(1)));
      break;
    }
    case Op::kPower: {
      // (a^b)' = b a^(b-1) a' + a^b log(a) b'
      const NodeId da = d(0);
      const NodeId db = d(1);
      NodeId first = zero;
      if (!is_literal(da, "0")) {
        first = product(product(arg(1), apply(Op::kPower, {arg(0), difference(arg(1), one)})), da);
      }
      NodeId second = zero;
      if (!is_literal(db, "0")) second = product(product(id, apply(Op::kLog, {arg(0)})), db);
      result = sum(first, second);
      break;
    }
    case Op::kAbs: result = product(apply(Op::kSign, {arg(0)}), d(0)); break;
    case Op::kMin:
      result = apply(Op::kSelect, {apply(Op::kLessEqual, {arg(0), arg(1)}), d(0), d(1)});
      break;
    case Op::kMax:
      result = apply(Op::kSelect, {apply(Op::kGreaterEqual, {arg(0), arg(1)}), d(0), d(1)});
      break;
    case Op::kStepped: result = d(0); break;
    case Op::kSelect: {
      const NodeId a = d(1);
      const NodeId b = d(2);
      result = a == b ? a : apply(Op::kSelect, {arg(0), a, b});
      break;
    }
    default: result = elementary(id, node, wrt, memo); break;
  }
  memo->emplace(id, result);
  return result;
}

// The chain rule for the elementary functions (sqrt ... tanh, atan2); 0 for the others: sign,
// floor, ceil, booleans, constants, parameters.
NodeId Graph::elementary(NodeId id, const Node& node, int wrt, std::map<NodeId, NodeId>* memo) {
  const NodeId one = constant("1");
  const auto d = [&](std::size_t i) { return derivative(node.args[i], wrt, memo); };
  const auto arg = [&](std::size_t i) { return node.args[i]; };
  NodeId result = constant("0");
  switch (node.op) {
    case Op::kSqrt: result = quotient(d(0), product(constant("2"), id)); break;
    case Op::kExp: result = product(id, d(0)); break;
    case Op::kLog: result = quotient(d(0), arg(0)); break;
    case Op::kSin: result = product(apply(Op::kCos, {arg(0)}), d(0)); break;
    case Op::kCos: result = negative(product(apply(Op::kSin, {arg(0)}), d(0))); break;
    case Op::kTan: {
      const NodeId c = apply(Op::kCos, {arg(0)});
      result = quotient(d(0), product(c, c));
      break;
    }
    case Op::kAsin:
    case Op::kAcos: {
      const NodeId root = apply(Op::kSqrt, {difference(one, product(arg(0), arg(0)))});
      result = quotient(d(0), root);
      if (node.op == Op::kAcos) result = negative(result);
      break;
    }
    case Op::kAtan: result = quotient(d(0), sum(one, product(arg(0), arg(0)))); break;
    case Op::kAtan2: {  // atan2(y, x)' = (x y' - y x') / (x^2 + y^2)
      const NodeId numerator = difference(product(arg(1), d(0)), product(arg(0), d(1)));
      result = quotient(numerator, sum(product(arg(1), arg(1)), product(arg(0), arg(0))));
      break;
    }
    case Op::kSinh: result = product(apply(Op::kCosh, {arg(0)}), d(0)); break;
    case Op::kCosh: result = product(apply(Op::kSinh, {arg(0)}), d(0)); break;
    case Op::kTanh: result = product(difference(one, product(id, id)), d(0)); break;
    default: break;
  }
  return result;
}

namespace {

// Binding strength for printing: higher binds tighter.
int precedence(Op op) {
  switch (op) {
    case Op::kOr: return 1;
    case Op::kAnd: return 2;
    case Op::kNot: return 3;
    case Op::kLess: case Op::kLessEqual: case Op::kGreater: case Op::kGreaterEqual: case Op::kEqual:
    case Op::kNotEqual: return 4;
    case Op::kAdd: case Op::kSubtract: return 5;
    case Op::kMultiply: case Op::kDivide: return 6;
    case Op::kNegate: return 7;
    case Op::kPower: return 8;
    case Op::kSelect: return 0;
    default: return 9;  // leaves and calls
  }
}

}  // namespace

std::string Graph::print(NodeId id, const std::function<std::string(const Node&)>& leaf_name) const {
  const Node& n = (*this)[id];
  const int mine = precedence(n.op);
  // A child is wrapped when it binds looser, or equally on the right of a left-associative
  // operator (a - (b - c)), or on the left of '^' (right-associative).
  const auto child = [&](std::size_t i, bool right) {
    const NodeId c = n.args[i];
    const int theirs = precedence((*this)[c].op);
    const bool wrap = theirs < mine || (theirs == mine && (n.op == Op::kPower ? !right : right));
    const std::string text = print(c, leaf_name);
    return wrap ? "(" + text + ")" : text;
  };
  switch (n.op) {
    case Op::kConstant: return n.text;
    case Op::kParameter: case Op::kState: case Op::kFieldValue: case Op::kTime: return leaf_name(n);
    case Op::kJumping: return "jumping";
    case Op::kPrior: return "prior(" + leaf_name(n) + ")";
    case Op::kNegate:
    case Op::kNot: {  // appended rather than "-" + text, which GCC 12 misreads (-Wrestrict)
      std::string out(n.op == Op::kNot ? "!" : "-");
      out += child(0, true);
      return out;
    }
    case Op::kSelect:
      return "if " + print(n.args[0], leaf_name) + " then " + print(n.args[1], leaf_name) + " else " +
             print(n.args[2], leaf_name);
    default: break;
  }
  if (precedence(n.op) < 9) {
    const char* op = op_spelling(n.op);
    const bool tight = n.op == Op::kMultiply || n.op == Op::kDivide || n.op == Op::kPower;
    return child(0, false) + (tight ? op : std::string(" ") + op + " ") + child(1, true);
  }
  std::string out = std::string(op_spelling(n.op)) + "(";
  for (std::size_t i = 0; i < n.args.size(); ++i) out += (i ? ", " : "") + print(n.args[i], leaf_name);
  return out + ")";
}

}  // namespace hysim::lang
