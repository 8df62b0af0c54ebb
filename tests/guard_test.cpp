// Guard trees (core/guard.hpp): atoms, &&, ||, !, nesting, evaluation through an atom-truth
// callable, the readable form, and relation_holds for the four relations.
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "hysim/core/guard.hpp"
#include "hysim/core/scalar.hpp"

namespace hysim {
namespace {

using G = Guard<double>;

// An atom e(t, x) = x[index] - offset, so that its value is easy to control.
G component_atom(const char* name, int index, double offset, Relation relation) {
  return G::atom(
      name, [index, offset](double, const double* x) { return x[index] - offset; }, relation);
}

// Evaluates a guard the way the detector does: each atom's relation applied to its value.
bool fires(const G& guard, double t, const std::vector<double>& x) {
  return guard.evaluate([&](int i) {
    const Atom<double>& a = guard.atoms()[static_cast<std::size_t>(i)];
    return relation_holds(a.relation, a.e(t, x.data()));
  });
}

// Evaluates a guard with atom truths given directly by a bit pattern (bit i = atom i).
bool fires_bits(const G& guard, unsigned bits) {
  return guard.evaluate([bits](int i) { return ((bits >> i) & 1u) != 0; });
}

// A default guard is empty: it never fires and reads "false".
TEST(Guard, EmptyGuardNeverFires) {
  const G guard;
  EXPECT_TRUE(guard.empty());
  EXPECT_EQ(guard.root(), -1);
  EXPECT_FALSE(guard.evaluate([](int) { return true; }));
  EXPECT_EQ(guard.to_string(), "false");
}

// A single atom is one node whose truth is the truth of its atom; it keeps its name, its
// event function and its relation.
TEST(Guard, AtomIsItsOwnTruth) {
  const G guard = component_atom("x - 2", 0, 2.0, Relation::kGreaterEqual);
  ASSERT_FALSE(guard.empty());
  ASSERT_EQ(guard.atoms().size(), 1u);
  ASSERT_EQ(guard.nodes().size(), 1u);
  EXPECT_EQ(guard.root(), 0);
  EXPECT_EQ(guard.nodes()[0].kind, G::Kind::kAtom);
  EXPECT_EQ(guard.nodes()[0].atom, 0);
  EXPECT_EQ(guard.atoms()[0].name, "x - 2");
  EXPECT_EQ(guard.atoms()[0].relation, Relation::kGreaterEqual);
  const double x5[] = {5.0};
  EXPECT_EQ(guard.atoms()[0].e(0.0, x5), 3.0);

  EXPECT_TRUE(guard.evaluate([](int) { return true; }));
  EXPECT_FALSE(guard.evaluate([](int) { return false; }));
  EXPECT_TRUE(fires(guard, 0.0, {2.0}));   // e = 0 >= 0
  EXPECT_TRUE(fires(guard, 0.0, {2.5}));
  EXPECT_FALSE(fires(guard, 0.0, {1.5}));
  EXPECT_EQ(guard.to_string(), "x - 2 >= 0");
}

// a && b, a || b and !a follow their truth tables over all atom truths.
TEST(Guard, AndOrNotFollowTheirTruthTables) {
  const G a = component_atom("a", 0, 0.0, Relation::kLess);
  const G b = component_atom("b", 1, 0.0, Relation::kLess);
  const G both = a && b;
  const G either = a || b;
  const G not_a = !a;
  ASSERT_EQ(both.atoms().size(), 2u);
  ASSERT_EQ(either.atoms().size(), 2u);
  for (unsigned bits = 0; bits < 4; ++bits) {
    const bool ta = (bits & 1u) != 0, tb = (bits & 2u) != 0;
    EXPECT_EQ(fires_bits(both, bits), ta && tb) << "bits " << bits;
    EXPECT_EQ(fires_bits(either, bits), ta || tb) << "bits " << bits;
    EXPECT_EQ(fires_bits(not_a, bits), !ta) << "bits " << bits;
  }
  EXPECT_EQ(both.to_string(), "(a < 0 && b < 0)");
  EXPECT_EQ(either.to_string(), "(a < 0 || b < 0)");
  EXPECT_EQ(not_a.to_string(), "!(a < 0)");
  EXPECT_EQ(both.nodes()[static_cast<std::size_t>(both.root())].kind, G::Kind::kAnd);
  EXPECT_EQ(either.nodes()[static_cast<std::size_t>(either.root())].kind, G::Kind::kOr);
  EXPECT_EQ(not_a.nodes()[static_cast<std::size_t>(not_a.root())].kind, G::Kind::kNot);
}

// Combining renumbers the right operand's atoms after the left one's: in
// (a && !b) || (c && d) the atoms are a, b, c, d in that order, and the tree agrees with the
// same boolean expression written in C++ for all 16 truth assignments.
TEST(Guard, NestedTreeAgreesWithTheBooleanExpression) {
  const G a = component_atom("a", 0, 0.0, Relation::kLessEqual);
  const G b = component_atom("b", 1, 0.0, Relation::kGreater);
  const G c = component_atom("c", 2, 0.0, Relation::kLess);
  const G d = component_atom("d", 3, 0.0, Relation::kGreaterEqual);
  const G guard = (a && !b) || (c && d);
  ASSERT_EQ(guard.atoms().size(), 4u);
  const std::array<const char*, 4> names = {"a", "b", "c", "d"};
  for (std::size_t i = 0; i < names.size(); ++i) EXPECT_EQ(guard.atoms()[i].name, names[i]);
  // Node count: 4 atoms, one NOT, two ANDs, one OR.
  EXPECT_EQ(guard.nodes().size(), 8u);
  for (unsigned bits = 0; bits < 16; ++bits) {
    const bool ta = (bits & 1u) != 0, tb = (bits & 2u) != 0, tc = (bits & 4u) != 0, td = (bits & 8u) != 0;
    EXPECT_EQ(fires_bits(guard, bits), (ta && !tb) || (tc && td)) << "bits " << bits;
  }
  EXPECT_EQ(guard.to_string(), "((a <= 0 && !(b > 0)) || (c < 0 && d >= 0))");
}

// Nesting on the right: a && (b || !(c && d)). The right operand's own nested atoms and nodes
// are shifted consistently (its atom indices refer to the combined atom list).
TEST(Guard, RightNestedOperandIsRenumbered) {
  const G a = component_atom("a", 0, 0.0, Relation::kLess);
  const G b = component_atom("b", 1, 0.0, Relation::kLess);
  const G c = component_atom("c", 2, 0.0, Relation::kLess);
  const G d = component_atom("d", 3, 0.0, Relation::kLess);
  const G guard = a && (b || !(c && d));
  ASSERT_EQ(guard.atoms().size(), 4u);
  for (unsigned bits = 0; bits < 16; ++bits) {
    const bool ta = (bits & 1u) != 0, tb = (bits & 2u) != 0, tc = (bits & 4u) != 0, td = (bits & 8u) != 0;
    EXPECT_EQ(fires_bits(guard, bits), ta && (tb || !(tc && td))) << "bits " << bits;
  }
  EXPECT_EQ(guard.to_string(), "(a < 0 && (b < 0 || !((c < 0 && d < 0))))");
  // Every atom node points at an atom of the combined list, each exactly once.
  std::vector<int> seen(4, 0);
  for (const auto& node : guard.nodes()) {
    if (node.kind != G::Kind::kAtom) continue;
    ASSERT_GE(node.atom, 0);
    ASSERT_LT(node.atom, 4);
    ++seen[static_cast<std::size_t>(node.atom)];
  }
  EXPECT_EQ(seen, std::vector<int>(4, 1));
}

// A guard asks for its atoms as C++ evaluates the same expression: left to right, each only
// when the operators before it have not decided, so that an atom the result does not need
// costs no evaluation. Checked on (a && !b) || !(c || d && e) for all 32 truth assignments,
// the sequence of atoms asked against the one the expression asks in C++.
TEST(Guard, AsksForItsAtomsInTheShortCircuitOrderOfCpp) {
  const std::array<const char*, 5> names = {"a", "b", "c", "d", "e"};
  std::array<G, 5> atoms;
  for (int i = 0; i < 5; ++i) {
    const auto ii = static_cast<std::size_t>(i);
    atoms[ii] = component_atom(names[ii], i, 0.0, Relation::kLess);
  }
  const auto& [a, b, c, d, e] = atoms;
  const G guard = (a && !b) || !(c || (d && e));
  for (unsigned bits = 0; bits < 32; ++bits) {
    std::vector<int> asked, expected;
    const bool fired = guard.evaluate([&](int i) {
      asked.push_back(i);
      return ((bits >> i) & 1u) != 0;
    });
    const auto truth = [&](int i) {
      expected.push_back(i);
      return ((bits >> i) & 1u) != 0;
    };
    const bool value = (truth(0) && !truth(1)) || !(truth(2) || (truth(3) && truth(4)));
    EXPECT_EQ(fired, value) << "bits " << bits;
    EXPECT_EQ(asked, expected) << "bits " << bits;
  }
}

// Evaluation on real event functions: the PWM-like guard x >= 0 && saw - kp x <= 0 (004,
// Eq. 9, p1) fires exactly where both inequalities hold, with the boundary values included.
TEST(Guard, EvaluatesOnEventFunctions) {
  constexpr double kp = 0.5;
  const G x_nonnegative = component_atom("x", 0, 0.0, Relation::kGreaterEqual);
  const G saw_below = G::atom(
      "saw - kp*x", [](double, const double* x) { return x[1] - kp * x[0]; }, Relation::kLessEqual);
  const G p1 = x_nonnegative && saw_below;
  EXPECT_TRUE(fires(p1, 0.0, {2.0, 0.5}));    // x = 2 >= 0, saw 0.5 <= 1
  EXPECT_TRUE(fires(p1, 0.0, {2.0, 1.0}));    // saw - kp x = 0: on the surface, <= holds
  EXPECT_FALSE(fires(p1, 0.0, {2.0, 1.5}));   // saw above kp x
  EXPECT_FALSE(fires(p1, 0.0, {-1.0, -1.0})); // x < 0
  EXPECT_TRUE(fires(p1, 0.0, {0.0, 0.0}));    // both atoms exactly at 0
  EXPECT_EQ(p1.to_string(), "(x >= 0 && saw - kp*x <= 0)");
}

// Atom functions receive t: a time-dependent atom t - 1 >= 0 fires from t = 1 on.
TEST(Guard, TimeDependentAtom) {
  const G guard = G::atom(
      "t - 1", [](double t, const double*) { return t - 1.0; }, Relation::kGreaterEqual);
  EXPECT_FALSE(fires(guard, std::nextafter(1.0, 0.0), {0.0}));
  EXPECT_TRUE(fires(guard, 1.0, {0.0}));
  EXPECT_TRUE(fires(guard, 2.0, {0.0}));
}

// The readable symbols of the four relations.
// time_to_true: an AND becomes true when its last child does (max), an OR when its first does
// (min). With a bound, a max stops at its first child at or past the bound (the caller only
// asks whether this guard comes sooner), and a value below the bound is exact.
TEST(Guard, TimeToTrueWithABoundStopsAtTheFirstChildPastIt) {
  const G both = component_atom("a", 0, 0, Relation::kGreaterEqual) && component_atom("b", 1, 0, Relation::kGreaterEqual);
  const G either = component_atom("a", 0, 0, Relation::kGreaterEqual) || component_atom("b", 1, 0, Relation::kGreaterEqual);
  const std::array<double, 2> times = {5.0, 2.0};
  int asked = 0;
  const auto atom_time = [&](int i, bool) {
    ++asked;
    return times[static_cast<std::size_t>(i)];
  };
  EXPECT_EQ(both.time_to_true(atom_time), 5.0);
  EXPECT_EQ(asked, 2);
  asked = 0;
  EXPECT_GE(both.time_to_true(atom_time, 3.0), 3.0);  // a = 5 >= 3 decides: b is not asked
  EXPECT_EQ(asked, 1);
  asked = 0;
  EXPECT_EQ(both.time_to_true(atom_time, 10.0), 5.0);  // below the bound: exact
  EXPECT_EQ(asked, 2);
  asked = 0;
  EXPECT_EQ(either.time_to_true(atom_time, 3.0), 2.0);  // a min is never cut by the bound
  EXPECT_EQ(asked, 2);
}

// Atoms made from one Event share it (Atom::shared); with_continuous_jump marks the jump form.
TEST(Guard, AtomsOfOneEventShareIt) {
  const auto x = std::make_shared<const Event<double>>(
      Event<double>{"x", [](double, const double* s) { return s[0]; }, [](double, const double*, const double* f) { return f[0]; }});
  const G g = G::atom(x, Relation::kGreaterEqual) && !G::atom(x, Relation::kGreater);
  ASSERT_EQ(g.atoms().size(), 2u);
  EXPECT_EQ(g.atoms()[0].shared, g.atoms()[1].shared);
  EXPECT_NE(g.atoms()[0].shared, nullptr);
  EXPECT_EQ(g.atoms()[1].name, "x");
  EXPECT_EQ(g.to_string(), "(x >= 0 && !(x > 0))");
  const std::vector<double> at_zero = {0.0}, above = {1.0};
  EXPECT_TRUE(fires(g, 0, at_zero));
  EXPECT_FALSE(fires(g, 0, above));
  EXPECT_EQ(component_atom("a", 0, 0, Relation::kLess).atoms()[0].shared, nullptr);
  EXPECT_FALSE(component_atom("a", 0, 0, Relation::kLess).atoms()[0].continuous_jump);
  EXPECT_TRUE(component_atom("a", 0, 0, Relation::kLess).with_continuous_jump().atoms()[0].continuous_jump);
  // A tree's atoms are different functions: sharing one event among them is refused.
  EXPECT_THROW((component_atom("a", 0, 0, Relation::kLess) && component_atom("b", 1, 0, Relation::kLess)).with_shared(x),
               InvalidArgument);
}

TEST(Guard, RelationSymbols) {
  EXPECT_STREQ(relation_symbol(Relation::kLess), "<");
  EXPECT_STREQ(relation_symbol(Relation::kLessEqual), "<=");
  EXPECT_STREQ(relation_symbol(Relation::kGreater), ">");
  EXPECT_STREQ(relation_symbol(Relation::kGreaterEqual), ">=");
}

template <class S>
class RelationHolds : public ::testing::Test {};
using Scalars = ::testing::Types<double, long double, float128>;
TYPED_TEST_SUITE(RelationHolds, Scalars);

// relation_holds at negative, zero (both signs) and positive values, including the smallest
// magnitudes on either side of 0, in every scalar type.
TYPED_TEST(RelationHolds, AllFourRelationsAtNegativeZeroPositive) {
  using S = TypeParam;
  const S tiny = std::numeric_limits<S>::denorm_min();
  const S negatives[] = {S(-1), -tiny};
  const S zeros[] = {S(0), -S(0)};
  const S positives[] = {S(1), tiny};
  for (const S& v : negatives) {
    EXPECT_TRUE(relation_holds(Relation::kLess, v));
    EXPECT_TRUE(relation_holds(Relation::kLessEqual, v));
    EXPECT_FALSE(relation_holds(Relation::kGreater, v));
    EXPECT_FALSE(relation_holds(Relation::kGreaterEqual, v));
  }
  for (const S& v : zeros) {
    EXPECT_FALSE(relation_holds(Relation::kLess, v));
    EXPECT_TRUE(relation_holds(Relation::kLessEqual, v));
    EXPECT_FALSE(relation_holds(Relation::kGreater, v));
    EXPECT_TRUE(relation_holds(Relation::kGreaterEqual, v));
  }
  for (const S& v : positives) {
    EXPECT_FALSE(relation_holds(Relation::kLess, v));
    EXPECT_FALSE(relation_holds(Relation::kLessEqual, v));
    EXPECT_TRUE(relation_holds(Relation::kGreater, v));
    EXPECT_TRUE(relation_holds(Relation::kGreaterEqual, v));
  }
}

// A NaN satisfies no relation (every comparison with NaN is false); the detector rejects
// non-finite atom values before they get here, but the primitive itself must not fire.
TEST(RelationHoldsNaN, NoRelationHoldsForNaN) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  EXPECT_FALSE(relation_holds(Relation::kLess, nan));
  EXPECT_FALSE(relation_holds(Relation::kLessEqual, nan));
  EXPECT_FALSE(relation_holds(Relation::kGreater, nan));
  EXPECT_FALSE(relation_holds(Relation::kGreaterEqual, nan));
}

// Guards are templates over the scalar: a float128 guard evaluates on float128 values that
// double could not tell apart (1 + 2^-100 > 1).
TEST(Guard, Float128GuardResolvesBeyondDouble) {
  using Q = float128;
  const Q one = Q(1);
  const Q eps100 = ldexp(one, -100);
  const Guard<Q> guard = Guard<Q>::atom(
      "x - 1", [](Q, const Q* x) { return x[0] - Q(1); }, Relation::kGreater);
  const Q above[] = {one + eps100};
  const Q at[] = {one};
  const auto truth_at = [&guard](const Q* x) {
    return guard.evaluate([&](int i) {
      const auto& a = guard.atoms()[static_cast<std::size_t>(i)];
      return relation_holds(a.relation, a.e(Q(0), x));
    });
  };
  EXPECT_TRUE(truth_at(above));
  EXPECT_FALSE(truth_at(at));
}

}  // namespace
}  // namespace hysim
