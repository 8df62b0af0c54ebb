// Certified detection, level 2 (docs/certified.md): a bound E(t) on the distance between the
// exact solution of the ODE from the step's start and the step's dense output p,
//   |x(t) - p(t)|_inf <= E(t)  for every t in [t0, t1],  x(t0) = p(t0) = x0 (the computed start),
// so that enclosing the guards over p +- E proves what the exact flow does, not only the
// computed trajectory. The step is taken in kParts parts [a, b]; on each, from E(a) (0 at t0):
//
// 1. A priori enclosure (Picard-Lindelof, as validated ODE solvers start a step: N. S.
//    Nedialkov, K. R. Jackson, G. F. Corliss, "Validated solutions of initial value problems
//    for ordinary differential equations", Appl. Math. Comput. 105, 1999, section 3.1): a box B
//    with X_a + [0, b - a] F([a, b], B) inside B, X_a = p(a) +- E(a), holds every solution from
//    X_a over the part (the Picard operator maps the continuous functions with values in B into
//    themselves). B starts as p's enclosure over the part and grows until the inclusion holds,
//    at most kPicardTries times.
// 2. The logarithmic norm of the Jacobian over C = hull(B, p([a, b])), convex and holding both x
//    and p: mu = max_i (sup J_ii + sum_{j != i} |J_ij|) (the infinity norm's; G. Dahlquist,
//    "Stability and error bounds in the numerical integration of ordinary differential
//    equations", 1958), from the field's symbolic Jacobian on intervals. Negative where the
//    flow contracts, so that a decaying solution's bound decays too.
// 3. The dense output's defect delta = p' - f(t, p) on the part, in the mean-value form
//    delta(m) + delta'([a, b]) [a - m, b - m], delta' = p'' - df/dt - J p', m the midpoint;
//    D the largest |delta_i|.
// 4. e = x - p obeys e' = A(t) e - delta, A(t) the mean of J on the segment from p to x (in C),
//    so d|e|/dt <= mu |e| + D and
//      E(t) = E(a) e^{mu (t - a)} + D (e^{mu (t - a)} - 1) / mu   (D (t - a) when mu = 0).
// The field must not jump inside the boxes (sign, floor, an if undecided there): the model's
// enclosure says when it may, and the step then has no bound.
//
// What E rests on: the dense output's enclosure (its points' rounding bounded by widening,
// solvers/dense_enclosure.hpp) and the model's interval field; the start x0 is the computed
// state, so the proof is about the exact flow from each step's start (the global error that
// earlier steps left is outside it).
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <vector>

#include "hysim/core/guard_enclosure.hpp"
#include "hysim/core/interval.hpp"
#include "hysim/solvers/dense_enclosure.hpp"

namespace hysim {

class FlowBound {
 public:
  static constexpr int kPicardTries = 8;
  static constexpr int kParts = 8;

  explicit FlowBound(std::size_t n)
      : n_(n), box_(n), next_(n), hull_(n), f_(n), jacobian_(n * n), dfdt_(n), x_(n), dx_(n), d2x_(n) {}

  // The parts' bounds for the step `dense` holds (fitted), from x0 at t0, in `mode`; false when
  // there are none (a Picard inclusion does not close, or the field may jump inside a box).
  // Then error_at(t) bounds |x(t) - p(t)| over the step.
  bool bound(int mode, GuardEnclosure* field, const DenseEnclosure& dense, const double* x0) {
    const double t0 = dense.t0(), h = dense.h(), t1 = t0 + h;
    double error = 0;  // E(a)
    for (int k = 0; k < kParts; ++k) {
      Part& part = parts_[static_cast<std::size_t>(k)];
      part.a = k == 0 ? t0 : parts_[static_cast<std::size_t>(k - 1)].b;
      part.b = k + 1 == kParts ? t1 : t0 + h * (k + 1) / kParts;
      part.error_a = error;
      if (!(part.b > part.a)) {  // a step of too few doubles for the parts: nothing between them
        part.mu = 0;
        part.defect = 0;
        continue;
      }
      if (!enclose_part(mode, field, dense, x0, &part)) return false;
      error = part.error_to(part.b);
      if (!std::isfinite(error)) return false;
    }
    return true;
  }

  // E(t), rounded up; 0 at the step's start (the exact flow starts at the dense output's point).
  double error_at(double t) const {
    for (const Part& part : parts_) {
      if (t <= part.b) return part.error_to(t);
    }
    return parts_.back().error_to(t);
  }

  // x widened by E(t), component by component.
  void widen(Interval* x, double t) const {
    const double error = error_at(t);
    if (error == 0) return;
    for (std::size_t i = 0; i < n_; ++i) x[i] = interval::outward(x[i].lo - error, x[i].hi + error);
  }

 private:
  struct Part {
    double a = 0, b = 0;
    double error_a = 0;  // E(a)
    double mu = 0;       // the logarithmic norm's bound over the part
    double defect = 0;   // D
    // E(t) for t in [a, b], rounded up
    double error_to(double t) const {
      const double elapsed = t - a;
      if (!(elapsed > 0)) return error_a;
      // e^{mu t} with mu t rounded up; (e^{mu t} - 1) / mu, increasing in mu t, with mu t
      // rounded up where mu > 0 and down where mu < 0 (the division then swaps the sense)
      const double exponent = interval::up(mu * elapsed, 2);
      const double grow = std::exp(exponent) * (1 + 4e-16);
      const double phi = mu > 0   ? std::expm1(exponent) / mu
                         : mu < 0 ? std::expm1(interval::down(mu * elapsed, 2)) / mu
                                  : elapsed;
      return interval::up(error_a * grow + defect * interval::up(std::max(phi, 0.0), 4), 4);
    }
  };

