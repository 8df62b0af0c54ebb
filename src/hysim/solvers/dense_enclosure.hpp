// Enclosures of a step's dense output over parts of the step: the computed trajectory that
// certified event detection reasons about (events/certifier.hpp).
//
// The dense output of every solver is a polynomial P of a known degree d in the step fraction
// theta = (t - t0) / h (Stepper::dense_degree). It is read at the d + 1 Chebyshev-Lobatto
// points theta_j = (1 - cos(j pi / d)) / 2, which include both ends (the stored points), and
// held in Newton's form
//   P(theta) = c_0 + (theta - theta_0) (c_1 + (theta - theta_1) (c_2 + ...)),
// its divided differences c_j computed in interval arithmetic (core/interval.hpp), so that
// the interval coefficients enclose those of the exact polynomial through the points read.
// Over theta in [a, b] with centre m, each component is enclosed by the centred (mean-value)
// form intersected with the plain one,
//   P([a, b])  in  ( P(m) + P'([a, b]) [a - m, b - m] )  cap  P([a, b]),
// whose overestimation shrinks like the square of b - a (Moore, Kearfott and Cloud,
// "Introduction to Interval Analysis", SIAM 2009, section 6.4), and dx/dt by P'([a, b]) / h.
//
// What it encloses: the polynomial through the solver's dense output at those points. The
// points themselves are the method's formula evaluated in double, whose rounding (a few ulps
// of the state and of h times the stages) is covered by widening each interior point, per
// component, by kPointUlps ulps of the sizes the formula adds up (|x| at the points, the
// change over the step, h |dx/dt| at its end): a bound of that rounding, not a proof of it.
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <limits>
#include <numbers>
#include <vector>

#include "hysim/core/interval.hpp"
#include "hysim/solvers/stepper.hpp"

namespace hysim {

class DenseEnclosure {
 public:
  static constexpr int kMaxDegree = 12;
  static constexpr double kPointUlps = 64;

  explicit DenseEnclosure(std::size_t n) : n_(n), newton_((kMaxDegree + 1) * n), point_(n), spread_(n) {}

  enum class Fit {
    kFitted,    // enclose() may be called
    kNoDegree,  // the dense output has no known degree
    kTooShort,  // the step holds fewer than degree + 1 distinct doubles of t: no points to read
  };

  // Reads the last accepted step of `stepper`.
  Fit fit(const Stepper<double>& stepper) {
    using namespace interval;
    degree_ = stepper.dense_degree();
    if (degree_ < 0 || degree_ > kMaxDegree) return Fit::kNoDegree;
    degree_ = std::max(degree_, 1);
    t0_ = stepper.t_previous();
    h_ = stepper.t_current() - t0_;
    const double* nodes = lobatto(degree_);
    for (int j = 1; j < degree_; ++j) {  // the points' times must be distinct
      const double before = t0_ + nodes[j - 1] * h_;
      const double at = t0_ + nodes[j] * h_;
      if (!(at > before && at < stepper.t_current())) return Fit::kTooShort;
    }
    const double* x0 = stepper.x_previous();
    const double* x1 = stepper.x_current();
    const double* f1 = stepper.dxdt_current();
    // Per component, the size of what the formula adds up: the state, and h times the slopes
    // (the change over the step, and h f at its end).
    for (std::size_t i = 0; i < n_; ++i) {
      spread_[i] = std::fabs(x0[i]) + std::fabs(x1[i]) + std::fabs(x1[i] - x0[i]) + std::fabs(h_ * f1[i]);
    }
    for (int j = 0; j <= degree_; ++j) {
      theta_[j] = nodes[j];
      const double t = j == degree_ ? stepper.t_current() : t0_ + theta_[j] * h_;
      if (j == 0) {
        std::copy(x0, x0 + n_, point_.begin());
      } else if (j == degree_) {
        std::copy(x1, x1 + n_, point_.begin());
      } else {
        stepper.interpolate(t, point_.data());
        theta_[j] = (t - t0_) / h_;  // the fraction the solver read (t rounded)
        for (std::size_t i = 0; i < n_; ++i) spread_[i] = std::max(spread_[i], std::fabs(point_[i]));
      }
      for (std::size_t i = 0; i < n_; ++i) coefficient(j, i) = Interval::point(point_[i]);
    }
    // Each interior point read within the bound of its rounding; the ends are the stored points.
    constexpr double kUnit = kPointUlps * std::numeric_limits<double>::epsilon();
    for (int j = 1; j < degree_; ++j) {
      for (std::size_t i = 0; i < n_; ++i) {
        const Interval p = coefficient(j, i);
        coefficient(j, i) = outward(p.lo - kUnit * spread_[i], p.hi + kUnit * spread_[i]);
      }
    }
    // divided differences, in place: c_j = P[theta_0, ..., theta_j]
    for (int level = 1; level <= degree_; ++level) {
      for (int j = degree_; j >= level; --j) {
        // one division per node pair, a product per component
        const Interval reciprocal =
            divide(Interval::point(1), subtract(Interval::point(theta_[j]), Interval::point(theta_[j - level])));
        for (std::size_t i = 0; i < n_; ++i) {
          coefficient(j, i) = multiply(subtract(coefficient(j, i), coefficient(j - 1, i)), reciprocal);
        }
      }
    }
    per_h_ = divide(Interval::point(1), Interval::point(h_));
    return Fit::kFitted;
  }

