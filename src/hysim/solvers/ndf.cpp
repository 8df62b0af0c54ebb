// ndf: the numerical differentiation formulas of orders 1 to 5 for stiff fields, a multistep
// method with variable order and quasi-constant step size, after L. F. Shampine, M. W. Reichelt,
// "The MATLAB ODE Suite", SIAM J. Sci. Comput. 18(1), 1-22 (1997), Section 2 (the method of
// MATLAB's ode15s). A multistep method keeps its Jacobian over many steps, so a step costs about
// one field evaluation; rosenbrock4 costs n + 7.
//
// The history is the array of backward differences at the step size h of the method,
//   D_0 = x_n,  D_j = nabla^j x_n  (j = 1 .. k + 2).
// A step of order k from t_n to t_n+1 = t_n + h:
//   predictor  x0 = sum_{j=0..k} D_j           (the interpolating polynomial extrapolated)
//   corrector  (1 - kappa_k) g_k d + sum_{j=1..k} g_j D_j = h f(t_n+1, x0 + d),
//              g_j = sum_{i=1..j} 1/i,  d = x_n+1 - x0 = nabla^{k+1} x_n+1
// (Shampine & Reichelt, Eq. (2) written in d; kappa_k = 0 gives the BDF). With
// c = h / ((1 - kappa_k) g_k) and psi = sum_j g_j D_j / ((1 - kappa_k) g_k), d solves
//   d - c f(t_n+1, x0 + d) + psi = 0,
// by simplified Newton iteration with M = I - c J: M delta = c f(x0 + d) - psi - d.
// Local error: err = (kappa_k g_k + 1 / (k + 1)) d (ibid., Section 2.2), in the norm of
// error_ratio() (stepper_base.hpp): the step is accepted when err <= 1.
//
// Newton iteration (the convergence test of CVODE, A. C. Hindmarsh et al., "SUNDIALS", ACM TOMS
// 31(3), 2005, and of its predecessor LSODE): at most 3 iterations; the rate estimate
//   rate = max(0.3 rate, |delta_m| / |delta_m-1|)
// is carried from step to step, and the iteration has converged when
//   E_k |delta_m| min(1, rate) <= 0.1     (E_k the error constant above)
// so that what it leaves undone is a tenth of the local error tolerance. J = df/dx is a forward
// difference quotient (n evaluations, or one per group of columns that share no row when the
// model gives its Jacobian pattern; solvers/iteration_matrix.hpp, with CVODE's increments for the step being attempted; at a restart, before any step, with those of a step of
// no known size) at the first iterate of a step, computed after every restart, after 50 steps,
// and when the iteration fails with an old one; M is refactored whenever c changes (any change of
// step size or order).
//
// Step size and order: after k + 1 steps of the same size and order, the step and order that
// promise the largest next step among k - 1, k, k + 1 (their error estimates
// E_{k-1} D_k, E_k d, E_{k+1} nabla^{k+2} x_n+1), h_new = h min(10, 0.9 err^(-1/(k+1))) only when
// that is a gain of at least 20 %, or a loss: the quasi-constant step of ode15s. A rejected
// step shrinks by 0.9 err^(-1/(k+1)) (at least by 2 and at most by 10) and, after a second
// rejection in a row, lowers the order. A changed step size rescales the history:
//   D_new = (R U)^T D,  R_ij = prod_{m=1..i} (m - 1 - j rho) / m,  U = R(rho = 1),
// rho = h_new / h (Shampine & Reichelt, Section 2.3), which re-expresses the same interpolating
// polynomial at the new spacing (solvers/backward_differences.hpp).
//
// Start (after every restart, i.e. after every event): order 1 with the history (x, h f), as
// every BDF code does; but the first step is chosen from the second derivative, x'' = J f,
// exact up to J's difference error and free once J is known (preferred_step()). CVODE instead
// spends evaluations on its starting-step estimate.
//
// Dense output: the interpolating polynomial of the accepted step's history, in Newton's
// backward form (order k, exact at the step's ends):
//   x(t_n+1 + s h) = sum_{j=0..k} nabla^j x_n+1 prod_{m=0..j-1} (s + m) / (m + 1),  s in [-1, 0]
// (backward_interpolate()).
// The slope at the new point is the one the corrector implies, f_n+1 = (d + psi) / c (no
// evaluation; it differs from f(t_n+1, x_n+1) by the Newton iteration's remainder).
#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <limits>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "hysim/core/errors.hpp"
#include "hysim/solvers/backward_differences.hpp"
#include "hysim/solvers/iteration_matrix.hpp"
#include "hysim/solvers/stepper_base.hpp"

