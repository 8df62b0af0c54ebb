// Closed intervals of doubles with outward rounding: the arithmetic of certified event
// detection (events/certifier.hpp), of the interval evaluation of model files
// (lang/interval.hpp) and of the enclosure of a step's dense output (solvers/dense_enclosure.hpp).
//
// Every bound is computed in double with round-to-nearest: +, -, *, / and sqrt are correctly
// rounded by IEEE 754 (error at most half an ulp), so the exact result of the operation on the
// bounds lies within an ulp of it; +, -, * and / move a bound that ulp (std::nextafter) only
// when their exact error says the rounding went inward (below), the other functions always.
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

// Directed bounds of one operation, from its exact error: TwoSum for + (Knuth, "The Art of
// Computer Programming" vol. 2, 4.2.2), fma for * and / (the product's error a*b - p and the
// quotient's remainder a - q*b are doubles). A bound moves one ulp only when the rounding
// went the wrong way for it, so exact results stay points (x - x is [0, 0]). An overflow to
// infinity bounds from the finite side; near underflow, where the error is not a double,
// the bound moves one ulp regardless.
namespace detail {
constexpr double kTiny = 0x1p-960;
// r = fl(exact) with exact - r = error when `error_known`; else (a product or quotient near
// underflow) only |exact - r| <= one ulp is known.
inline double bound(double r, double error, bool error_known, bool lower) {
  if (std::isnan(r)) return r;
  if (std::isinf(r)) return lower == (r > 0) ? std::copysign(std::numeric_limits<double>::max(), r) : r;
  if (!error_known) return lower ? down(r) : up(r);
  if (lower) return error < 0 ? down(r) : r;
  return error > 0 ? up(r) : r;
}
// TwoSum's error is exact for every pair of finite doubles, subnormal ones included.
inline double sum(double a, double b, bool lower) {
  const double s = a + b;
  const double bb = s - a;
  return bound(s, (a - (s - bb)) + (b - bb), true, lower);
}
// A lower (upper) bound of a * b from one product and one fma.
inline double product(double a, double b, bool lower) {
  const double p = a * b;
  if (a == 0 || b == 0) return p;  // exact (0 * inf is NaN, which the caller catches)
  return bound(p, std::isfinite(p) ? std::fma(a, b, -p) : 0.0, std::fabs(p) >= kTiny, lower);
}
inline double quotient(double a, double b, bool lower) {
  const double q = a / b;
  if (a == 0) return q;  // exact
  // a/b - q = (a - q b) / b: the remainder's sign times b's
  const double remainder = std::isfinite(q) ? std::fma(-q, b, a) : 0.0;
  return bound(q, b > 0 ? remainder : -remainder, std::fabs(q) >= kTiny, lower);
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

inline Interval divide(Interval a, Interval b) {
  if (b.lo <= 0 && b.hi >= 0) return Interval::entire();
  if (b.lo == b.hi) {  // by a point: the bounds keep or swap their places
    const double lo = b.lo > 0 ? a.lo : a.hi, hi = b.lo > 0 ? a.hi : a.lo;
    return checked(detail::quotient(lo, b.lo, true), detail::quotient(hi, b.lo, false));
  }
  const double x[2] = {a.lo, a.hi}, y[2] = {b.lo, b.hi};
  double lo = std::numeric_limits<double>::infinity(), hi = -lo;
  for (const double u : x) {
    for (const double v : y) {
      const double l = detail::quotient(u, v, true), h = detail::quotient(u, v, false);
      if (std::isnan(l) || std::isnan(h)) return Interval::entire();
      lo = std::min(lo, l);
      hi = std::max(hi, h);
    }
  }
  return {lo, hi};
}

}  // namespace interval
}  // namespace hysim
