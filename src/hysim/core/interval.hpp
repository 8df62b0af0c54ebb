// Closed intervals of doubles with outward rounding: the arithmetic of certified event
// detection (events/certifier.hpp), of the interval evaluation of model files
// (lang/interval.hpp) and of the enclosure of a step's dense output (solvers/dense_enclosure.hpp).
//
// Every bound is computed in double with round-to-nearest: +, -, *, / and sqrt are correctly
// rounded by IEEE 754 (error at most half an ulp), so the exact result of the operation on the
// bounds lies within an ulp of it; + and - move a bound that ulp only when their exact error
// says the rounding went inward, * and / move it to a bound of the neighbouring double (below),
// the other functions always.
// A NaN bound (0 * inf, inf - inf) makes the whole line: an enclosure that proves nothing,
// never a wrong one.
// (R. E. Moore, R. B. Kearfott and M. J. Cloud, "Introduction to Interval Analysis", SIAM
// 2009, chapters 2-4.)
#pragma once

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>

namespace hysim {

struct Interval {
  double lo = 0, hi = 0;

  static Interval point(double v) { return {v, v}; }
  static Interval entire() {
    return {-std::numeric_limits<double>::infinity(), std::numeric_limits<double>::infinity()};
  }
  bool contains(double v) const { return lo <= v && v <= hi; }
  bool certainly_positive() const { return lo > 0; }
  bool certainly_negative() const { return hi < 0; }
  double width() const { return hi - lo; }
  double mid() const { return lo + (hi - lo) / 2; }
};

namespace interval {

// The next double above v (below, for down), as std::nextafter toward +-infinity, on the
// bits: this is the certifier's innermost operation. Infinities and NaN stay.
inline double up(double v) {
  if (!(v < std::numeric_limits<double>::infinity())) return v;  // +inf, NaN
  if (v == 0) return std::numeric_limits<double>::denorm_min();
  const auto bits = std::bit_cast<std::uint64_t>(v);
  return std::bit_cast<double>(v > 0 ? bits + 1 : bits - 1);
}
inline double down(double v) { return -up(-v); }
inline double down(double v, int ulps) {
  for (int i = 0; i < ulps; ++i) v = down(v);
  return v;
}
inline double up(double v, int ulps) {
  for (int i = 0; i < ulps; ++i) v = up(v);
  return v;
}

// [lo, hi] moved outward by `ulps`; a NaN bound makes the whole line.
inline Interval outward(double lo, double hi, int ulps = 1) {
  if (std::isnan(lo) || std::isnan(hi)) return Interval::entire();
  return {down(lo, ulps), up(hi, ulps)};
}

inline Interval hull(Interval a, Interval b) { return {std::min(a.lo, b.lo), std::max(a.hi, b.hi)}; }
// a and b both enclose one value: so does their intersection (empty only through an error
// elsewhere, which then yields the hull rather than nothing).
inline Interval intersect(Interval a, Interval b) {
  const Interval r{std::max(a.lo, b.lo), std::min(a.hi, b.hi)};
  return r.lo <= r.hi ? r : hull(a, b);
}

// Directed bounds of one operation. A sum's from its exact error, TwoSum (Knuth, "The Art of
// Computer Programming" vol. 2, 4.2.2): a bound moves one ulp only when the rounding went the
// wrong way for it, so exact sums stay points (x - x is [0, 0]). A product's or quotient's,
// which round to nearest within half an ulp, from the neighbours of the rounded result, bounded
// without a branch as Rump, Zimmermann, Boldo and Melquiond show ("Computing predecessor and
// successor in rounding to nearest", BIT 49, 2009, Theorem 2.1): with e = phi |c| + eta,
// phi = 2^-53 (1 + 2^-52) and eta the least subnormal, c - e <= pred(c) and c + e >= succ(c).
// A product or quotient of 0 is exact. An overflow gives infinity - infinity, NaN: the caller
// makes that the whole line.
namespace detail {
// e = phi |c| + eta: c - e and c + e bound the exact value that c, correctly rounded, stands for.
inline double neighbour_gap(double c) { return std::fabs(c) * 0x1.0000000000001p-53 + 0x1p-1074; }
// A bound below (above) the exact value that c, a correctly rounded result, stands for.
inline double neighbour(double c, bool lower) { return lower ? c - neighbour_gap(c) : c + neighbour_gap(c); }
// TwoSum's error is exact for every pair of finite doubles, subnormal ones included. An inexact
// sum moves to its neighbour's bound, without a branch on the error's sign (which rounding
// makes unpredictable): a sum rounded outward already moves one ulp further than it must.
// An overflow (an error of NaN) gives NaN on the overflowing side: the whole line.
inline double sum(double a, double b, bool lower) {
  const double s = a + b;
  const double bb = s - a;
  const double error = (a - (s - bb)) + (b - bb);
  const double step = neighbour_gap(s) * static_cast<double>(error != 0);  // NaN != 0 too; no branch
  return lower ? s - step : s + step;
}
inline double product(double a, double b, bool lower) {
  const double p = a * b;
  return a == 0 || b == 0 ? p : neighbour(p, lower);  // 0 * inf is NaN, which the caller catches
}
inline double quotient(double a, double b, bool lower) {
  const double q = a / b;
  return a == 0 ? q : neighbour(q, lower);
}
}  // namespace detail

inline Interval checked(double lo, double hi) {
  if (std::isnan(lo) || std::isnan(hi)) return Interval::entire();
  return {lo, hi};
}

inline Interval add(Interval a, Interval b) {
  return checked(detail::sum(a.lo, b.lo, true), detail::sum(a.hi, b.hi, false));
}
inline Interval subtract(Interval a, Interval b) {
  return checked(detail::sum(a.lo, -b.hi, true), detail::sum(a.hi, -b.lo, false));
}
inline Interval negate(Interval a) { return {-a.hi, -a.lo}; }  // exact

// By the signs of the factors (Moore, Kearfott and Cloud, Table 2.1): two products, four only
// when both intervals hold 0 inside.
inline Interval multiply(Interval a, Interval b) {
  const auto product_of = [](double x_lo, double y_lo, double x_hi, double y_hi) {
    return checked(detail::product(x_lo, y_lo, true), detail::product(x_hi, y_hi, false));
  };
  if (a.lo >= 0) {
    if (b.lo >= 0) return product_of(a.lo, b.lo, a.hi, b.hi);
    if (b.hi <= 0) return product_of(a.hi, b.lo, a.lo, b.hi);
    return product_of(a.hi, b.lo, a.hi, b.hi);
  }
  if (a.hi <= 0) {
    if (b.lo >= 0) return product_of(a.lo, b.hi, a.hi, b.lo);
    if (b.hi <= 0) return product_of(a.hi, b.hi, a.lo, b.lo);
    return product_of(a.lo, b.hi, a.lo, b.lo);
  }
  if (b.lo >= 0) return product_of(a.lo, b.hi, a.hi, b.hi);
  if (b.hi <= 0) return product_of(a.hi, b.lo, a.lo, b.lo);
  const Interval one = product_of(a.lo, b.hi, a.hi, b.hi), two = product_of(a.hi, b.lo, a.lo, b.lo);
  if (std::isnan(one.lo) || std::isnan(two.lo)) return Interval::entire();
  return {std::min(one.lo, two.lo), std::max(one.hi, two.hi)};
}

// By the signs (Moore, Kearfott and Cloud, Table 2.2): a divisor that holds 0 gives the whole
// line; otherwise two quotients, the divisor's bound each takes set by the dividend's signs.
inline Interval divide(Interval a, Interval b) {
  if (!(b.lo > 0 || b.hi < 0)) return Interval::entire();  // holds 0, or NaN
  const auto quotient_of = [](double x_lo, double y_lo, double x_hi, double y_hi) {
    return checked(detail::quotient(x_lo, y_lo, true), detail::quotient(x_hi, y_hi, false));
  };
  if (b.lo > 0) {
    if (a.lo >= 0) return quotient_of(a.lo, b.hi, a.hi, b.lo);
    if (a.hi <= 0) return quotient_of(a.lo, b.lo, a.hi, b.hi);
    return quotient_of(a.lo, b.lo, a.hi, b.lo);
  }
  if (a.lo >= 0) return quotient_of(a.hi, b.hi, a.lo, b.lo);
  if (a.hi <= 0) return quotient_of(a.hi, b.lo, a.lo, b.hi);
  return quotient_of(a.hi, b.hi, a.lo, b.hi);
}

}  // namespace interval
}  // namespace hysim
