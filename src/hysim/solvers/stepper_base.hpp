// What the steppers of solvers/*.cpp share, behind the Stepper interface of stepper.hpp (this
// header is internal to solvers/; the rest of hysim sees only stepper.hpp):
//
//   StepperBase         the previous and current points (t, x, f) and the attempted one
//   error_ratio         the error norm of odeint's default_error_checker
//   StepSizeController  the step size after an attempt (Hairer, Norsett & Wanner I, II.4)
//   Fraction            a rational tableau coefficient, converted to S
//   hermite_cubic       the cubic Hermite interpolant through (x0, f0, x1, f1)
//   make_*              the factories of the steppers that live outside odeint_steppers.cpp
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <memory>
#include <utility>
#include <vector>

#include "hysim/core/scalar.hpp"
#include "hysim/solvers/stepper.hpp"

namespace hysim::solvers {

template <class S>
using State = std::vector<S>;

// The point bookkeeping every stepper shares: previous and current (t, x, f) and a scratch
// point for the step being attempted. Buffers are sized once; steps swap them.
template <class S>
class StepperBase : public Stepper<S> {
 public:
  explicit StepperBase(std::size_t n) : x_prev_(n), f_prev_(n), x_cur_(n), f_cur_(n), x_try_(n), f_try_(n) {}

  void restart(Rhs<S> rhs, S t0, const S* x0, const S* dxdt0) override {
    rhs_ = rhs;
    t_cur_ = t_prev_ = t0;
    std::copy(x0, x0 + x_cur_.size(), x_cur_.begin());
    if (dxdt0 != nullptr) {
      std::copy(dxdt0, dxdt0 + f_cur_.size(), f_cur_.begin());
    } else {
      rhs_(t0, x_cur_.data(), f_cur_.data());
    }
    x_prev_ = x_cur_;  // same size: no allocation
    f_prev_ = f_cur_;
    on_restart();
  }

  S t_current() const override { return t_cur_; }
  const S* x_current() const override { return x_cur_.data(); }
  const S* dxdt_current() const override { return f_cur_.data(); }
  S t_previous() const override { return t_prev_; }
  const S* x_previous() const override { return x_prev_.data(); }

 protected:
  // Called at the end of restart(): a stepper drops what it kept about earlier steps.
  virtual void on_restart() {}

  // Makes the attempted point (t_new, x_try, f_try) the current one.
  void accept(S t_new) {
    std::swap(x_prev_, x_cur_);
    std::swap(f_prev_, f_cur_);
    std::swap(x_cur_, x_try_);
    std::swap(f_cur_, f_try_);
    t_prev_ = t_cur_;
    t_cur_ = t_new;
  }

  // The end points of the last accepted step, when t is one of them (copied exactly, so that
  // interpolate(t_previous()) == x_previous() whatever the interpolant's rounding).
  bool copy_end_point(S t, S* x) const {
    if (t == t_cur_) {
      std::copy(x_cur_.begin(), x_cur_.end(), x);
      return true;
    }
    if (t == t_prev_) {
      std::copy(x_prev_.begin(), x_prev_.end(), x);
      return true;
    }
    return false;
  }

  Rhs<S> rhs_;
  S t_prev_ = S(0), t_cur_ = S(0);
  State<S> x_prev_, f_prev_, x_cur_, f_cur_, x_try_, f_try_;
};

// The error of an attempted step relative to the tolerances, with the semantics of odeint's
// default_error_checker (stepper.hpp): max_i |err_i| / (atol + rtol (|x_i| + h |f_i|)), where
// x and f are the state and slope at the step's start. <= 1 accepts the step. NaN propagates
// (and rejects).
template <class S>
S error_ratio(const StepperTolerances<S>& tol, const S* err, const S* x, const S* f, S h, std::size_t n) {
  using std::abs;
  S worst = S(0);
  for (std::size_t i = 0; i < n; ++i) {
    const S ratio = abs(err[i]) / (tol.atol_at(i) + tol.rtol * (abs(x[i]) + abs(h) * abs(f[i])));
    if (!(ratio <= worst)) worst = ratio;  // keeps a NaN
  }
  return worst;
}

// The standard step-size controller (Hairer, Norsett & Wanner, Solving ODE I, II.4,
// Eq. (4.13)) with the limits of odeint's default_step_adjuster:
//   h_new = h min(kMaxGrowth, max(kMaxShrink, kSafety err^(-1/k))),
// where err is error_ratio() and k the order of the local error estimate in h (err = O(h^k)).
// err <= 1 accepts the step; err > 1 (or NaN) rejects it, and then h_new < h.
struct StepSizeController {
  static constexpr double kSafety = 0.9;
  static constexpr double kMaxShrink = 0.2;  // a rejection shrinks h to no less than h / 5
  static constexpr double kMaxGrowth = 5.0;  // an acceptance grows h to no more than 5 h

  int estimate_order = 1;  // k

  template <class S>
  bool accepts(S err) const {
    return err <= S(1);
  }

  template <class S>
  S next_step(S h, S err) const {
    using std::pow;
    if (!(err == err)) return h * S(kMaxShrink);                 // NaN: shrink as far as allowed
    if (err == S(0)) return h * S(kMaxGrowth);                   // exact (e.g. a polynomial of low degree)
    const S factor = S(kSafety) * pow(err, S(-1) / S(estimate_order));
    return h * std::clamp(factor, S(kMaxShrink), S(kMaxGrowth));
  }
};

// A rational coefficient of a tableau, converted to S by one division in S (S(1) / S(9) is the S
// nearest to 1/9, not a widened double).
struct Fraction {
  long long num;
  long long den;
  template <class S>
  S as() const {
    return S(num) / S(den);
  }
};

// The cubic Hermite interpolant through (x0, f0) at theta = 0 and (x1, f1) at theta = 1, for
// theta = (t - t0) / h (Hairer, Norsett & Wanner, Solving ODE I, II.6, Eq. (6.7)):
//   (1-θ) x0 + θ x1 + θ(θ-1) [(1-2θ)(x1-x0) + (θ-1) h f0 + θ h f1].
// It reproduces polynomials of degree <= 3; its error is x''''(ξ) h^4 θ²(1-θ)² / 4!.
template <class S>
S hermite_cubic(S theta, S h, S x0, S f0, S x1, S f1) {
  return (S(1) - theta) * x0 + theta * x1 +
         theta * (theta - S(1)) * ((S(1) - S(2) * theta) * (x1 - x0) + (theta - S(1)) * h * f0 + theta * h * f1);
}

// The increment in t of rosenbrock4's df/dt (Hairer & Wanner's codes): sqrt(eps max(1e-5, |t|)).
inline constexpr long double kTimeIncrementFloor = 1e-5L;

// Factories of the steppers implemented outside odeint_steppers.cpp; make_stepper() calls them.
template <class S>
std::unique_ptr<Stepper<S>> make_bogacki_shampine3(std::size_t n, const StepperTolerances<S>& tolerances);
template <class S>
std::unique_ptr<Stepper<S>> make_rosenbrock4(std::size_t n, const StepperTolerances<S>& tolerances);
template <class S>
std::unique_ptr<Stepper<S>> make_ndf(std::size_t n, const StepperTolerances<S>& tolerances);
template <class S>
std::unique_ptr<Stepper<S>> make_dop853(std::size_t n, const StepperTolerances<S>& tolerances);

}  // namespace hysim::solvers