  double t0() const { return t0_; }
  double h() const { return h_; }

  // Over t in [ta, tb] (within the step): x_i in x[i] and, unless null, dx_i/dt in dxdt[i].
  void enclose(double ta, double tb, Interval* x, Interval* dxdt) const {
    using namespace interval;
    const Interval h = Interval::point(h_);
    const Interval lo = divide(subtract(Interval::point(ta), Interval::point(t0_)), h);
    const Interval hi = divide(subtract(Interval::point(tb), Interval::point(t0_)), h);
    const Interval theta{std::max(0.0, lo.lo), std::min(1.0, hi.hi)};
    if (ta == t0_ && tb == t0_ && dxdt == nullptr) {  // the step's start: the stored point
      for (std::size_t i = 0; i < n_; ++i) x[i] = coefficient(0, i);
      return;
    }
    if (ta == tb) {  // a point: Horner's value alone
      for (std::size_t i = 0; i < n_; ++i) {
        horner(i, factors(theta, factor_), &x[i], dxdt != nullptr ? &dxdt[i] : nullptr);
        if (dxdt != nullptr) dxdt[i] = divide(dxdt[i], h);
      }
      return;
    }
    centred(theta, Interval::point(theta.mid()), x, dxdt, nullptr);
  }

  // As enclose(ta, tb, x, dxdt), the mean-value form taken at the time tc in [ta, tb] (not
  // only its centre), whose enclosure it also gives: x_i(tc) in x_centre[i] (certified
  // detection reads the guards there).
  void enclose(double ta, double tb, double tc, Interval* x, Interval* dxdt, Interval* x_centre) const {
    using namespace interval;
    const Interval h = Interval::point(h_);
    const Interval lo = divide(subtract(Interval::point(ta), Interval::point(t0_)), h);
    const Interval hi = divide(subtract(Interval::point(tb), Interval::point(t0_)), h);
    const Interval centre = tc == t0_ ? Interval{0, 0} : divide(subtract(Interval::point(tc), Interval::point(t0_)), h);
    centred(Interval{std::max(0.0, lo.lo), std::min(1.0, hi.hi)}, centre, x, dxdt, x_centre);
  }

  // Over t in [ta, tb] (within the step): x_i in x[i], dx_i/dt in dxdt[i] and d2x_i/dt2 in
  // d2xdt2[i], from the Taylor form at the midpoint m, P(m + s) = sum_k a_k s^k (a_k the
  // derivatives at m over k!, from Newton's form by Horner's scheme with derivatives, at a
  // point, so tight), evaluated for s in [a - m, b - m]: the coefficients are nearly points
  // and s is small, where Horner's scheme over the whole interval of theta would add up the
  // overestimation of every product (the dependency problem). The exact flow's bound (level 2
  // of certified detection) reads the dense output's defect from them.
  void derivatives(double ta, double tb, Interval* x, Interval* dxdt, Interval* d2xdt2) const {
    using namespace interval;
    const Interval h = Interval::point(h_);
    const Interval h2 = multiply(h, h);
    const Interval lo = divide(subtract(Interval::point(ta), Interval::point(t0_)), h);
    const Interval hi = divide(subtract(Interval::point(tb), Interval::point(t0_)), h);
    const Interval theta{std::max(0.0, lo.lo), std::min(1.0, hi.hi)};
    const double m = theta.mid();
    const Interval s = subtract(theta, Interval::point(m));
    factors(Interval::point(m), factor_mid_);
    Interval a[kMaxDegree + 1];
    for (std::size_t i = 0; i < n_; ++i) {
      // a_k <- a_k (m - theta_j) + a_{k-1}, a_0 <- a_0 (m - theta_j) + c_j: after the last node,
      // a_k = P^(k)(m) / k!
      for (int k = 0; k <= degree_; ++k) a[k] = Interval{0, 0};
      a[0] = coefficient(degree_, i);
      for (int j = degree_ - 1; j >= 0; --j) {
        for (int k = degree_ - j; k >= 1; --k) a[k] = add(multiply(a[k], factor_mid_[j]), a[k - 1]);
        a[0] = add(multiply(a[0], factor_mid_[j]), coefficient(j, i));
      }
      // P(m + s), P'(m + s) = sum k a_k s^(k-1), P''(m + s) = sum k (k-1) a_k s^(k-2)
      Interval value = a[degree_], slope{0, 0}, curvature{0, 0};
      for (int k = degree_ - 1; k >= 0; --k) value = add(multiply(value, s), a[k]);
      for (int k = degree_; k >= 1; --k) slope = add(multiply(slope, s), multiply(Interval::point(k), a[k]));
      for (int k = degree_; k >= 2; --k) {
        curvature = add(multiply(curvature, s), multiply(Interval::point(double(k) * (k - 1)), a[k]));
      }
      x[i] = value;
      dxdt[i] = divide(slope, h);
      d2xdt2[i] = divide(curvature, h2);
    }
  }

