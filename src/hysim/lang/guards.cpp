// The resolver's guards (lang/guards.hpp): trees of atoms e REL 0 with symbolic rates.
#include "hysim/lang/guards.hpp"

#include <map>
#include <utility>
#include <vector>

namespace hysim::lang {

namespace {

class GuardBuilder {
 public:
  GuardBuilder(ExpressionResolver* expressions, ModelSpec* spec) : expressions_(*expressions), spec_(*spec) {}

  // Adds the guard expression (negated when `negate`) to tr's tree; returns its node index or
  // -1. De Morgan: !(a && b) = !a || !b, !(a || b) = !a && !b, and !(e < 0) is e >= 0.
  int guard_node(const Expression& e, bool negate, TransitionSpec* tr) {
    if (e.kind == Expression::Kind::kUnary && e.op == TokenKind::kNot) return guard_node(*e.arguments[0], !negate, tr);
    if (e.kind == Expression::Kind::kBinary && (e.op == TokenKind::kAnd || e.op == TokenKind::kOr)) {
      const int a = guard_node(*e.arguments[0], negate, tr);
      const int b = guard_node(*e.arguments[1], negate, tr);
      if (a < 0 || b < 0) return -1;
      const bool conjunction = (e.op == TokenKind::kAnd) != negate;
      tr->guard.push_back(GuardNode{conjunction ? GuardNode::Kind::kAnd : GuardNode::Kind::kOr, -1, {a, b}});
      return static_cast<int>(tr->guard.size()) - 1;
    }
    if (e.kind == Expression::Kind::kBinary && binary_op(e.op) >= Op::kLess && binary_op(e.op) <= Op::kNotEqual) {
      AtomSpec atom;
      if (!comparison_atom(e, negate, &atom)) return -1;
      tr->atoms.push_back(std::move(atom));
      tr->guard.push_back(GuardNode{GuardNode::Kind::kAtom, static_cast<int>(tr->atoms.size()) - 1, {}});
      return static_cast<int>(tr->guard.size()) - 1;
    }
    if (e.kind == Expression::Kind::kIf) {
      expressions_.fail(e.where, "a guard joins comparisons with &&, || and !; 'if' belongs in numbers");
      return -1;
    }
    Value v;
    if (!expressions_.expression(e, Context::kGuard, &v)) return -1;
    if (v.boolean) {  // a let holding a condition is not expanded into atoms
      expressions_.fail(e.where, "a guard's conditions are written in the guard itself (a let holds numbers)");
    } else {
      expressions_.fail(e.where, "a guard must be a condition (comparisons joined with &&, || and !), found a number");
    }
    return -1;
  }

  // A discrete atom D that always holds during continuous evolution (prior(v) == v) and is
  // and-ed with a conjunction C is folded into C's last atom A, as its jump form: across a
  // jump A reads "if D fails then A does not hold, else A"; during continuous evolution A is
  // unchanged, rate included. The guard keeps its truth values everywhere and evaluates one
  // atom less at every point (the C++ models write their jump forms this way).
  void fold_discrete_atoms(TransitionSpec* tr, int index) {
    GuardNode& node = tr->guard[static_cast<std::size_t>(index)];
    if (node.kind == GuardNode::Kind::kAtom) return;
    for (int child : std::vector<int>(node.children)) fold_discrete_atoms(tr, child);
    if (node.kind != GuardNode::Kind::kAnd) return;
    for (std::size_t side = 0; side < 2; ++side) {
      const GuardNode& d = tr->guard[static_cast<std::size_t>(node.children[side])];
      if (d.kind != GuardNode::Kind::kAtom) continue;
      const AtomSpec& discrete = tr->atoms[static_cast<std::size_t>(d.atom)];
      if (discrete.discrete_test < 0 || !holds_in_flow(discrete.discrete_test)) continue;
      const int other = node.children[1 - side];
      const int target = last_atom_of_conjunction(*tr, other);
      if (target < 0) continue;
      AtomSpec& a = tr->atoms[static_cast<std::size_t>(target)];
      if (a.discrete_test >= 0) continue;
      Graph& g = spec_.graph;
      const bool less = a.relation == Relation::kLess || a.relation == Relation::kLessEqual;
      const NodeId fails = g.apply(Op::kAnd, {g.leaf(Op::kJumping, -1), g.apply(Op::kNot, {discrete.discrete_test})});
      a.e = g.apply(Op::kSelect, {fails, g.constant(less ? "1" : "-1"), a.e});
      a.reads_prior = true;
      tr->guard[static_cast<std::size_t>(index)] = tr->guard[static_cast<std::size_t>(other)];
      return;
    }
  }

