// Guards: boolean trees (AND / OR / NOT) over atoms e(t, x) REL 0 (the guards of Mosterman's 5-tuple).
//
// A guard gamma_a^b fires when its tree evaluates to true. The tree is stored flat (nodes
// refer to children by index) and is built once, when the model is made, with its branch
// program (one test per atom, read in a loop); evaluating it does not allocate. Atom values
// are computed by the caller (who counts guard evaluations) and passed in, so that the same
// tree can be evaluated on plain values or on the one-sided "just after" values used at an
// event (events/detection.hpp).
#pragma once

#include <functional>
#include <limits>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "hysim/core/errors.hpp"
#include "hysim/core/scalar.hpp"

namespace hysim {

// e(t, x): an event function. Its zero set is a switching surface.
template <class S>
using EventFunction = std::function<S(S t, const S* x)>;

// How an atom compares its event function with zero.
enum class Relation { kLess, kLessEqual, kGreater, kGreaterEqual };

// "<", "<=", ">", ">=".
const char* relation_symbol(Relation relation);

// The relation's truth for a value v of the event function: v oriented (v for > and >=, -v
// for < and <=) compared with 0, strictly for < and >. Without a branch on the relation, which
// varies from atom to atom in a guard's reading; a NaN holds for none.
template <class S>
inline bool relation_holds(Relation relation, const S& v) {
  const bool greater = relation == Relation::kGreater || relation == Relation::kGreaterEqual;
  const bool strict = relation == Relation::kLess || relation == Relation::kGreater;
  const S oriented = greater ? v : -v;
  return strict ? oriented > 0 : oriented >= 0;
}

// The relation that holds exactly when `relation` does not: !(e < 0) is e >= 0, and so on.
inline Relation negated(Relation relation) {
  switch (relation) {
    case Relation::kLess: return Relation::kGreaterEqual;
    case Relation::kLessEqual: return Relation::kGreater;
    case Relation::kGreater: return Relation::kLessEqual;
    case Relation::kGreaterEqual: return Relation::kLess;
  }
  return relation;
}

// de/dt(t, x, f) = grad e . f + de/dt: the rate of an event function along the field value f.
template <class S>
using EventRate = std::function<S(S t, const S* x, const S* f)>;

// e(t, x, x+): an atom's value across a jump (003, Eq. 3: guards read gamma(x, x+)). x is the
// a priori state (that of the last real mode), x+ the tentative state after the reset.
template <class S>
using JumpEventFunction = std::function<S(S t, const S* x_prior, const S* x_plus)>;

// An atom of a guard: e(t, x) REL 0, with a readable name of e.
//  * `rate` (optional): de/dt along a field value. The gamma rule, the boundary test and the
//    sliding dynamics (the Filippov weight lambda) use it instead of a difference quotient;
//    give it wherever a surface may carry a sliding mode, for lambda exact to rounding.
//  * `jump` (optional): the atom's value across a jump, read by the transition chain only.
//    Without it the atom reads the tentative state, e(t, x+), on both of the chain's tests,
//    so firing there makes the mode mythical. An atom with a jump form can tell a jump from
//    continuous motion: an impulse (zero when nothing jumps, the force acting an instant
//    later: a boundary), or the a priori value (firing once x := x+ is committed: a pinnacle).
//    During continuous evolution the atom reads e(t, x).
//  * `time` (optional, NaN when absent): for an atom of t alone whose root is known in closed
//    form (e = t - K or K - t: a time event), K. The engine then computes the event's time,
//    the last representable t before the atom holds and the first where it does, instead of
//    searching it.
//  * `continuous_jump`: the jump form, read with nothing jumping (x_prior = x), is e(t, x)
//    (true of a comparison that only asks whether a state jumped, and of every atom of a model
//    file, where prior(v) reads v during continuous evolution; false of an impulse, zero when
//    nothing jumps). The chain then reads the value already computed at the point.
//  * `shared` (optional): atoms with the same non-null `shared` have the same e and rate
//    (Guard::atom of one Event, or a model file's one expression): detection evaluates e once
//    per point for all of them in a mode, e.g. x >= 0 in one guard and x < 0 in another.
//  * `rate_bound` (optional, +infinity when absent): R with |de/dt| <= R along every solution
//    in the atom's mode. e then keeps the sign of e(t_e) while |t - t_e| < |e(t_e)| / R, and
//    detection does not evaluate e again before (events/quiet_atoms.hpp): many guards far from
//    firing cost a comparison per step, not an evaluation. A wrong bound can hide a crossing.
//  * `reads` (optional, with a rate bound): the states e reads. An event that jumps none of
//    them and stays in the mode keeps the atom's last value; empty: unknown, any jump drops it.
template <class S>
struct Atom {
  std::string name;
  EventFunction<S> e;
  Relation relation = Relation::kLessEqual;
  EventRate<S> rate;
  JumpEventFunction<S> jump;
  S time = std::numeric_limits<S>::quiet_NaN();
  bool continuous_jump = false;
  std::shared_ptr<const void> shared;
  S rate_bound = std::numeric_limits<S>::infinity();
  std::vector<std::size_t> reads{};
};

// An event function with its name and rate, for several atoms: Guard::atom(event, relation)
// makes atoms that share it (Atom::shared).
template <class S>
struct Event {
  std::string name;
  EventFunction<S> e;
  EventRate<S> rate;
};

template <class S>
class Guard {
 public:
  enum class Kind { kAtom, kAnd, kOr, kNot };
  struct Node {
    Kind kind = Kind::kAtom;
    int atom = -1;              // kAtom: index into atoms()
    std::vector<int> children;  // kAnd, kOr: two or more; kNot: one
  };

