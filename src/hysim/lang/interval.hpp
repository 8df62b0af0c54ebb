// Interval evaluation of a model's expression graph (lang/expr.hpp): for a box of states,
// field values and times, an enclosure of each node's exact real value, the ground of
// certified event detection (a guard atom whose enclosure over a step excludes 0 cannot change
// sign there).
//
// Rounding is outward: every bound is computed in double with round-to-nearest, then moved
// one ulp away (std::nextafter) for +, -, *, /, sqrt, which IEEE 754 rounds correctly (error
// at most half an ulp), and two ulps for the library functions (exp, log, sin, ...; glibc
// documents at most 1 ulp for them on x86-64), so the exact value of the operation on the
// bounds lies inside. Hand-written rather than Boost.Interval: Boost's transcendental
// policies call the same libm in directed rounding modes, which glibc does not promise to
// honour, so they would need the same widening, and switching the FPU's rounding mode costs
// more than the two nextafter calls. Parameters are points (the run's doubles); a literal is
// the double nearest its decimal text, widened by an ulp unless it is an integer (0.1 is not a
// double, 2 is: x^2 stays an integer power, which knows its sign).
//
// Booleans are [1, 1] (true for every point), [0, 0] (false for every point) or [0, 1]
// (undecided). Whatever is undefined or cannot be bounded somewhere in the box (a division
// by an interval holding 0, log of a negative number, a NaN) gives the whole line, [-inf, inf]:
// an enclosure that proves nothing, never a wrong one.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "hysim/core/guard_enclosure.hpp"
#include "hysim/core/interval.hpp"
#include "hysim/lang/expr.hpp"

namespace hysim::lang {

using hysim::Interval;

// Enclosures of nodes of one graph. Not thread-safe: it keeps a cache per box.
class IntervalEvaluator {
 public:
  // `parameters`: the run's values, by parameter index.
  IntervalEvaluator(const Graph& graph, std::vector<double> parameters);

  // The box: t in `t`, x_i in x[i] (prior(x_i) reads x_i: continuous evolution, `jumping`
  // false), f_i in field[i] (the rates of guard atoms read them; may be null otherwise). Then
  // evaluate() any node over it; a new box forgets the cached enclosures.
  void set_box(Interval t, const Interval* x, int states, const Interval* field = nullptr);
  Interval evaluate(NodeId id);

  // A straight-line program: every node some roots depend on, once each, dependencies first,
  // with its operation and its operands' places, so that a box's enclosures of all of them are
  // computed in one pass, without the graph walk of evaluate() (certified detection reads a
  // mode's atoms over every part of every step). The same enclosures as evaluate().
  struct Instruction {
    enum class Kind : std::uint8_t { kState, kField, kTime, kSelect, kApply };
    Kind kind = Kind::kApply;
    Op op = Op::kConstant;
    std::int32_t out = -1, a = -1, b = -1, c = -1;  // node ids (kState, kField: a is the index)
    Interval fixed{};                               // (while built: x - x, prior(x) == x, ...)
  };
  using Program = std::vector<Instruction>;
  // The program of `roots`, leaving out the nodes of `before` (a program run first on each box)
  // and the nodes that hold one value for every box (literals, parameters, x - x, ...), which
  // it keeps once.
  Program program(const std::vector<NodeId>& roots, const Program* before = nullptr);
  // Runs it over the box: evaluate() of any of its nodes then reads the result.
  void run(const Program& program);

 private:
  Interval compute(NodeId id);
  Interval leaf(NodeId id) const;
  bool same_value(NodeId a, NodeId b) const;
  // x - x, prior(x) == x, ...: the value of `node` when its two operands hold one value, if
  // that decides it.
  bool same_operands(const Node& node, Interval* value) const;

