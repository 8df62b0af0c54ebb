// Closed intervals of doubles with outward rounding: the arithmetic of certified event
// detection (events/certifier.hpp), of the interval evaluation of model files
// (lang/interval.hpp) and of the enclosure of a step's dense output (solvers/dense_enclosure.hpp).
//
// Every bound is computed in double with round-to-nearest, then moved one ulp away
// (std::nextafter): +, -, *, / and sqrt are correctly rounded by IEEE 754 (error at most half
// an ulp), so the exact result of the operation on the bounds lies inside. A NaN bound (0 * inf,
// inf - inf) makes the whole line: an enclosure that proves nothing, never a wrong one.
// (R. E. Moore, R. B. Kearfott and M. J. Cloud, "Introduction to Interval Analysis", SIAM
// 2009, chapters 2-4.)
#pragma once

#include <algorithm>
#include <cmath>
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

inline double down(double v, int ulps = 1) {
  for (int i = 0; i < ulps; ++i) v = std::nextafter(v, -std::numeric_limits<double>::infinity());
  return v;
}
inline double up(double v, int ulps = 1) {
  for (int i = 0; i < ulps; ++i) v = std::nextafter(v, std::numeric_limits<double>::infinity());
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

inline Interval add(Interval a, Interval b) { return outward(a.lo + b.lo, a.hi + b.hi); }
inline Interval subtract(Interval a, Interval b) { return outward(a.lo - b.hi, a.hi - b.lo); }
inline Interval negate(Interval a) { return {-a.hi, -a.lo}; }  // exact

inline Interval multiply(Interval a, Interval b) {
  const double p0 = a.lo * b.lo, p1 = a.lo * b.hi, p2 = a.hi * b.lo, p3 = a.hi * b.hi;
  // 0 * inf is NaN: the product of 0 and an unbounded interval is unbounded.
  if (std::isnan(p0) || std::isnan(p1) || std::isnan(p2) || std::isnan(p3)) return Interval::entire();
  return outward(std::min({p0, p1, p2, p3}), std::max({p0, p1, p2, p3}));
}

inline Interval divide(Interval a, Interval b) {
  if (b.lo <= 0 && b.hi >= 0) return Interval::entire();
  return multiply(a, outward(1 / b.hi, 1 / b.lo));
}

}  // namespace interval
}  // namespace hysim
