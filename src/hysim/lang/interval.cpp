#include "hysim/lang/interval.hpp"

#include <algorithm>
#include <cstdlib>
#include <cmath>
#include <limits>
#include <numbers>
#include <string>

namespace hysim::lang {

namespace {

using interval::add;
using interval::divide;
using interval::hull;
using interval::multiply;
using interval::negate;
using interval::outward;
using interval::subtract;

// A monotone library function f on [lo, hi], increasing or decreasing, within its domain.
// A library function at a point 0 or 1 whose value there is 0 or 1 (sin 0, cos 0, exp 0,
// log 1, acos 1, ...): those values are exact, in mathematics and in glibc, and stay points,
// so that a trajectory that starts on a switching surface is seen to lie on it.
bool exact_at(Interval a, double value) {
  return a.lo == a.hi && (a.lo == 0 || a.lo == 1) && (value == 0 || value == 1);
}

template <class F>
Interval monotone(Interval a, F f, bool increasing) {
  const double x = f(a.lo), y = f(a.hi);
  if (exact_at(a, x)) return Interval::point(x);
  return increasing ? outward(x, y, 2) : outward(y, x, 2);
}

Interval square_root(Interval a) {
  if (a.hi < 0 || std::isnan(a.lo)) return Interval::entire();
  return outward(std::sqrt(std::max(a.lo, 0.0)), std::sqrt(a.hi));
}

Interval logarithm(Interval a) {
  if (a.lo <= 0) return Interval::entire();
  return monotone(a, [](double v) { return std::log(v); }, true);
}

// sin or cos on [lo, hi]: the endpoints' values, and +-1 where a maximum or a minimum may
// lie inside (sin: pi/2 and -pi/2 + 2k pi; cos: 0 and pi + 2k pi), decided with a margin
// that covers the rounding of k 2 pi, so a critical point near an end counts.
// An interval of at most kNarrow (a point box's argument, a few ulps wide) is read at its
// lower end alone: |sin' |, |cos'| <= 1, so the value moves at most the width.
Interval periodic(Interval a, bool cosine) {
  constexpr double kNarrow = 0x1p-20;
  if (!(a.hi - a.lo < 6) || !std::isfinite(a.lo) || !std::isfinite(a.hi)) return {-1, 1};
  const double x = cosine ? std::cos(a.lo) : std::sin(a.lo);
  if (exact_at(a, x)) return Interval::point(x);
  if (a.hi - a.lo <= kNarrow) {
    // the width, and libm's error at lo (1 ulp of x <= |x| 2^-52, or the least subnormal)
    const double slack = interval::up(interval::up(a.hi - a.lo) + (std::fabs(x) * 0x1p-51 + 0x1p-1074));
    const Interval out = outward(x - slack, x + slack);
    return {std::max(out.lo, -1.0), std::min(out.hi, 1.0)};
  }
  const double y = cosine ? std::cos(a.hi) : std::sin(a.hi);
  Interval out = outward(std::min(x, y), std::max(x, y), 2);
  const double two_pi = 2 * std::numbers::pi;
  const double margin = 1e-12 * std::max({1.0, std::fabs(a.lo), std::fabs(a.hi)});
  const auto may_hold = [&](double phase) {  // some phase + 2k pi in [lo, hi], give or take the margin
    const double k = std::ceil((a.lo - phase - margin) / two_pi);
    return phase + k * two_pi <= a.hi + margin;
  };
  const double top = cosine ? 0.0 : std::numbers::pi / 2, bottom = cosine ? std::numbers::pi : -std::numbers::pi / 2;
  if (may_hold(top)) out.hi = 1;
  if (may_hold(bottom)) out.lo = -1;
  out.lo = std::max(out.lo, -1.0);
  out.hi = std::min(out.hi, 1.0);
  return out;
}

Interval tangent(Interval a) {
  // a pole pi/2 + k pi inside, or too wide to tell: the whole line
  if (!(a.hi - a.lo < 3) || !std::isfinite(a.lo)) return Interval::entire();
  const double margin = 1e-12 * std::max({1.0, std::fabs(a.lo), std::fabs(a.hi)});
  const double k = std::ceil((a.lo - std::numbers::pi / 2 - margin) / std::numbers::pi);
  if (std::numbers::pi / 2 + k * std::numbers::pi <= a.hi + margin) return Interval::entire();
  return monotone(a, [](double v) { return std::tan(v); }, true);
}

Interval power(Interval a, Interval b) {
  if (b.lo == b.hi && b.lo == std::floor(b.lo) && std::fabs(b.lo) <= 64) {  // an integer power
    const int n = static_cast<int>(b.lo);
    if (n == 0) return {1, 1};
    Interval r{1, 1};
    const Interval base = n > 0 ? a : divide({1, 1}, a);
    // even powers of an interval holding 0 start at 0: |a|^n
    const bool even = n % 2 == 0;
    const Interval magnitude = even ? Interval{a.lo <= 0 && a.hi >= 0 ? 0.0 : std::min(std::fabs(base.lo), std::fabs(base.hi)),
                                               std::max(std::fabs(base.lo), std::fabs(base.hi))}
                                    : base;
    for (int i = 0; i < std::abs(n); ++i) r = multiply(r, magnitude);
    if (even) r.lo = std::max(r.lo, 0.0);
    return r;
  }
  if (a.lo <= 0) return Interval::entire();
  // a^b = exp(b log a) for a > 0
  const Interval l = logarithm(a);
  return monotone(multiply(b, l), [](double v) { return std::exp(v); }, true);
}

Interval truth(bool certainly_true, bool certainly_false) {
  if (certainly_true) return {1, 1};
  if (certainly_false) return {0, 0};
  return {0, 1};
}

Interval compare(Op op, Interval a, Interval b) {
  switch (op) {
    case Op::kLess: return truth(a.hi < b.lo, a.lo >= b.hi);
    case Op::kLessEqual: return truth(a.hi <= b.lo, a.lo > b.hi);
    case Op::kGreater: return truth(a.lo > b.hi, a.hi <= b.lo);
    case Op::kGreaterEqual: return truth(a.lo >= b.hi, a.hi < b.lo);
    case Op::kEqual: return truth(a.lo == a.hi && b.lo == b.hi && a.lo == b.lo, a.hi < b.lo || b.hi < a.lo);
    case Op::kNotEqual: return truth(a.hi < b.lo || b.hi < a.lo, a.lo == a.hi && b.lo == b.hi && a.lo == b.lo);
    default: return {0, 1};
  }
}

// If condition then yes else no: only the branch the condition allows.
Interval select(Interval condition, Interval yes, Interval no) {
  if (condition.lo == 1) return yes;
  if (condition.hi == 0) return no;
  return hull(yes, no);
}

// The enclosure of an operation of one or two operands (not a leaf, not if).
Interval apply(Op op, Interval a, Interval b) {
  switch (op) {
    case Op::kNegate: return negate(a);
    case Op::kAdd: return add(a, b);
    case Op::kSubtract: return subtract(a, b);
    case Op::kMultiply: return multiply(a, b);
    case Op::kDivide: return divide(a, b);
    case Op::kPower: return power(a, b);
    case Op::kAbs: return a.lo >= 0 ? a : a.hi <= 0 ? negate(a) : Interval{0, std::max(-a.lo, a.hi)};
    case Op::kSign: return {a.lo > 0 ? 1.0 : a.lo == 0 ? 0.0 : -1.0, a.hi < 0 ? -1.0 : a.hi == 0 ? 0.0 : 1.0};
    case Op::kMin: return {std::min(a.lo, b.lo), std::min(a.hi, b.hi)};
    case Op::kMax: return {std::max(a.lo, b.lo), std::max(a.hi, b.hi)};
    case Op::kSqrt: return square_root(a);
    case Op::kExp: return monotone(a, [](double v) { return std::exp(v); }, true);
    case Op::kLog: return logarithm(a);
    case Op::kSin: return periodic(a, false);
    case Op::kCos: return periodic(a, true);
    case Op::kTan: return tangent(a);
    case Op::kAsin:
      return a.lo < -1 || a.hi > 1 ? Interval::entire() : monotone(a, [](double v) { return std::asin(v); }, true);
    case Op::kAcos:
      return a.lo < -1 || a.hi > 1 ? Interval::entire() : monotone(a, [](double v) { return std::acos(v); }, false);
    case Op::kAtan: return monotone(a, [](double v) { return std::atan(v); }, true);
    case Op::kAtan2: return outward(-std::numbers::pi, std::numbers::pi, 2);
    case Op::kSinh: return monotone(a, [](double v) { return std::sinh(v); }, true);
    case Op::kCosh:
      return a.lo >= 0   ? monotone(a, [](double v) { return std::cosh(v); }, true)
             : a.hi <= 0 ? monotone(a, [](double v) { return std::cosh(v); }, false)
                         : Interval{1, interval::up(std::cosh(std::max(-a.lo, a.hi)), 2)};
    case Op::kTanh: return monotone(a, [](double v) { return std::tanh(v); }, true);
    case Op::kFloor: return {std::floor(a.lo), std::floor(a.hi)};  // exact
    case Op::kCeil: return {std::ceil(a.lo), std::ceil(a.hi)};
    case Op::kStepped: return a;
    case Op::kAnd: return {std::min(a.lo, b.lo), std::min(a.hi, b.hi)};
    case Op::kOr: return {std::max(a.lo, b.lo), std::max(a.hi, b.hi)};
    case Op::kNot: return {1 - a.hi, 1 - a.lo};
    default: return compare(op, a, b);
  }
}

}  // namespace

IntervalEvaluator::IntervalEvaluator(const Graph& graph, std::vector<double> parameters)
    : graph_(graph), parameters_(std::move(parameters)), constants_(graph.size()), cache_(graph.size()),
      stamp_(graph.size(), 0) {
  for (std::size_t i = 0; i < graph.size(); ++i) {  // literals read once, not per box
    const Node& node = graph[static_cast<NodeId>(i)];
    if (node.op != Op::kConstant) continue;
    const double v = std::strtod(node.text.c_str(), nullptr);
    // An integer of at most 15 digits is its double exactly; any other decimal's exact value
    // lies within an ulp of its double.
    const bool integer = node.text.find_first_not_of("0123456789") == std::string::npos && node.text.size() <= 15;
    constants_[i] = integer ? Interval::point(v) : outward(v, v);
  }
}

void IntervalEvaluator::set_box(Interval t, const Interval* x, int states, const Interval* field) {
  t_ = t;
  x_.assign(x, x + states);
  field_.clear();
  if (field != nullptr) field_.assign(field, field + states);
  ++box_;
  if (box_ == kAlways) {  // the stamps wrapped around: forget them all, but what holds for every box
    for (std::uint32_t& stamp : stamp_) stamp = stamp == kAlways ? kAlways : 0;
    box_ = 1;
  }
}

Interval IntervalEvaluator::evaluate(NodeId id) {
  const auto i = static_cast<std::size_t>(id);
  if (stamp_[i] == box_ || stamp_[i] == kAlways) return cache_[i];
  const Interval value = compute(id);
  cache_[i] = value;
  stamp_[i] = box_;
  return value;
}

Interval IntervalEvaluator::leaf(NodeId id) const {
  const Node& node = graph_[id];
  switch (node.op) {
    case Op::kConstant: return constants_[static_cast<std::size_t>(id)];
    case Op::kParameter: return Interval::point(parameters_.at(static_cast<std::size_t>(node.index)));
    case Op::kState:
    case Op::kPrior: return x_.at(static_cast<std::size_t>(node.index));
    case Op::kFieldValue:
      return static_cast<std::size_t>(node.index) < field_.size() ? field_[static_cast<std::size_t>(node.index)]
                                                                   : Interval::entire();
    case Op::kTime: return t_;
    case Op::kJumping: return {0, 0};  // continuous evolution
    default: return Interval::entire();
  }
}

// Whether two nodes hold one value at every point of every box: the same node, or a state and
// its prior value (the same during continuous evolution). Interval arithmetic does not know
// that two operands are one variable (x - x over [0, 1] is [-1, 1]); this knows it for these.
bool IntervalEvaluator::same_value(NodeId a, NodeId b) const {
  if (a == b) return true;
  const Node& x = graph_[a];
  const Node& y = graph_[b];
  const bool states = (x.op == Op::kState || x.op == Op::kPrior) && (y.op == Op::kState || y.op == Op::kPrior);
  return states && x.index == y.index;
}

bool IntervalEvaluator::same_operands(const Node& node, Interval* value) const {
  if (node.args.size() != 2 || !same_value(node.args[0], node.args[1])) return false;
  switch (node.op) {
    case Op::kSubtract: *value = {0, 0}; return true;
    case Op::kEqual:
    case Op::kLessEqual:
    case Op::kGreaterEqual: *value = {1, 1}; return true;
    case Op::kNotEqual:
    case Op::kLess:
    case Op::kGreater: *value = {0, 0}; return true;
    default: return false;
  }
}

Interval IntervalEvaluator::compute(NodeId id) {
  const Node& node = graph_[id];
  if (node.args.empty()) return leaf(id);
  if (node.op == Op::kSelect) {  // only the branch the condition allows
    const Interval condition = evaluate(node.args[0]);
    if (condition.lo == 1) return evaluate(node.args[1]);
    if (condition.hi == 0) return evaluate(node.args[2]);
    return hull(evaluate(node.args[1]), evaluate(node.args[2]));
  }
  Interval same{};
  if (same_operands(node, &same)) return same;
  return apply(node.op, evaluate(node.args[0]), node.args.size() > 1 ? evaluate(node.args[1]) : Interval{});
}

IntervalEvaluator::Program IntervalEvaluator::program(const std::vector<NodeId>& roots, const Program* before) {
  using Kind = Instruction::Kind;
  std::vector<char> done(graph_.size(), 0);
  if (before != nullptr) {
    for (const Instruction& in : *before) done[static_cast<std::size_t>(in.out)] = 1;
  }
  Program code;
  // depth-first, each node after its operands (an explicit stack: graphs may be deep)
  std::vector<std::pair<NodeId, bool>> stack;
  for (const NodeId root : roots) stack.emplace_back(root, false);
  while (!stack.empty()) {
    const auto [id, operands_done] = stack.back();
    stack.pop_back();
    if (done[static_cast<std::size_t>(id)] == 1) continue;
    const Node& node = graph_[id];
    Instruction in;
    in.out = id;
    in.op = node.op;
    if (!operands_done && !node.args.empty() && !same_operands(node, &in.fixed)) {
      stack.emplace_back(id, true);
      for (const NodeId arg : node.args) stack.emplace_back(arg, false);
      continue;
    }
    done[static_cast<std::size_t>(id)] = 1;
    const bool fixed = node.args.empty() ? !(node.op == Op::kState || node.op == Op::kPrior ||
                                             node.op == Op::kFieldValue || node.op == Op::kTime)
                                         : same_operands(node, &in.fixed);
    if (fixed) {  // the same for every box: kept once, out of the program
      cache_[static_cast<std::size_t>(id)] = node.args.empty() ? leaf(id) : in.fixed;
      stamp_[static_cast<std::size_t>(id)] = kAlways;
      continue;
    }
    if (node.args.empty()) {
      switch (node.op) {
        case Op::kState:
        case Op::kPrior: in.kind = Kind::kState; in.a = node.index; break;
        case Op::kFieldValue: in.kind = Kind::kField; in.a = node.index; break;
        default: in.kind = Kind::kTime; break;
      }
    } else {
      in.kind = node.op == Op::kSelect ? Kind::kSelect : Kind::kApply;
      in.a = node.args[0];
      if (node.args.size() > 1) in.b = node.args[1];
      if (node.args.size() > 2) in.c = node.args[2];
    }
    code.push_back(in);
  }
  return code;
}

void IntervalEvaluator::run(const Program& program) {
  using Kind = Instruction::Kind;
  for (const Instruction& in : program) {
    Interval v{};
    switch (in.kind) {
      case Kind::kState: v = x_.at(static_cast<std::size_t>(in.a)); break;
      case Kind::kField:
        v = static_cast<std::size_t>(in.a) < field_.size() ? field_[static_cast<std::size_t>(in.a)] : Interval::entire();
        break;
      case Kind::kTime: v = t_; break;
      case Kind::kSelect:
        v = select(cache_[static_cast<std::size_t>(in.a)], cache_[static_cast<std::size_t>(in.b)],
                   cache_[static_cast<std::size_t>(in.c)]);
        break;
      case Kind::kApply: {
        const Interval a = cache_[static_cast<std::size_t>(in.a)];
        const Interval b = in.b >= 0 ? cache_[static_cast<std::size_t>(in.b)] : Interval{};
        switch (in.op) {  // the arithmetic inline, the rest by apply()
          case Op::kAdd: v = add(a, b); break;
          case Op::kSubtract: v = subtract(a, b); break;
          case Op::kMultiply: v = multiply(a, b); break;
          case Op::kNegate: v = negate(a); break;
          default: v = apply(in.op, a, b); break;
        }
        break;
      }
    }
    cache_[static_cast<std::size_t>(in.out)] = v;
    stamp_[static_cast<std::size_t>(in.out)] = box_;
  }
}

FlowTable flow_table_of(Graph* graph, const std::vector<std::vector<NodeId>>& fields) {
  FlowTable table(fields.size());
  for (std::size_t m = 0; m < fields.size(); ++m) {
    const std::vector<NodeId>& field = fields[m];
    if (field.empty()) continue;
    FlowNodes& flow = table[m];
    const int n = static_cast<int>(field.size());
    flow.field = field;
    for (const NodeId f : field) {
      for (int j = 0; j < n; ++j) flow.jacobian.push_back(graph->derivative_by_state(f, j));
      flow.dfdt.push_back(graph->derivative_by_time(f));
    }
    // The nodes where the field may jump, once each (a graph walk from the field's nodes).
    std::vector<bool> seen(graph->size(), false);
    std::vector<NodeId> stack(field.begin(), field.end());
    while (!stack.empty()) {
      const NodeId id = stack.back();
      stack.pop_back();
      if (seen[static_cast<std::size_t>(id)]) continue;
      seen[static_cast<std::size_t>(id)] = true;
      const Node& node = (*graph)[id];
      if (node.op == Op::kSign || node.op == Op::kFloor || node.op == Op::kCeil || node.op == Op::kSelect) {
        flow.jumps.emplace_back(node.op, node.args[0]);
      } else if (is_comparison(node.op) || node.op == Op::kAnd || node.op == Op::kOr || node.op == Op::kNot) {
        flow.jumps.emplace_back(node.op, id);
      }
      for (const NodeId arg : node.args) stack.push_back(arg);
    }
  }
  return table;
}

const FlowNodes* FileGuardEnclosure::smooth_flow(int mode) {
  if (!flow_) return nullptr;
  const FlowNodes& flow = (*flow_)[static_cast<std::size_t>(mode)];
  if (flow.field.empty()) return nullptr;
  for (const auto& [op, id] : flow.jumps) {
    const Interval v = evaluator_.evaluate(id);
    bool decided = false;
    switch (op) {
      case Op::kSign: decided = v.lo > 0 || v.hi < 0 || (v.lo == 0 && v.hi == 0); break;
      case Op::kFloor: decided = std::floor(v.lo) == std::floor(v.hi); break;
      case Op::kCeil: decided = std::ceil(v.lo) == std::ceil(v.hi); break;
      default: decided = v.lo == v.hi; break;  // a condition or a comparison: [0, 0] or [1, 1]
    }
    if (!decided) return nullptr;
  }
  return &flow;
}

FileGuardEnclosure::ModePrograms& FileGuardEnclosure::programs(int mode) {
  if (programs_.empty()) programs_.resize(atoms_->size());
  ModePrograms& p = programs_[static_cast<std::size_t>(mode)];
  if (p.built) return p;
  std::vector<NodeId> values, rates;
  for (const auto& transition : (*atoms_)[static_cast<std::size_t>(mode)]) {
    for (const AtomNodes& atom : transition) {
      values.push_back(atom.e);
      if (atom.rate >= 0) rates.push_back(atom.rate);
    }
  }
  p.values = evaluator_.program(values);
  p.rates = evaluator_.program(rates, &p.values);
  p.built = true;
  return p;
}

void FileGuardEnclosure::run_values(int mode) {
  if (values_of_ == mode) return;
  evaluator_.run(programs(mode).values);
  values_of_ = mode;
}

void FileGuardEnclosure::run_rates(int mode) {
  if (rates_of_ == mode) return;
  run_values(mode);
  evaluator_.run(programs(mode).rates);
  rates_of_ = mode;
}

bool FileGuardEnclosure::field(int mode, Interval* f) {
  const FlowNodes* flow = smooth_flow(mode);
  if (flow == nullptr) return false;
  for (std::size_t i = 0; i < flow->field.size(); ++i) f[i] = evaluator_.evaluate(flow->field[i]);
  return true;
}

bool FileGuardEnclosure::field_derivatives(int mode, Interval* jacobian, Interval* dfdt) {
  const FlowNodes* flow = smooth_flow(mode);
  if (flow == nullptr) return false;
  for (std::size_t i = 0; i < flow->jacobian.size(); ++i) jacobian[i] = evaluator_.evaluate(flow->jacobian[i]);
  for (std::size_t i = 0; i < flow->dfdt.size(); ++i) dfdt[i] = evaluator_.evaluate(flow->dfdt[i]);
  return true;
}

}  // namespace hysim::lang