  const Graph& graph_;
  std::vector<double> parameters_;
  Interval t_{};
  std::vector<Interval> x_, field_;
  std::vector<Interval> constants_;  // each literal's enclosure, by node
  std::vector<Interval> cache_;
  static constexpr std::uint32_t kAlways = 0xffffffffu;  // a stamp: valid for every box
  std::vector<std::uint32_t> stamp_;  // cache_[i] is valid when stamp_[i] == box_ or kAlways
  std::uint32_t box_ = 0;
};

// A mode's field for the exact flow (certified detection, level 2): f_i, df_i/dx_j (row by
// row) and df_i/dt as nodes of the graph (symbolic derivatives, lang/expr.hpp), and the nodes
// at which the field may jump: the argument of sign, floor or ceil, the condition of an if, a
// comparison read as a number. Over a box where one of them is undecided the field is not
// Lipschitz, and the enclosure says so (abs, min and max are continuous: their derivatives'
// enclosures hold both slopes at the kink, a valid Lipschitz bound).
struct FlowNodes {
  std::vector<NodeId> field, jacobian, dfdt;
  std::vector<std::pair<Op, NodeId>> jumps;  // (the operation, the node that decides it)
};
using FlowTable = std::vector<FlowNodes>;  // by mode; empty for an algebraic mode

// The flow table of a graph's modes (`fields[mode]`: the mode's f_i nodes, empty when
// algebraic); adds the derivatives to the graph.
FlowTable flow_table_of(Graph* graph, const std::vector<std::vector<NodeId>>& fields);

// A model file's guards over boxes (core/guard_enclosure.hpp), for one run: each atom's e and
// rate evaluated on intervals from the graph they were compiled from; and, with a flow table,
// the modes' fields and their derivatives.
class FileGuardEnclosure final : public GuardEnclosure {
 public:
  struct AtomNodes {
    NodeId e = -1;
    NodeId rate = -1;  // -1: none (a discrete atom)
  };
  // atoms[mode][k][i]: atom i of transition k of the mode, in Guard::atoms() order. `owner`
  // keeps the graph alive.
  using AtomTable = std::vector<std::vector<std::vector<AtomNodes>>>;
  FileGuardEnclosure(std::shared_ptr<const void> owner, const Graph& graph, std::vector<double> parameters,
                     std::shared_ptr<const AtomTable> atoms, int states,
                     std::shared_ptr<const FlowTable> flow = nullptr)
      : owner_(std::move(owner)), evaluator_(graph, std::move(parameters)), atoms_(std::move(atoms)), states_(states),
        flow_(std::move(flow)) {}

  bool has_flow() const override { return flow_ != nullptr; }
  bool field(int mode, Interval* f) override;
  bool field_derivatives(int mode, Interval* jacobian, Interval* dfdt) override;

  void set_box(Interval t, const Interval* x, const Interval* dxdt) override {
    evaluator_.set_box(t, x, states_, dxdt);
    values_of_ = rates_of_ = -1;
  }
  Interval value(int mode, int k, int i) override {
    run_values(mode);
    return evaluator_.evaluate(at(mode, k, i).e);
  }
  Interval rate(int mode, int k, int i) override {
    const NodeId r = at(mode, k, i).rate;
    if (r < 0) return Interval::entire();
    run_rates(mode);
    return evaluator_.evaluate(r);
  }
  int function_id(int mode, int k, int i) const override { return at(mode, k, i).e; }

 private:
  const AtomNodes& at(int mode, int k, int i) const {
    return (*atoms_)[static_cast<std::size_t>(mode)][static_cast<std::size_t>(k)][static_cast<std::size_t>(i)];
  }
  // A mode's atoms over the box, by its programs, run once per box: their values, and their
  // rates after the values (the rates read the field over the box).
  void run_values(int mode);
  void run_rates(int mode);
  struct ModePrograms {
    bool built = false;
    IntervalEvaluator::Program values, rates;
  };
  ModePrograms& programs(int mode);

  // The mode's flow nodes when its field cannot jump inside the box; null otherwise.
  const FlowNodes* smooth_flow(int mode);

  std::shared_ptr<const void> owner_;
  IntervalEvaluator evaluator_;
  std::shared_ptr<const AtomTable> atoms_;
  int states_;
  std::shared_ptr<const FlowTable> flow_;
  std::vector<ModePrograms> programs_;  // by mode, built on first use
  int values_of_ = -1, rates_of_ = -1;  // the mode whose values (rates) this box holds
};

}  // namespace hysim::lang