namespace hysim::solvers {
namespace {

constexpr int kMaxOrder = static_cast<int>(kMaxDifferenceOrder);
constexpr int kDifferences = kMaxOrder + 3;  // D_0 .. D_{k+2}
// kappa_k of the NDFs (Shampine & Reichelt, Table 1); kappa_5 = 0 (the BDF of order 5).
constexpr long double kKappa[kMaxOrder + 1] = {0.0L, -0.1850L, -1.0L / 9.0L, -0.0823L, -0.0415L, 0.0L};
constexpr int kMaxIterations = 3;
constexpr double kConvergenceFactor = 0.1;  // the iteration leaves a tenth of the tolerance
constexpr double kRateDecay = 0.3;          // rate = max(0.3 rate, ratio)
constexpr double kRateResetChange = 0.3;    // |c / c_rate - 1| beyond it re-measures the rate
constexpr int kJacobianAge = 50;            // steps before J is recomputed
constexpr double kSafety = 0.9;
constexpr double kMaxGrowth = 10.0;
constexpr double kMinGain = 1.2;  // a step grows only by at least 20 %
constexpr double kMaxShrinkRejected = 0.1;
constexpr double kMinShrinkRejected = 0.5;
constexpr double kShrinkDiverged = 0.25;
constexpr double kStartErrorFraction = 0.25;  // the first step aims at err = 0.25

template <class S>
class NdfStepper final : public StepperBase<S> {
  using Base = StepperBase<S>;

 public:
  NdfStepper(std::size_t n, const StepperTolerances<S>& tolerances)
      : Base(n),
        tolerances_(tolerances),
        iteration_(n),
        x_pred_(n),
        psi_(n),
        d_(n),
        delta_(n),
        x_iter_(n),
        f_iter_(n),
        second_(n) {
    for (auto& column : D_) column.assign(n, S(0));
    for (auto& column : dense_) column.assign(n, S(0));
    S g = S(0);
    for (int k = 1; k <= kMaxOrder; ++k) {
      g += S(1) / S(k);
      gamma_[static_cast<std::size_t>(k)] = g;
      kappa_[static_cast<std::size_t>(k)] = S(kKappa[k]);
      error_constant_[static_cast<std::size_t>(k)] = S(kKappa[k]) * g + S(1) / S(k + 1);
    }
  }

  std::string_view name() const override { return "ndf"; }
  bool is_adaptive() const override { return true; }
  int order() const override { return k_; }

  void use_jacobian_pattern(std::shared_ptr<const JacobianPattern> pattern, LinearSolver choice) override {
    iteration_.use_pattern(std::move(pattern), choice);
  }

  S preferred_step(S h) const override {
    if (!fresh_ || !(h_start_ > S(0))) return h;
    return std::min(h, h_start_);
  }

  StepOutcome<S> try_step(S h) override {
    const std::size_t n = this->x_cur_.size();
    if (fresh_) {
      begin_history(h);
    } else if (h != h_) {
      rescale_backward_differences(D_.data(), static_cast<std::size_t>(k_), h / h_, n);
      h_ = h;
      steps_same_ = 0;
    }
    const std::size_t k = static_cast<std::size_t>(k_);
    const S t_new = this->t_cur_ + h;
    const S scale = (S(1) - kappa_[k]) * gamma_[k];
    const S c = h / scale;
    for (std::size_t i = 0; i < n; ++i) {
      S pred = S(0), psi = S(0);
      for (std::size_t j = 0; j <= k; ++j) pred += D_[j][i];
      for (std::size_t j = 1; j <= k; ++j) psi += gamma_[j] * D_[j][i];
      x_pred_[i] = pred;
      psi_[i] = psi / scale;
    }

    bool converged = correct(t_new, c);
    if (!converged && !jacobian_fresh_) {  // an old J: recompute it and iterate again
      jacobian_due_ = true;
      converged = correct(t_new, c);
    }
    if (!converged) {
      ++rejections_;
      return {StepStatus::kRejected, h * S(kShrinkDiverged)};
    }

    const S err = error_constant_[k] * norm(d_.data(), h);
    if (!(err <= S(1))) {  // NaN too
      ++rejections_;
      if (rejections_ >= 2 && k_ > 1) --k_;
      steps_same_ = 0;
      return {StepStatus::kRejected, h * shrink_factor(err, k_)};
    }

    // Accept: the new differences, the implied slope, the dense output.
    for (std::size_t i = 0; i < n; ++i) {
      D_[k + 2][i] = d_[i] - D_[k + 1][i];
      D_[k + 1][i] = d_[i];
    }
    for (std::size_t j = k + 1; j-- > 0;) {
      for (std::size_t i = 0; i < n; ++i) D_[j][i] += D_[j + 1][i];
    }
    for (std::size_t i = 0; i < n; ++i) {
      this->x_try_[i] = D_[0][i];
      this->f_try_[i] = (d_[i] + psi_[i]) / c;
    }
    for (std::size_t j = 0; j <= k; ++j) dense_[j] = D_[j];  // same size: no allocation
    dense_order_ = k_;
    dense_h_ = h;
    this->accept(t_new);
    fresh_ = false;
    jacobian_fresh_ = false;
    rejections_ = 0;
    ++steps_same_;
    ++jacobian_age_;
    return {StepStatus::kAccepted, next_step(h, err)};
  }