  Guard() = default;

  // The guard that holds when e(t, x) REL 0; `rate` (optional) is de/dt along a field value,
  // `jump` (optional) the atom's value across a jump (Atom).
  static Guard atom(std::string name, EventFunction<S> e, Relation relation, EventRate<S> rate = {},
                    JumpEventFunction<S> jump = {}, S time = std::numeric_limits<S>::quiet_NaN()) {
    Guard g;
    g.atoms_.push_back(Atom<S>{std::move(name), std::move(e), relation, std::move(rate), std::move(jump), time, false, {}});
    g.nodes_.push_back(Node{Kind::kAtom, 0, {}});
    g.root_ = 0;
    g.compile();
    return g;
  }

  // The atom event.e REL 0, sharing its evaluations with the other atoms made from `event`.
  static Guard atom(const std::shared_ptr<const Event<S>>& event, Relation relation, JumpEventFunction<S> jump = {}) {
    return atom(event->name, event->e, relation, event->rate, std::move(jump)).with_shared(event);
  }

  // This guard, an atom, with Atom::continuous_jump set: its jump form reads e(t, x) when
  // nothing jumps.
  Guard with_continuous_jump() && {
    single_atom("with_continuous_jump").continuous_jump = true;
    return std::move(*this);
  }

  // This guard, an atom, with Atom::shared set to `event`: the atoms given one `event` must
  // have the same e and rate (detection keeps one value for them all).
  Guard with_shared(std::shared_ptr<const void> event) && {
    single_atom("with_shared").shared = std::move(event);
    return std::move(*this);
  }

  friend Guard operator&&(Guard a, Guard b) { return combine(Kind::kAnd, std::move(a), std::move(b)); }
  friend Guard operator||(Guard a, Guard b) { return combine(Kind::kOr, std::move(a), std::move(b)); }
  friend Guard operator!(Guard a) {
    a.nodes_.push_back(Node{Kind::kNot, -1, {a.root_}});
    a.root_ = static_cast<int>(a.nodes_.size()) - 1;
    a.compile();
    return a;
  }

  // The guard with every atom's Atom::rate_bound set to `bound` (> 0) and Atom::reads to `reads`.
  Guard with_rate_bound(S bound, std::vector<std::size_t> reads = {}) && {
    for (auto& atom : atoms_) {
      atom.rate_bound = bound;
      atom.reads = reads;
    }
    return std::move(*this);
  }

  bool empty() const { return root_ < 0; }
  const std::vector<Atom<S>>& atoms() const { return atoms_; }
  const std::vector<Node>& nodes() const { return nodes_; }
  int root() const { return root_; }

  // Evaluates the tree; atom_truth(i) gives the truth of atom i. Short-circuit, as C++'s && and
  // ||: atom_truth is asked only for the atoms that decide, so a caller that computes atoms on
  // demand evaluates no event function it does not need. Does not allocate.
  // The tree is read through its branch program (compile()): one test per atom, in the order
  // and with the short-circuits of the tree read left to right, without recursion.
  template <class AtomTruth>
  bool evaluate(const AtomTruth& atom_truth) const {
    int at = entry_;
    while (at >= 0) {
      const Branch& b = program_[static_cast<std::size_t>(at)];
      at = atom_truth(b.atom) ? b.on_true : b.on_false;
    }
    return at == kTrue;
  }

  // The time until the tree becomes true, from the times of its atoms (004, Algorithms 1
  // and 3, read on the guard rather than on the stay predicate !guard). Negations are pushed
  // down to the atoms by De Morgan's rules, so atom_time(i, negated) is asked for atom i with
  // its relation flipped when an odd number of NOTs sit above it. An AND becomes true when
  // its last child does (max), an OR when its first child does (min); under a negation the
  // two swap. Children are asked left to right until the result is decided (a max at
  // infinity, a min at 0). Does not allocate.
  // With a `bound`, a time known to be at least `bound` is not refined: the result is exact
  // when below `bound`, and some value >= bound otherwise (a max stops at its first child
  // >= bound), for a caller that only asks which guard comes first.
  template <class AtomTime>
  S time_to_true(const AtomTime& atom_time, S bound = std::numeric_limits<S>::infinity()) const {
    return root_ < 0 ? std::numeric_limits<S>::infinity() : node_time(root_, false, atom_time, bound);
  }
  // The same for the tree becoming false (the time to true of its negation).
  template <class AtomTime>
  S time_to_false(const AtomTime& atom_time, S bound = std::numeric_limits<S>::infinity()) const {
    return root_ < 0 ? S(0) : node_time(root_, true, atom_time, bound);
  }

