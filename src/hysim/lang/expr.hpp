// Resolved expressions: a graph of operations over the model's parameters, states and time,
// shared by every field, guard, reset and rate of a model file (docs/model-language.md,
// "How a file is compiled").
//
// Nodes are hash-consed: the same operation on the same operands is one node, so a `let`
// used in several places, or a subexpression a derivative repeats, is stored once. Leaves
// keep numeric literals as their decimal text; the tape (lang/tape.hpp) converts them to the
// run's scalar type, so a float128 run reads "0.1" as the binary128 number nearest to 1/10.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <tuple>
#include <vector>

namespace hysim::lang {

enum class Op : std::uint8_t {
  // leaves
  kConstant,    // text: a decimal literal
  kParameter,   // index: the parameter
  kState,       // index: x_i; in a guard during a jump, the tentative state x+ (003, Eq. 3)
  kPrior,       // index: the a priori x_i of a jump; equal to x_i during continuous evolution
  kFieldValue,  // index: f_i, the field's value; appears only in the rates of guard atoms
  kTime,        // t
  kJumping,     // boolean: true in the tests of a transition chain (across a jump), false
                // during continuous evolution; lets an atom give its own jump form
  // arithmetic
  kNegate, kAdd, kSubtract, kMultiply, kDivide, kPower,
  kAbs, kSign, kMin, kMax, kSqrt, kExp, kLog, kSin, kCos, kTan, kAsin, kAcos, kAtan, kAtan2,
  kSinh, kCosh, kTanh, kFloor, kCeil,
  kStepped,  // stepped(a) = a, whose switches (if, abs, ...) are stepped across, not located
  kSelect,  // if args[0] then args[1] else args[2]; args[0] is boolean
  // boolean (values 1 and 0 on the tape)
  kLess, kLessEqual, kGreater, kGreaterEqual, kEqual, kNotEqual, kAnd, kOr, kNot,
};

using NodeId = int;

struct Node {
  Op op = Op::kConstant;
  int index = -1;           // kParameter, kState, kPrior, kFieldValue
  std::string text;         // kConstant
  std::vector<NodeId> args;
};

// The spelling of a function in the language ("abs", "atan2"), or the operator ("+", "<=").
const char* op_spelling(Op op);
// The function named `name` with its number of arguments, if it is one of the language's.
bool find_function(const std::string& name, Op* op, int* arity);
// Every function name of the language, for "did you mean".
std::vector<std::string> function_names();

bool is_boolean(Op op);
bool is_comparison(Op op);

class Graph {
 public:
  NodeId constant(const std::string& text);
  NodeId leaf(Op op, int index);  // kParameter, kState, kPrior, kFieldValue, kTime, kJumping
  NodeId apply(Op op, std::vector<NodeId> args);

  const Node& operator[](NodeId id) const { return nodes_[static_cast<std::size_t>(id)]; }
  std::size_t size() const { return nodes_.size(); }

  // The node reads the state (kState or kPrior), t, or a field value somewhere below it;
  // otherwise it depends on parameters and constants alone and is folded when a model is
  // built.
  bool is_constant(NodeId id) const;
  // The node reads prior(...) or `jumping` somewhere below it: as a guard atom, it has a jump
  // form (core/guard.hpp, Atom::jump) distinct from its continuous one.
  bool reads_prior(NodeId id) const;
  bool reads_jumping(NodeId id) const;  // the `jumping` flag
  // The node reads t somewhere below it.
  bool reads_time(NodeId id) const;
  // The node reads a state (x or prior) somewhere below it.
  bool reads_state(NodeId id) const;
  // K when `e` is t - K, K - t or t (K of parameters and literals: 0 for t), -1 otherwise: the
  // root of a time event.
  NodeId time_root(NodeId e);

  // The node with every prior(x_i) read as x_i: its value during continuous evolution.
  NodeId without_prior(NodeId id);

  // Levels of operations below the node, itself included (leaves: 1). Recursive passes over
  // the graph are bounded by it (the resolver refuses expressions taller than kMaxHeight).
  int height(NodeId id) const { return heights_[static_cast<std::size_t>(id)]; }
  static constexpr int kMaxHeight = 4000;

  // Readable form with the fewest parentheses; leaf_name names parameters, states, prior
  // values, field values and t.
  std::string print(NodeId id, const std::function<std::string(const Node&)>& leaf_name) const;

  // Symbolic derivatives (docs/model-language.md, "Rates"): d/dx_i treats prior(x_i) as x_i,
  // since the two coincide during continuous evolution; d/dt is the explicit time
  // derivative. The results are simplified by identities that are exact in floating point
  // (0 and 1 folded away, a + (-b) written a - b).
  NodeId derivative_by_state(NodeId id, int state);
  NodeId derivative_by_time(NodeId id);
  // de/dt along the field, de/dt|_x + grad e . f, by forward-mode differentiation: the tangent
  // of x_i is f_i (a kFieldValue leaf) and that of t is 1, so the rate is written as one
  // would by hand (the rate of kp*abs(x) - saw is kp*(sign(x)*x') - f_saw, x' shared).
  NodeId rate(NodeId id);

 private:
  enum Flag : std::uint8_t { kReadsState = 1, kReadsPrior = 2, kReadsTime = 4, kReadsField = 8, kReadsJumping = 16 };
  NodeId intern(Node node);
  static constexpr int kByTime = -1;
  static constexpr int kAlongField = -2;
  NodeId derivative(NodeId id, int wrt, std::map<NodeId, NodeId>* memo);
  NodeId elementary(NodeId id, const Node& node, int wrt, std::map<NodeId, NodeId>* memo);
  // Builders that fold 0 and 1, for derivatives only (user expressions are kept as written).
  NodeId sum(NodeId a, NodeId b);
  NodeId difference(NodeId a, NodeId b);
  NodeId product(NodeId a, NodeId b);
  NodeId quotient(NodeId a, NodeId b);
  NodeId negative(NodeId a);
  bool is_literal(NodeId id, const char* text) const;

  std::vector<Node> nodes_;
  std::vector<std::uint8_t> flags_;
  std::vector<int> heights_;
  std::map<std::tuple<Op, int, std::string, std::vector<NodeId>>, NodeId> index_;
};

}  // namespace hysim::lang
