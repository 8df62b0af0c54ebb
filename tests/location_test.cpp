// One-sided bisection (events/location.hpp): the bracket it returns has the guard not fired at
// t_a and fired at t_b; with tolerance 0 t_b is the next representable value after t_a; with a
// positive tolerance the bracket is no wider than it. Iteration counts are derived from the
// binary layout of the bracket (every midpoint of a dyadic bracket is exact).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>

#include "hysim/core/scalar.hpp"
#include "hysim/events/location.hpp"

namespace hysim {
namespace {

// The double root r = 1/3, computed in long double: fired(t) = t >= r. No double equals r,
// so the bracket must end on the two doubles around it, adjacent.
TEST(Bisect, DoubleRootOneThirdEndsOnAdjacentDoubles) {
  const long double r = 1.0L / 3.0L;
  std::int64_t iterations = 0;
  int calls = 0;
  const Bracket<double> b = bisect<double>(
      0.0, 1.0, 0.0,
      [&](double t) {
        ++calls;
        return static_cast<long double>(t) >= r;
      },
      &iterations);
  EXPECT_LT(static_cast<long double>(b.t_a), r);   // not fired at t_a
  EXPECT_GE(static_cast<long double>(b.t_b), r);   // fired at t_b
  EXPECT_EQ(b.t_b, std::nextafter(b.t_a, 2.0));    // adjacent doubles
  // 1.0/3 rounds below 1/3 (its binary expansion 0.0101... is cut after a 0), so it is t_a.
  ASSERT_LT(static_cast<long double>(1.0 / 3.0), r);
  EXPECT_EQ(b.t_a, 1.0 / 3.0);
  // The bracket [0, 1] halves to width 2^-k after k iterations; doubles in [1/4, 1/2) are
  // 2^-54 apart, so exactly 54 halvings reach adjacency (52-bit fraction + 2 for the exponent).
  EXPECT_EQ(iterations, 54);
  EXPECT_EQ(calls, 54);  // one guard evaluation per halving
}

// sqrt(2) computed in long double: doubles in [1, 2) are 2^-52 apart, so 52 halvings of [1, 2].
TEST(Bisect, DoubleRootSqrt2TakesFiftyTwoHalvings) {
  const long double r = std::sqrt(2.0L);
  std::int64_t iterations = 0;
  const Bracket<double> b =
      bisect<double>(1.0, 2.0, 0.0, [&](double t) { return static_cast<long double>(t) >= r; }, &iterations);
  EXPECT_LT(static_cast<long double>(b.t_a), r);
  EXPECT_GE(static_cast<long double>(b.t_b), r);
  EXPECT_EQ(b.t_b, std::nextafter(b.t_a, 2.0));
  EXPECT_EQ(iterations, 52);
  EXPECT_LE(iterations, 64);
  // std::sqrt(2.0) is the double nearest sqrt(2): one of the two ends.
  EXPECT_TRUE(b.t_a == std::sqrt(2.0) || b.t_b == std::sqrt(2.0));
}

// A root on the bracket's right end: fired(t) = t >= 1 over [0, 1] ends with t_b = 1 and t_a
// the double just below 1 (2^-53 below), after 53 halvings.
TEST(Bisect, RootAtTheRightEnd) {
  std::int64_t iterations = 0;
  const Bracket<double> b = bisect<double>(0.0, 1.0, 0.0, [](double t) { return t >= 1.0; }, &iterations);
  EXPECT_EQ(b.t_b, 1.0);
  EXPECT_EQ(b.t_a, 1.0 - std::ldexp(1.0, -53));
  EXPECT_EQ(iterations, 53);
}

// A bracket that is already adjacent, or already within tolerance, is returned unchanged
// without evaluating the guard.
TEST(Bisect, NoHalvingWhenAlreadyResolved) {
  std::int64_t iterations = 0;
  int calls = 0;
  const auto count = [&](double) {
    ++calls;
    return true;
  };
  const double a = 0.75;
  const double b = std::nextafter(a, 1.0);
  const Bracket<double> adjacent = bisect<double>(a, b, 0.0, count, &iterations);
  EXPECT_EQ(adjacent.t_a, a);
  EXPECT_EQ(adjacent.t_b, b);
  const Bracket<double> wide = bisect<double>(0.0, 0.5, 0.5, count, &iterations);
  EXPECT_EQ(wide.t_a, 0.0);
  EXPECT_EQ(wide.t_b, 0.5);
  EXPECT_EQ(iterations, 0);
  EXPECT_EQ(calls, 0);
}

// A positive tolerance stops at the first width <= tolerance: for [0, 1] and 1e-6 that is
// 2^-20 (2^-19 = 1.9e-6 is still too wide), after exactly 20 halvings; the invariant holds.
TEST(Bisect, PositiveToleranceBoundsTheWidth) {
  const long double r = 1.0L / 3.0L;
  const double tolerance = 1e-6;
  std::int64_t iterations = 0;
  const Bracket<double> b = bisect<double>(
      0.0, 1.0, tolerance, [&](double t) { return static_cast<long double>(t) >= r; }, &iterations);
  EXPECT_LE(b.t_b - b.t_a, tolerance);
  EXPECT_EQ(b.t_b - b.t_a, std::ldexp(1.0, -20));
  EXPECT_EQ(iterations, 20);
  EXPECT_LT(static_cast<long double>(b.t_a), r);
  EXPECT_GE(static_cast<long double>(b.t_b), r);
}

// The iteration counter accumulates across calls (the simulator sums it over a run).
TEST(Bisect, IterationCounterAccumulates) {
  std::int64_t iterations = 100;
  bisect<double>(1.0, 2.0, 0.0, [](double t) { return t >= 1.5; }, &iterations);
  // [1, 2] -> [1, 1.5] -> ... t_b stays 1.5 while t_a climbs to 1.5 - 2^-52: 52 halvings.
  EXPECT_EQ(iterations, 152);
}

// Over [0, 1] with the root r = S(1)/3 (rounded in S) and fired(t) = t >= r, the bracket ends
// exactly on r: t_b = r and t_a the representable value just below. The halvings needed are
// digits + 1 (the values in [1/4, 1/2) are 2^-(digits+1) apart): 54, 65 and 114 for double,
// long double (64-bit significand) and float128 (113-bit significand).
template <class S>
class BisectTyped : public ::testing::Test {};
using Scalars = ::testing::Types<double, long double, float128>;
TYPED_TEST_SUITE(BisectTyped, Scalars);

// In every scalar type the tolerance-0 bracket reaches the adjacent representable values.
TYPED_TEST(BisectTyped, ReachesAdjacentRepresentableValues) {
  using S = TypeParam;
  const S r = S(1) / S(3);
  std::int64_t iterations = 0;
  const Bracket<S> b = bisect<S>(S(0), S(1), S(0), [&](S t) { return t >= r; }, &iterations);
  EXPECT_TRUE(b.t_a < r);
  EXPECT_TRUE(b.t_b == r);
  EXPECT_TRUE(next_up(b.t_a) == b.t_b);
  EXPECT_EQ(iterations, std::numeric_limits<S>::digits + 1);
}

// With sqrt(2) in S as the root over [1, 2], the number of halvings is digits - 1 (the values
// in [1, 2) are 2^-(digits-1) apart) and the ends are adjacent.
TYPED_TEST(BisectTyped, Sqrt2InEachType) {
  using S = TypeParam;
  using std::sqrt;
  const S r = sqrt(S(2));
  std::int64_t iterations = 0;
  const Bracket<S> b = bisect<S>(S(1), S(2), S(0), [&](S t) { return t >= r; }, &iterations);
  EXPECT_TRUE(b.t_b == r);
  EXPECT_TRUE(next_up(b.t_a) == b.t_b);
  EXPECT_EQ(iterations, std::numeric_limits<S>::digits - 1);
}

// A positive tolerance in S: 2^-40 over [0, 1] takes exactly 40 halvings in every type.
TYPED_TEST(BisectTyped, PositiveToleranceInEachType) {
  using S = TypeParam;
  using std::ldexp;
  const S r = S(1) / S(3);
  const S tolerance = ldexp(S(1), -40);
  std::int64_t iterations = 0;
  const Bracket<S> b = bisect<S>(S(0), S(1), tolerance, [&](S t) { return t >= r; }, &iterations);
  EXPECT_TRUE(b.t_b - b.t_a <= tolerance);
  EXPECT_TRUE(b.t_a < r && b.t_b >= r);
  EXPECT_EQ(iterations, 40);
}

}  // namespace
}  // namespace hysim