  // the polynomial through the backward differences of the order in use
  int dense_degree() const override { return dense_order_; }

  void interpolate(S t, S* x) const override {
    if (this->copy_end_point(t, x)) return;
    backward_interpolate(dense_.data(), static_cast<std::size_t>(dense_order_), (t - this->t_cur_) / dense_h_,
                         this->x_cur_.size(), x);
  }

 protected:
  // A restart drops the history (the field may have changed at an event) and the Jacobian;
  // the new J gives the first step from x'' = J f.
  void on_restart() override {
    fresh_ = true;
    k_ = 1;
    rejections_ = 0;
    steps_same_ = 0;
    rate_ = S(1);
    c_factored_ = S(0);
    jacobian_due_ = !differentiate(this->t_cur_, this->x_cur_.data(), this->f_cur_.data(), S(0));
    iteration_.multiply(this->f_cur_.data(), second_.data());
    // order 1: err = E_1 h^2 |x''| (the second difference is h^2 x''); aim at a quarter of it.
    const S curvature = error_constant_[1] * norm(second_.data(), S(0));
    using std::sqrt;
    h_start_ = curvature > S(0) && is_finite(curvature) ? sqrt(S(kStartErrorFraction) / curvature) : S(0);
  }

 private:
  // The history at the first step after a restart: order 1, D = (x, h f).
  void begin_history(S h) {
    const std::size_t n = this->x_cur_.size();
    for (auto& column : D_) std::fill(column.begin(), column.end(), S(0));
    for (std::size_t i = 0; i < n; ++i) {
      D_[0][i] = this->x_cur_[i];
      D_[1][i] = h * this->f_cur_[i];
    }
    h_ = h;
    k_ = 1;
    steps_same_ = 0;
  }

  // Solves d - c f(t_new, x_pred + d) + psi = 0 by simplified Newton iteration; false when it
  // does not converge in kMaxIterations or diverges.
  bool correct(S t_new, S c) {
    const std::size_t n = this->x_cur_.size();
    std::fill(d_.begin(), d_.end(), S(0));
    x_iter_ = x_pred_;
    const S e = error_constant_[static_cast<std::size_t>(k_)];
    S previous = S(0);
    for (int m = 0; m < kMaxIterations; ++m) {
      this->rhs_(t_new, x_iter_.data(), f_iter_.data());
      if (m == 0 && (jacobian_due_ || jacobian_age_ >= kJacobianAge)) {
        // A non-finite J (a field that fails beyond some time) is not kept: the next attempt,
        // shorter, computes it again.
        jacobian_due_ = !differentiate(t_new, x_iter_.data(), f_iter_.data(), t_new - this->t_cur_);
        if (jacobian_due_) return false;
      }
      if (c != c_factored_ && !factor(c)) return false;
      for (std::size_t i = 0; i < n; ++i) delta_[i] = c * f_iter_[i] - psi_[i] - d_[i];
      iteration_.solve(delta_.data());
      for (std::size_t i = 0; i < n; ++i) {
        d_[i] += delta_[i];
        x_iter_[i] = x_pred_[i] + d_[i];
      }
      const S size = norm(delta_.data(), t_new - this->t_cur_);
      if (!is_finite(size)) return false;
      if (m > 0) rate_ = std::max(S(kRateDecay) * rate_, size / previous);
      if (size == S(0) || e * size * std::min(S(1), rate_) <= S(kConvergenceFactor)) return true;
      if (m > 0 && size > S(2) * previous) return false;  // diverging
      previous = size;
    }
    return false;
  }

