// One-sided location (events/location.hpp), bisection first: the bracket it returns has the guard not fired at
// t_a and fired at t_b; with tolerance 0 t_b is the next representable value after t_a; with a
// positive tolerance the bracket is no wider than it. Iteration counts are derived from the
// binary layout of the bracket (every midpoint of a dyadic bracket is exact).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <iostream>
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

// The interpolating locators on phi(t) = exp(t) - 2 over [0, 1] (root ln 2, computed in long
// double), fired(t) = phi(t) >= 0, tolerance 0: each ends on the two doubles around the root;
// the secant through the latest trial points (order 1.618) needs fewer of them than Illinois,
// which interpolates between the bracket's ends, and both far fewer than bisection's 53.
std::int64_t locate_exp(Locator locator, Bracket<double>* out) {
  const long double r = std::log(2.0L);
  std::int64_t iterations = 0;
  *out = locate<double>(
      locator, 0.0, 1.0, std::exp(0.0) - 2, std::exp(1.0) - 2, 0.0,
      [&](double t) {
        const double phi = std::exp(t) - 2;
        return Probe<double>{static_cast<long double>(t) >= r, phi};
      },
      &iterations);
  EXPECT_LT(static_cast<long double>(out->t_a), r);
  EXPECT_GE(static_cast<long double>(out->t_b), r);
  EXPECT_EQ(out->t_b, std::nextafter(out->t_a, 2.0));
  return iterations;
}

TEST(Locate, SecantNeedsFewerTrialPointsThanIllinoisOnASmoothRoot) {
  Bracket<double> secant{}, illinois{};
  const std::int64_t n_secant = locate_exp(Locator::kSecant, &secant);
  const std::int64_t n_illinois = locate_exp(Locator::kIllinois, &illinois);
  EXPECT_EQ(secant.t_a, illinois.t_a);
  EXPECT_LE(n_secant, 8);
  EXPECT_LT(n_secant, n_illinois);
  std::cout << "exp(t) - 2 on [0, 1]: secant " << n_secant << " trial points, Illinois " << n_illinois << "\n";
}

// The last ulps: phi(t) = t - 1/2 is located exactly by its first regula falsi point, t = 1/2
// (fired, phi = 0). The next interpolated point is that end again; the locator then tries the
// double just below it, which closes the bracket [prev(1/2), 1/2]: 2 trial points, where a
// midpoint there would bisect [0, 1/2] down to one ulp (54 more).
TEST(Locate, ARootOnATrialPointClosesInOneMore) {
  for (const Locator locator : {Locator::kIllinois, Locator::kSecant}) {
    std::int64_t iterations = 0;
    const Bracket<double> b = locate<double>(
        locator, 0.0, 1.0, -0.5, 0.5, 0.0, [](double t) { return Probe<double>{t >= 0.5, t - 0.5}; }, &iterations);
    EXPECT_EQ(b.t_b, 0.5);
    EXPECT_EQ(b.t_a, std::nextafter(0.5, 0.0));
    EXPECT_EQ(iterations, 2);
  }
}

// A flat (triple) root, phi(t) = (t - 1/3)^3: interpolation crawls, and the safeguard (the
// midpoint after three trial points that did not halve the bracket) bounds the cost by four
// trial points per halving, 4 x 54 for [0, 1].
TEST(Locate, SecantOnATripleRootIsBoundedByTheSafeguard) {
  const long double r = 1.0L / 3.0L;
  std::int64_t iterations = 0;
  const auto phi = [&](double t) { return static_cast<double>((static_cast<long double>(t) - r) * (t - r) * (t - r)); };
  const Bracket<double> b = locate<double>(
      Locator::kSecant, 0.0, 1.0, phi(0.0), phi(1.0), 0.0,
      [&](double t) { return Probe<double>{static_cast<long double>(t) >= r, phi(t)}; }, &iterations);
  EXPECT_LT(static_cast<long double>(b.t_a), r);
  EXPECT_GE(static_cast<long double>(b.t_b), r);
  EXPECT_EQ(b.t_b, std::nextafter(b.t_a, 2.0));
  EXPECT_LE(iterations, 4 * 54);
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