  // Steps 1 to 3 of the header on one part; its mu and D.
  bool enclose_part(int mode, GuardEnclosure* field, const DenseEnclosure& dense, const double* x0, Part* part) {
    using namespace interval;
    const Interval span{part->a, part->b}, from_a{0, part->b - part->a};
    // X_a: the start's box (the computed start itself at t0)
    dense.enclose(part->a, part->a, x_.data(), nullptr);
    for (std::size_t i = 0; i < n_; ++i) {
      x_[i] = part->error_a == 0 && part->a == dense.t0() ? Interval::point(x0[i])
                                                           : outward(x_[i].lo - part->error_a, x_[i].hi + part->error_a);
    }
    dense.enclose(part->a, part->b, hull_.data(), nullptr);
    for (std::size_t i = 0; i < n_; ++i) box_[i] = inflate(hull(hull_[i], x_[i]), 0.1);
    bool closed = false;
    for (int attempt = 0; attempt < kPicardTries && !closed; ++attempt) {
      field->set_box(span, box_.data(), nullptr);
      if (!field->field(mode, f_.data())) return false;
      closed = true;
      for (std::size_t i = 0; i < n_; ++i) {
        next_[i] = add(x_[i], multiply(from_a, f_[i]));
        closed = closed && next_[i].lo >= box_[i].lo && next_[i].hi <= box_[i].hi;
      }
      for (std::size_t i = 0; i < n_; ++i) box_[i] = closed ? next_[i] : inflate(hull(box_[i], next_[i]), 0.5);
    }
    if (!closed) return false;
    for (std::size_t i = 0; i < n_; ++i) hull_[i] = hull(hull_[i], box_[i]);
    field->set_box(span, hull_.data(), nullptr);
    if (!field->field_derivatives(mode, jacobian_.data(), dfdt_.data())) return false;
    part->mu = logarithmic_norm_bound();
    part->defect = defect_bound(mode, field, dense, part->a, part->b);
    return part->defect >= 0 && std::isfinite(part->mu);
  }

  // An interval grown by `fraction` of its width on each side, and by a few ulps of its size.
  static Interval inflate(Interval a, double fraction) {
    const double grow = fraction * (a.hi - a.lo) + 1e-14 * std::max({1.0, std::fabs(a.lo), std::fabs(a.hi)});
    return interval::outward(a.lo - grow, a.hi + grow);
  }

  // max_i (sup J_ii + sum_{j != i} |J_ij|), rounded up; NaN where an entry is unbounded.
  double logarithmic_norm_bound() const {
    double most = -HUGE_VAL;
    for (std::size_t i = 0; i < n_; ++i) {
      Interval sum = Interval::point(jacobian_[i * n_ + i].hi);
      for (std::size_t j = 0; j < n_; ++j) {
        if (j == i) continue;
        const Interval& entry = jacobian_[i * n_ + j];
        sum = interval::add(sum, Interval::point(std::max(std::fabs(entry.lo), std::fabs(entry.hi))));
      }
      if (std::isnan(sum.hi)) return NAN;
      most = std::max(most, sum.hi);
    }
    return most;
  }

  // max_i |delta_i| over [a, b], in the mean-value form; NaN when the field may jump there.
  double defect_bound(int mode, GuardEnclosure* field, const DenseEnclosure& dense, double a, double b) {
    using namespace interval;
    const double m = a + (b - a) / 2;
    dense.derivatives(m, m, x_.data(), dx_.data(), d2x_.data());
    field->set_box(Interval::point(m), x_.data(), nullptr);
    if (!field->field(mode, f_.data())) return NAN;
    for (std::size_t i = 0; i < n_; ++i) next_[i] = subtract(dx_[i], f_[i]);  // delta(m)
    dense.derivatives(a, b, x_.data(), dx_.data(), d2x_.data());
    field->set_box(Interval{a, b}, x_.data(), nullptr);
    if (!field->field_derivatives(mode, jacobian_.data(), dfdt_.data())) return NAN;
    const Interval offset = subtract(Interval{a, b}, Interval::point(m));
    double most = 0;
    for (std::size_t i = 0; i < n_; ++i) {
      Interval slope = subtract(d2x_[i], dfdt_[i]);  // delta' = p'' - df/dt - J p'
      for (std::size_t j = 0; j < n_; ++j) slope = subtract(slope, multiply(jacobian_[i * n_ + j], dx_[j]));
      const Interval delta = add(next_[i], multiply(slope, offset));
      if (std::isnan(delta.lo) || std::isnan(delta.hi)) return NAN;
      most = std::max({most, std::fabs(delta.lo), std::fabs(delta.hi)});
    }
    return most;
  }

  std::size_t n_;
  std::array<Part, kParts> parts_{};
  std::vector<Interval> box_, next_, hull_, f_, jacobian_, dfdt_, x_, dx_, d2x_;
};

}  // namespace hysim