  // M = I - c J, factored; a large change of c (or a new J) re-measures the rate.
  bool factor(S c) {
    using std::abs;
    if (!(abs(c / c_rate_ - S(1)) <= S(kRateResetChange))) {
      rate_ = S(1);
      c_rate_ = c;
    }
    const bool factored = iteration_.factor(S(1), c);
    c_factored_ = factored ? c : S(0);  // a failed factorisation is not reused
    return factored;
  }

  // J = df/dx at (t, x), where f(t, x) = f0, by forward differences (n evaluations) for steps of
  // size h (0: none known yet); false when an element is not finite.
  bool differentiate(S t, const S* x, const S* f0, S h) {
    const bool finite = iteration_.differentiate(this->rhs_, t, x, f0, tolerances_, h, second_.data(), delta_.data());
    jacobian_fresh_ = true;
    jacobian_age_ = 0;
    c_factored_ = S(0);
    c_rate_ = S(0);  // the next factor() re-measures the rate
    return finite;
  }

  // The next step after an accepted one of error err, and possibly a new order.
  S next_step(S h, S err) {
    const std::size_t k = static_cast<std::size_t>(k_);
    if (steps_same_ < k_ + 1) return h;
    S best = factor_for(err, k_);
    int best_order = k_;
    if (k_ > 1) {
      const S lower = error_constant_[k - 1] * norm(D_[k].data(), h);
      const S f = factor_for(lower, k_ - 1);
      if (f > best) {
        best = f;
        best_order = k_ - 1;
      }
    }
    if (k_ < kMaxOrder) {
      const S higher = error_constant_[k + 1] * norm(D_[k + 2].data(), h);
      const S f = factor_for(higher, k_ + 1);
      if (f > best) {
        best = f;
        best_order = k_ + 1;
      }
    }
    if (best < S(kMinGain) && best >= S(1)) return h;
    if (best_order != k_) k_ = best_order;
    steps_same_ = 0;
    return h * std::min(best, S(kMaxGrowth));
  }

  // 0.9 err^(-1/(order+1)): the step ratio that makes an error estimate of order order+1 in h
  // equal to 0.9^(order+1).
  static S factor_for(S err, int order) {
    using std::pow;
    if (!(err > S(0))) return S(kMaxGrowth);
    return S(kSafety) * pow(err, S(-1) / S(order + 1));
  }

  static S shrink_factor(S err, int order) {
    if (!(err == err)) return S(kMaxShrinkRejected);
    return std::clamp(factor_for(err, order), S(kMaxShrinkRejected), S(kMinShrinkRejected));
  }

  // The error_ratio() norm (the weights of the step's start).
  S norm(const S* v, S h) const {
    return error_ratio(tolerances_, v, this->x_cur_.data(), this->f_cur_.data(), h, this->x_cur_.size());
  }

  StepperTolerances<S> tolerances_;
  std::array<S, kMaxOrder + 2> gamma_{}, kappa_{}, error_constant_{};
  std::array<State<S>, kDifferences> D_;
  std::array<State<S>, kMaxOrder + 1> dense_;
  int dense_order_ = 1;
  S dense_h_ = S(1);
  int k_ = 1;
  S h_ = S(0);
  S h_start_ = S(0);
  bool fresh_ = true;
  int rejections_ = 0;
  int steps_same_ = 0;
  IterationMatrix<S> iteration_;  // J and M = I - c J
  S c_factored_ = S(0), c_rate_ = S(0);
  S rate_ = S(1);
  bool jacobian_fresh_ = false, jacobian_due_ = false;
  int jacobian_age_ = 0;
  State<S> x_pred_, psi_, d_, delta_, x_iter_, f_iter_, second_;
};

}  // namespace

template <class S>
std::unique_ptr<Stepper<S>> make_ndf(std::size_t n, const StepperTolerances<S>& tolerances) {
  return std::make_unique<NdfStepper<S>>(n, tolerances);
}

#define HYSIM_INSTANTIATE(S) \
  template std::unique_ptr<Stepper<S>> make_ndf<S>(std::size_t, const StepperTolerances<S>&);
HYSIM_FOR_EACH_SCALAR(HYSIM_INSTANTIATE)
#undef HYSIM_INSTANTIATE

}  // namespace hysim::solvers