  // Readable form, e.g. "(x >= 0 && saw - kp*x <= 0)".
  std::string to_string() const { return root_ < 0 ? std::string("false") : node_string(root_); }

 private:
  // The one atom of an atom guard; a tree is an error (its atoms are different functions).
  Atom<S>& single_atom(const char* what) {
    if (atoms_.size() != 1) {
      throw InvalidArgument(std::string("Guard::") + what + " applies to one atom, not to the guard " + to_string());
    }
    return atoms_.front();
  }

  static Guard combine(Kind kind, Guard a, Guard b) {
    const int offset_nodes = static_cast<int>(a.nodes_.size());
    const int offset_atoms = static_cast<int>(a.atoms_.size());
    for (auto& atom : b.atoms_) a.atoms_.push_back(std::move(atom));
    for (auto node : b.nodes_) {
      if (node.kind == Kind::kAtom) node.atom += offset_atoms;
      for (int& child : node.children) child += offset_nodes;
      a.nodes_.push_back(std::move(node));
    }
    const int left = a.root_;
    const int right = b.root_ + offset_nodes;
    a.nodes_.push_back(Node{kind, -1, {left, right}});
    a.root_ = static_cast<int>(a.nodes_.size()) - 1;
    a.compile();
    return a;
  }

  template <class AtomTime>
  S node_time(int index, bool negate, const AtomTime& atom_time, const S& bound) const {
    const Node& node = nodes_[static_cast<std::size_t>(index)];
    switch (node.kind) {
      case Kind::kAtom: return atom_time(node.atom, negate);
      case Kind::kNot: return node_time(node.children[0], !negate, atom_time, bound);
      case Kind::kAnd:
      case Kind::kOr: {
        // Short-circuit: a max that reached the bound (infinity at most), or a min that
        // reached 0, is decided.
        const bool take_max = (node.kind == Kind::kAnd) != negate;  // De Morgan
        const auto decided = [&](const S& r) { return take_max ? r >= bound : r <= S(0); };
        S result = node_time(node.children[0], negate, atom_time, bound);
        for (std::size_t c = 1; c < node.children.size() && !decided(result); ++c) {
          const S child = node_time(node.children[c], negate, atom_time, bound);
          result = take_max ? (child > result ? child : result) : (child < result ? child : result);
        }
        return result;
      }
    }
    return std::numeric_limits<S>::infinity();
  }

  std::string node_string(int index) const {
    const Node& node = nodes_[static_cast<std::size_t>(index)];
    switch (node.kind) {
      case Kind::kAtom: {
        const Atom<S>& a = atoms_[static_cast<std::size_t>(node.atom)];
        return a.name + " " + relation_symbol(a.relation) + " 0";
      }
      case Kind::kNot: return "!(" + node_string(node.children[0]) + ")";
      case Kind::kAnd:
      case Kind::kOr: {
        std::string out = "(";
        for (std::size_t i = 0; i < node.children.size(); ++i) {
          if (i > 0) out += node.kind == Kind::kAnd ? " && " : " || ";
          out += node_string(node.children[i]);
        }
        return out + ")";
      }
    }
    return "?";
  }

  // The tree as branches on atoms (a decision list without sharing): test atom `atom`, go on
  // at on_true or on_false, an index into program_ or kTrue / kFalse, the guard's value.
  // A tree with n atoms gives n branches; compile() rebuilds it whenever the tree changes.
  static constexpr int kTrue = -1, kFalse = -2;
  struct Branch {
    int atom, on_true, on_false;
  };

  void compile() {
    program_.clear();
    entry_ = root_ < 0 ? kFalse : compile_node(root_, kTrue, kFalse);
  }

  // Emits the branches of node `index`, which goes on at on_true when it holds and at on_false
  // when it does not; returns where its reading begins. Children are emitted last to first,
  // each continuing at the one after it: an AND goes on to its next child when a child holds
  // and stops at on_false when one does not; an OR the other way round; a NOT swaps the exits.
  int compile_node(int index, int on_true, int on_false) {
    const Node& node = nodes_[static_cast<std::size_t>(index)];
    switch (node.kind) {
      case Kind::kAtom:
        program_.push_back(Branch{node.atom, on_true, on_false});
        return static_cast<int>(program_.size()) - 1;
      case Kind::kNot: return compile_node(node.children[0], on_false, on_true);
      case Kind::kAnd:
      case Kind::kOr: {
        int next = node.kind == Kind::kAnd ? on_true : on_false;
        for (auto child = node.children.rbegin(); child != node.children.rend(); ++child) {
          next = node.kind == Kind::kAnd ? compile_node(*child, next, on_false) : compile_node(*child, on_true, next);
        }
        return next;
      }
    }
    return on_false;
  }

  std::vector<Atom<S>> atoms_;
  std::vector<Node> nodes_;
  int root_ = -1;
  std::vector<Branch> program_;
  int entry_ = kFalse;
};

}  // namespace hysim