 private:
  bool comparison_atom(const Expression& e, bool negate, AtomSpec* atom) {
    Graph& g = spec_.graph;
    Value a, b;
    const bool ok = expressions_.expression(*e.arguments[0], Context::kGuard, &a) &
                    expressions_.expression(*e.arguments[1], Context::kGuard, &b);
    if (!ok) return false;
    if (a.boolean || b.boolean) {
      return expressions_.fail(e.where, "a comparison takes numbers, but an operand is a condition");
    }
    const Op op = binary_op(e.op);
    atom->where = e.where;
    atom->reads_prior = g.reads_prior(a.id) || g.reads_prior(b.id);
    atom->reads_jumping = g.reads_jumping(a.id) || g.reads_jumping(b.id);
    if (op == Op::kEqual || op == Op::kNotEqual) {
      // A discrete test: e = -1 when it holds, +1 otherwise, with e < 0. Never located.
      if (!atom->reads_prior) {
        return expressions_.fail(e.where, std::string("'") + op_spelling(op) + "' compares continuous values, whose "
                                          "equality cannot be located in time; write <= or >=, or compare prior(v) "
                                          "with v to ask whether v jumped");
      }
      const bool equal = (op == Op::kEqual) != negate;
      const NodeId test = g.apply(equal ? Op::kEqual : Op::kNotEqual, {a.id, b.id});
      atom->e = g.apply(Op::kSelect, {test, g.constant("-1"), g.constant("1")});
      atom->discrete_test = test;
      atom->relation = Relation::kLess;
      atom->name = spec_.print(atom->e);
      return true;
    }
    const bool reads_prior = atom->reads_prior;
    *atom = lang::comparison_atom(&spec_, op, a.id, b.id, negate);
    atom->where = e.where;
    atom->reads_prior = reads_prior;
    return expressions_.checked_height(e.where, Value{atom->rate, false});
  }

  // "a == b" whose two sides coincide once prior(x) is read as x.
  bool holds_in_flow(NodeId test) {
    Graph& g = spec_.graph;
    const Node& n = g[test];
    if (n.op != Op::kEqual) return false;
    const NodeId a = n.args[0];
    const NodeId b = n.args[1];
    return g.without_prior(a) == g.without_prior(b);
  }

  // The atom of the node when it is an atom, or the last atom of an AND chain; -1 otherwise.
  static int last_atom_of_conjunction(const TransitionSpec& tr, int index) {
    const GuardNode& n = tr.guard[static_cast<std::size_t>(index)];
    if (n.kind == GuardNode::Kind::kAtom) return n.atom;
    if (n.kind == GuardNode::Kind::kAnd) return last_atom_of_conjunction(tr, n.children.back());
    return -1;
  }

  ExpressionResolver& expressions_;
  ModelSpec& spec_;
};

}  // namespace

int guard_tree(const Expression& guard, ExpressionResolver* expressions, ModelSpec* spec, TransitionSpec* tr) {
  GuardBuilder builder(expressions, spec);
  const int root = builder.guard_node(guard, false, tr);
  if (root >= 0) builder.fold_discrete_atoms(tr, root);
  return root;
}

AtomSpec comparison_atom(ModelSpec* spec, Op op, NodeId a, NodeId b, bool negate) {
  Graph& g = spec->graph;
  const auto relation_of = [](Op o) {
    switch (o) {
      case Op::kLess: return Relation::kLess;
      case Op::kLessEqual: return Relation::kLessEqual;
      case Op::kGreater: return Relation::kGreater;
      default: return Relation::kGreaterEqual;
    }
  };
  const auto is_zero = [&](NodeId id) { return g[id].op == Op::kConstant && g[id].text == "0"; };
  AtomSpec atom;
  Relation relation = relation_of(op);
  if (is_zero(b)) {
    atom.e = a;
  } else if (is_zero(a)) {  // 0 < b is b > 0: the relation mirrored
    atom.e = b;
    static const std::map<Relation, Relation> kMirror = {{Relation::kLess, Relation::kGreater},
                                                         {Relation::kLessEqual, Relation::kGreaterEqual},
                                                         {Relation::kGreater, Relation::kLess},
                                                         {Relation::kGreaterEqual, Relation::kLessEqual}};
    relation = kMirror.at(relation);
  } else {
    atom.e = g.apply(Op::kSubtract, {a, b});
  }
  atom.relation = negate ? negated(relation) : relation;
  atom.rate = g.rate(atom.e);
  atom.time_root = g.time_root(atom.e);
  atom.reads_prior = g.reads_prior(atom.e);
  atom.reads_jumping = g.reads_jumping(atom.e);
  atom.name = spec->print(atom.e);
  return atom;
}

}  // namespace hysim::lang