 private:
  // The Chebyshev-Lobatto points (1 - cos(j pi / d)) / 2 of degree d, j = 0..d (0 and 1 exact).
  static const double* lobatto(int d) {
    static const auto table = [] {
      std::array<std::array<double, kMaxDegree + 1>, kMaxDegree + 1> nodes{};
      for (int degree = 1; degree <= kMaxDegree; ++degree) {
        for (int j = 0; j <= degree; ++j) {
          nodes[degree][j] = j == 0 ? 0.0 : j == degree ? 1.0 : (1 - std::cos(j * std::numbers::pi / degree)) / 2;
        }
      }
      return nodes;
    }();
    return table[static_cast<std::size_t>(d)].data();
  }

  Interval& coefficient(int j, std::size_t i) { return newton_[static_cast<std::size_t>(j) * n_ + i]; }
  const Interval& coefficient(int j, std::size_t i) const { return newton_[static_cast<std::size_t>(j) * n_ + i]; }

  // Over theta in `theta`: the centred form P(c) + P'(theta) (theta - c) cap P(theta), c in
  // `centre` (an interval holding the exact centre is as good: each theta has a point of it).
  void centred(Interval theta, Interval centre, Interval* x, Interval* dxdt, Interval* x_centre) const {
    using namespace interval;
    const Interval offset = subtract(theta, centre);
    factors(theta, factor_);
    const bool start = centre.lo == 0 && centre.hi == 0;  // P(0) is the stored first point
    if (!start) factors(centre, factor_mid_);
    for (std::size_t i = 0; i < n_; ++i) {
      Interval p{}, dp{};
      horner(i, factor_, &p, &dp);
      Interval pm = coefficient(0, i);
      if (!start) horner(i, factor_mid_, &pm, nullptr);
      x[i] = intersect(p, add(pm, multiply(dp, offset)));
      if (dxdt != nullptr) dxdt[i] = multiply(dp, per_h_);
      if (x_centre != nullptr) x_centre[i] = pm;
    }
  }

  // theta - theta_j for every point j, the same for every component.
  const Interval* factors(Interval theta, Interval* out) const {
    for (int j = 0; j < degree_; ++j) out[j] = interval::subtract(theta, Interval::point(theta_[j]));
    return out;
  }

  // P and (unless dp is null) P' of component i at the theta whose factors theta - theta_j are
  // given, by Horner's scheme on Newton's form:
  //   p <- p (theta - theta_j) + c_j,  p' <- p' (theta - theta_j) + p.
  void horner(std::size_t i, const Interval* factor, Interval* p, Interval* dp) const {
    using namespace interval;
    Interval value = coefficient(degree_, i), slope{0, 0};
    for (int j = degree_ - 1; j >= 0; --j) {
      if (dp != nullptr) slope = add(multiply(slope, factor[j]), value);
      value = add(multiply(value, factor[j]), coefficient(j, i));
    }
    *p = value;
    if (dp != nullptr) *dp = slope;
  }

  std::size_t n_;
  int degree_ = -1;
  double t0_ = 0, h_ = 0;
  Interval per_h_{};  // 1 / h
  double theta_[kMaxDegree + 1] = {};
  mutable Interval factor_[kMaxDegree + 1] = {}, factor_mid_[kMaxDegree + 1] = {};  // enclose()'s
  std::vector<Interval> newton_;  // (degree + 1) x n divided differences
  std::vector<double> point_;
  std::vector<double> spread_;  // per component: the size of the sums the dense output adds
};

}  // namespace hysim
