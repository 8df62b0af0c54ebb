// Steppers built on Boost.Odeint, behind the Stepper interface of solvers/stepper.hpp, and the
// solver catalog.
//
//   dopri5      Dormand & Prince 5(4), FSAL, odeint's controlled_runge_kutta with its default
//               error checker and step adjuster; dense output is Dormand-Prince's own continuous
//               extension of order 4 (odeint's runge_kutta_dopri5::calc_state; Hairer, Norsett &
//               Wanner, Solving ODE I, II.6); Hairer's stiffness test of dopri5.f on the sixth
//               stage (c = 1) and x1 (solvers/stiffness.hpp).
//   cashkarp54  Cash & Karp 5(4) (ACM TOMS 16(3), 1990; odeint's runge_kutta_cash_karp54),
//               controlled_runge_kutta as dopri5; no dense output of its own: a quartic Hermite
//               interpolant of order 4 (CashKarp54Stepper), its defect checked per step.
//   rkf78       Fehlberg 7(8) (NASA TR R-287, 1968; odeint's runge_kutta_fehlberg78, which
//               advances with the 8th-order weights), controlled_runge_kutta as dopri5; no dense
//               output of its own: a quintic Hermite interpolant of order 5 (Fehlberg78Stepper),
//               its defect checked per step (ExplicitPairStepper).
//   rk4         classical Runge-Kutta 4, fixed step; dense output by the cubic Hermite
//               interpolant through (x0, f0, x1, f1), one evaluation per step reused as the next
//               step's first stage.
//   euler       forward Euler, fixed step; dense output is the Euler line itself.
//
// bs3 (solvers/bogacki_shampine.cpp), rosenbrock4 (solvers/rosenbrock4.cpp), dop853
// (solvers/dop853.cpp) and ndf (solvers/ndf.cpp) are our own.
//
// Orders of dense output. HNW I, II.6: a continuous extension of order q has local error
// O(h^(q+1)); q = p - 1 keeps it within the global error O(h^p) of the method. The Hermite
// interpolants below are built from the step's end points and slopes plus data the step
// already computed; data accurate to O(h^(r+1)) in the state (or in the slope, which enters
// multiplied by h: O(h^r)) cost nothing in order as long as r >= q. The accuracy of a stage is
// its internal order: the largest r such that the stage value Y_i = x0 + h sum_j a_ij k_j
// satisfies the order conditions sum_j a_ij Phi_j(tau) = c_i^|tau| / gamma(tau) of every rooted
// tree tau with |tau| <= r (Butcher's; HNW I, II.2), so that Y_i - x(t0 + c_i h) = O(h^(r+1))
// and k_i = f(Y_i) has the same error. In exact rational arithmetic
// (solvers/dense_output_derivation.py, which also derives the weights below): every stage of
// Cash-Karp has internal order <= 2 (too low to be used directly); stages 6 to 11 of
// Fehlberg 7(8) have internal order 4.
#include <algorithm>
#include <array>
#include <boost/numeric/odeint/stepper/controlled_runge_kutta.hpp>
#include <boost/numeric/odeint/stepper/euler.hpp>
#include <boost/numeric/odeint/stepper/runge_kutta4.hpp>
#include <boost/numeric/odeint/stepper/runge_kutta_cash_karp54.hpp>
#include <boost/numeric/odeint/stepper/runge_kutta_dopri5.hpp>
#include <boost/numeric/odeint/stepper/runge_kutta_fehlberg78.hpp>
#include <cstddef>
#include <limits>
#include <type_traits>
#include <utility>

#include "hysim/core/errors.hpp"
#include "hysim/solvers/stepper.hpp"
#include "hysim/solvers/stepper_base.hpp"
#include "hysim/solvers/stiffness.hpp"

// Boost.Multiprecision numbers name themselves as their value_type, which sends odeint's
// value-type extraction into an endless recursion; tell odeint that float128 is a scalar.
namespace boost::numeric::odeint::detail {
template <>
struct extract_value_type<hysim::float128, void> {
  using type = hysim::float128;
};
}  // namespace boost::numeric::odeint::detail

namespace hysim {
namespace solvers {
namespace {

namespace odeint = boost::numeric::odeint;

// Adapts our Rhs (pointers) to odeint's system signature sys(x, dxdt, t).
template <class S>
struct OdeintSystem {
  Rhs<S> rhs;
  void operator()(const State<S>& x, State<S>& dxdt, S t) const { rhs(t, x.data(), dxdt.data()); }
};

// The same, remembering where each stage's slope went. odeint's generic Runge-Kutta algorithm
// calls the system once per stage, for stages 2..s in order, writing k_i into a buffer of its
// own that lives until the next attempt; slots[i - 2] points at k_i after the attempt.
template <class S, std::size_t kCalls>
struct StageRecordingSystem {
  Rhs<S> rhs;
  std::array<const S*, kCalls>* slots;
  std::size_t* calls;
  void operator()(const State<S>& x, State<S>& dxdt, S t) const {
    rhs(t, x.data(), dxdt.data());
    if (*calls < kCalls) (*slots)[*calls] = dxdt.data();
    ++*calls;
  }
};

// The same for dopri5's first attempt, finding where it keeps its sixth stage: odeint's dopri5
// calls the system for stages 2 to 6 and then for f(t + h, x1), so its 5th call of an attempt is
// k6 = f(t + h, y6), c6 = 1, with y6 and k6 in odeint's own buffers, sized at the first attempt
// and never moved after it. Hairer's stiffness test compares them with x1 and f(t + h, x1)
// (solvers/stiffness.hpp); later attempts call the plain OdeintSystem (nothing per call).
template <class S>
struct SixthStageFinder {
  static constexpr int kSixthStageCall = 5;
  Rhs<S> rhs;
  const S** stage_x;
  const S** stage_f;
  int* calls;
  void operator()(const State<S>& x, State<S>& dxdt, S t) const {
    rhs(t, x.data(), dxdt.data());
    if (++*calls == kSixthStageCall) {
      *stage_x = x.data();
      *stage_f = dxdt.data();
    }
  }
};

// odeint's ErrorChecker (for controlled_runge_kutta) with the norm of error_ratio, which is
// that of odeint's default_error_checker (same operations, same order: the same bits) with the
// absolute tolerance taken per state.
template <class S>
class ToleranceChecker {
 public:
  using value_type = S;
  using algebra_type = odeint::range_algebra;
  using operations_type = odeint::default_operations;

  explicit ToleranceChecker(StepperTolerances<S> tolerances) : tolerances_(std::move(tolerances)) {}

  template <class State, class Deriv, class Err, class Time>
  S error(algebra_type& /*algebra*/, const State& x_old, const Deriv& dxdt_old, Err& x_err, Time dt) const {
    return error_ratio(tolerances_, x_err.data(), x_old.data(), dxdt_old.data(), S(dt), x_err.size());
  }
  template <class State, class Deriv, class Err, class Time>
  S error(const State& x_old, const Deriv& dxdt_old, Err& x_err, Time dt) const {
    algebra_type algebra;
    return error(algebra, x_old, dxdt_old, x_err, dt);
  }

 private:
  StepperTolerances<S> tolerances_;
};

template <class S>
class Dopri5Stepper final : public StepperBase<S> {
  using Base = StepperBase<S>;
  using Dopri = odeint::runge_kutta_dopri5<State<S>, S, State<S>, S>;
  using Checker = ToleranceChecker<S>;
  using Controlled = odeint::controlled_runge_kutta<Dopri, Checker>;

 public:
  Dopri5Stepper(std::size_t n, const StepperTolerances<S>& tol)
      : Base(n), controlled_{Controlled(Checker(tol)), Controlled(Checker(tol))}, dense_(n) {}

  std::string_view name() const override { return "dopri5"; }
  bool is_adaptive() const override { return true; }
  int order() const override { return 5; }

  // An attempt runs in the controlled stepper that does not hold the last accepted step's
  // stages, so that the dense output keeps reading them without a copy; an accepted attempt's
  // stepper becomes the one the dense output reads.
  StepOutcome<S> try_step(S h) override {
    const int k = accepted_ < 0 ? 0 : 1 - accepted_;
    Controlled& controlled = controlled_[k];
    S t = this->t_cur_;
    S dt = h;
    const auto result =
        stage_x_[k] != nullptr
            ? controlled.try_step(OdeintSystem<S>{this->rhs_}, this->x_cur_, this->f_cur_, t, this->x_try_,
                                  this->f_try_, dt)
            : controlled.try_step(SixthStageFinder<S>{this->rhs_, &stage_x_[k], &stage_f_[k], &calls_[k]},
                                  this->x_cur_, this->f_cur_, t, this->x_try_, this->f_try_, dt);
    if (result == odeint::fail) {
      sixth_stage_current_ = false;  // the stiffness test reads accepted steps only
      return {StepStatus::kRejected, dt};
    }
    sixth_stage_current_ = true;
    // odeint advanced t by h; keep the sum the caller expects, t_cur + h.
    this->accept(this->t_cur_ + h);
    accepted_ = k;
    return {StepStatus::kAccepted, dt};
  }

  S stiffness_ratio() const override {
    if (!sixth_stage_current_) return std::numeric_limits<S>::quiet_NaN();
    return stiffness_ratio_of(this->t_cur_ - this->t_prev_, this->x_cur_.data(), this->f_cur_.data(),
                              stage_x_[accepted_], stage_f_[accepted_], this->x_cur_.size(), kDopri5StabilityBound);
  }

  int dense_degree() const override { return 5; }  // Shampine's continuous extension

  void interpolate(S t, S* x) const override {
    if (this->copy_end_point(t, x)) return;
    // odeint writes into a State of the right size (allocated once, in the constructor).
    controlled_[accepted_].stepper().calc_state(t, dense_, this->x_prev_, this->f_prev_, this->t_prev_, this->x_cur_,
                                                this->f_cur_, this->t_cur_);
    std::copy(dense_.begin(), dense_.end(), x);
  }

 private:
  void on_restart() override { sixth_stage_current_ = false; }

  // Two controlled steppers, taking turns (try_step): accepted_ indexes the one whose stages
  // are the last accepted step's (-1: none yet).
  Controlled controlled_[2];
  int accepted_ = -1;
  mutable State<S> dense_;
  // Where each controlled stepper keeps the sixth stage's argument and slope (null before its
  // first attempt), and whether they are the last accepted step's: Hairer's stiffness test.
  const S* stage_x_[2] = {nullptr, nullptr};
  const S* stage_f_[2] = {nullptr, nullptr};
  int calls_[2] = {0, 0};
  bool sixth_stage_current_ = false;
};

// An explicit embedded pair that is not FSAL, under odeint's controlled_runge_kutta (default
// error checker and step adjuster, as dopri5). An attempt costs the s - 1 stages 2..s (stage 1
// is the stored slope); an accepted one adds f(t1, x1), the Hermite end slope and the next
// step's stage 1. After an acceptance, keep_dense_data() reads the attempt's stages (stage_(i)
// is k_i) before the next attempt overwrites them.
//
// Defect control of the dense output. The method's error estimate speaks for x1 only, and
// these pairs' interpolants are of lower order than the method (rkf78: 5 against 8): at loose
// tolerances the steps grow until the interpolant, which locates every event and gives the
// state there, is off by far more than the tolerance (the drag ball's second impact 0.24 s
// late under rkf78 at rtol 1e-3, from one 1.8 s step across the whole flight). So each accepted
// step also pays one evaluation for the defect of its interpolant p at one point theta_d,
//   delta = p'(theta_d) / h - f(t0 + theta_d h, p(theta_d))
// (W. H. Enright, "A new error-control for initial value solvers", Appl. Math. Comput. 31,
// 1989; D. J. Higham, "Robust defect control with Runge-Kutta schemes", SIAM J. Numer. Anal.
// 26, 1989). The interpolant's error e obeys e' = J e + h delta with e(0) = 0, so in the
// tolerance-weighted max norm |e(theta)| <= |h delta| (exp(L h theta) - 1) / (L h) for a
// Lipschitz constant L and a defect no larger than the one read: the growth factor
// phi(z) = (e^z - 1) / z, z = L h. z is estimated from the three points the step has, the
// ends and the probe: the largest weighted ratio |h (f_a - f_b)| / |x_a - x_b| (Hairer's
// chord estimate of the Jacobian's norm, as in the stiffness test). Without it (phi = 1) the
// coupling of the components was left out: the drag ball's height integrates its velocity's
// error over a 1.6 s step, and rkf78 at rtol 1e-3 let the height be 17 times its tolerance
// mid-flight. No credit is taken for the shape of the leading error term, since the stage
// data's own errors enter at the same order. The weights are 1 / (atol + rtol max(|x0|,
// |p(theta_d)|, |x1|)), without the method's h |f| term (which would let a long step's
// interpolant stray by rtol times the distance the step covers). The step stands when
// phi(z) max |h delta| <= 1 in that norm; otherwise it is rejected, and the next step is
// never larger than the interpolant allows:
//   h_next = min(the method's proposal, h min(5, 0.9 err^(-1/(q+1)))),  q the interpolant's order.
template <class S, class ErrorStepper, std::size_t kStages>
class ExplicitPairStepper : public StepperBase<S> {
  using Base = StepperBase<S>;
  using Checker = ToleranceChecker<S>;
  using Controlled = odeint::controlled_runge_kutta<ErrorStepper, Checker>;
  using System = StageRecordingSystem<S, kStages - 1>;

 public:
  // theta_d: where the defect is read; dense_order: q, the interpolant's order.
  ExplicitPairStepper(std::size_t n, const StepperTolerances<S>& tol, S theta_d, int dense_order)
      : Base(n), controlled_(Checker(tol)), tolerances_(tol), theta_d_(theta_d),
        dense_order_(dense_order), probe_x_(n), probe_slope_(n), probe_f_(n) {}

  bool is_adaptive() const override { return true; }

  StepOutcome<S> try_step(S h) override {
    S t = this->t_cur_;
    S dt = h;
    calls_ = 0;
    const auto result = controlled_.try_step(System{this->rhs_, &slots_, &calls_}, this->x_cur_, this->f_cur_, t,
                                             this->x_try_, dt);
    if (result == odeint::fail) return {StepStatus::kRejected, dt};
    const S t_before = this->t_prev_;
    const S t_new = this->t_cur_ + h;  // the sum the caller expects (odeint's t is the same)
    this->rhs_(t_new, this->x_try_.data(), this->f_try_.data());
    this->accept(t_new);
    keep_dense_data();
    const S err = dense_error(h);
    using std::pow;
    const S factor = !(err == err)   ? S(StepSizeController::kMaxShrink)  // NaN: shrink as far as allowed
                     : err == S(0) ? S(StepSizeController::kMaxGrowth)
                                   : S(StepSizeController::kSafety) * pow(err, S(-1) / S(dense_order_ + 1));
    if (!(err <= S(1))) {  // the interpolant misses the tolerance (or NaN): the step does not stand
      undo_accept(t_before);
      undo_dense_data();
      return {StepStatus::kRejected, h * std::clamp(factor, S(StepSizeController::kMaxShrink), S(0.9))};
    }
    return {StepStatus::kAccepted, std::min(dt, h * std::min(factor, S(StepSizeController::kMaxGrowth)))};
  }

 protected:
  // k_i (i = 2..s) of the last attempt, n values.
  const S* stage(std::size_t i) const { return slots_[i - 2]; }
  // Computes the accepted step's dense data, keeping the previous step's for undo_dense_data().
  virtual void keep_dense_data() = 0;
  virtual void undo_dense_data() = 0;
  // The interpolant at theta: p(theta) into x, dp/dtheta into slope (n values each).
  virtual void dense_at(S theta, S* x, S* slope) const = 0;

 private:
  // phi(z) max_i w_i |h delta_i| at theta_d (above): one evaluation of the field.
  S dense_error(S h) {
    const std::size_t n = probe_x_.size();
    dense_at(theta_d_, probe_x_.data(), probe_slope_.data());
    this->rhs_(this->t_prev_ + theta_d_ * h, probe_x_.data(), probe_f_.data());
    using std::abs;
    const S* x0 = this->x_prev_.data();
    const S* x1 = this->x_cur_.data();
    const S* f0 = this->f_prev_.data();
    const S* f1 = this->f_cur_.data();
    S worst = S(0);
    S df01 = S(0), dx01 = S(0), df0d = S(0), dx0d = S(0), dfd1 = S(0), dxd1 = S(0);
    for (std::size_t i = 0; i < n; ++i) {
      const S w = S(1) / (tolerances_.atol_at(i) +
                          tolerances_.rtol * std::max({abs(x0[i]), abs(probe_x_[i]), abs(x1[i])}));
      const S ratio = abs(probe_slope_[i] - h * probe_f_[i]) * w;
      if (!(ratio <= worst)) worst = ratio;  // keeps a NaN
      df01 = std::max(df01, abs(h * (f1[i] - f0[i])) * w);
      dx01 = std::max(dx01, abs(x1[i] - x0[i]) * w);
      df0d = std::max(df0d, abs(h * (probe_f_[i] - f0[i])) * w);
      dx0d = std::max(dx0d, abs(probe_x_[i] - x0[i]) * w);
      dfd1 = std::max(dfd1, abs(h * (f1[i] - probe_f_[i])) * w);
      dxd1 = std::max(dxd1, abs(x1[i] - probe_x_[i]) * w);
    }
    S z = S(0);
    if (dx01 > S(0)) z = std::max(z, df01 / dx01);
    if (dx0d > S(0)) z = std::max(z, df0d / dx0d);
    if (dxd1 > S(0)) z = std::max(z, dfd1 / dxd1);
    z = std::min(z, S(20));  // phi(20) = 2.4e7: the step is rejected either way
    using std::expm1;
    const S growth = z > S(0) ? expm1(z) / z : S(1);
    return worst * growth;
  }

  // The inverse of accept(): the step's start is current again.
  void undo_accept(S t_before) {
    std::swap(this->x_cur_, this->x_try_);
    std::swap(this->f_cur_, this->f_try_);
    std::swap(this->x_prev_, this->x_cur_);
    std::swap(this->f_prev_, this->f_cur_);
    this->t_cur_ = this->t_prev_;
    this->t_prev_ = t_before;
  }

  Controlled controlled_;
  StepperTolerances<S> tolerances_;
  S theta_d_;
  int dense_order_;
  State<S> probe_x_, probe_slope_, probe_f_;  // the defect check's point (sized once)
  std::array<const S*, kStages - 1> slots_{};
  std::size_t calls_ = 0;
};

// dH/dtheta of hermite_cubic: H = (1-θ) x0 + θ x1 + q(θ) B(θ), q = θ(θ-1),
// B = (1-2θ)(x1-x0) + (θ-1) h f0 + θ h f1, so H' = (x1-x0) + q' B + q B'.
template <class S>
S hermite_cubic_slope(S theta, S h, S x0, S f0, S x1, S f1) {
  const S chord = x1 - x0;
  const S q = theta * (theta - S(1)), q_slope = S(2) * theta - S(1);
  const S b = (S(1) - S(2) * theta) * chord + (theta - S(1)) * h * f0 + theta * h * f1;
  const S b_slope = S(-2) * chord + h * f0 + h * f1;
  return chord + q_slope * b + q * b_slope;
}

// Cash-Karp 5(4) with a quartic Hermite dense output of order 4.
//
// The fifth datum, besides (x0, f0, x1, f1), is a midpoint value built from the stages:
//   x_1/2 = x0 + h (89/864 k1 + 575/1512 k3 + 25/1728 k4 - 13/448 k5 + 1/32 f1),
// with f1 = f(t1, x1) (already evaluated as the next step's k1). Its weights w solve the order
// conditions of a continuous extension at theta = 1/2 through order 4 (HNW I, II.6: sum_i w_i
// Phi_i(tau) = (1/2)^|tau| / gamma(tau) for the 8 trees with |tau| <= 4, over the 6 stages and
// f1 as a 7th stage with a_7j = b_j); these have a one-parameter family of solutions, and we
// take the one without k6 (its order-5 residuals are within 0.3% of the smallest possible).
// So x_1/2 - x(t0 + h/2) = O(h^5), and the quartic p with p(0) = x0, p(1) = x1, p'(0) = h f0,
// p'(1) = h f1, p(1/2) = x_1/2 is
//   p(θ) = H(θ) + 16 θ²(1-θ)² (x_1/2 - H(1/2)),   H(1/2) = (x0 + x1)/2 + h (f0 - f1)/8,
// H the cubic Hermite interpolant: local error O(h^5) (order 4, as dopri5's), exact for
// polynomials of degree <= 4, and no evaluation beyond the step's own. Its leading error has
// the shape E = θ²(1-θ)²(θ - 1/2), whose slope is largest at θ = 1/2 (max|E| / |E'(1/2)| =
// 0.143): the defect check reads it there.
constexpr Fraction kCashKarpMid1{89, 864}, kCashKarpMid3{575, 1512}, kCashKarpMid4{25, 1728},
    kCashKarpMid5{-13, 448}, kCashKarpMidEnd{1, 32};

template <class S>
class CashKarp54Stepper final
    : public ExplicitPairStepper<S, odeint::runge_kutta_cash_karp54<State<S>, S, State<S>, S>, 6> {
 public:
  CashKarp54Stepper(std::size_t n, const StepperTolerances<S>& tol)
      : ExplicitPairStepper<S, odeint::runge_kutta_cash_karp54<State<S>, S, State<S>, S>, 6>(n, tol, S(1) / S(2), 4),
        mid_(n),
        mid_before_(n) {}

  std::string_view name() const override { return "cashkarp54"; }
  int order() const override { return 5; }

  int dense_degree() const override { return 4; }  // the cubic Hermite plus a quartic bubble

  void interpolate(S t, S* x) const override {
    if (this->copy_end_point(t, x)) return;
    dense_at((t - this->t_prev_) / (this->t_cur_ - this->t_prev_), x, nullptr);
  }

 private:
  void dense_at(S theta, S* x, S* slope) const override {
    const S h = this->t_cur_ - this->t_prev_;
    const S bubble = S(16) * theta * theta * (S(1) - theta) * (S(1) - theta);
    const S bubble_slope = S(32) * theta * (S(1) - theta) * (S(1) - S(2) * theta);
    for (std::size_t i = 0; i < this->x_cur_.size(); ++i) {
      const S x0 = this->x_prev_[i], f0 = this->f_prev_[i], x1 = this->x_cur_[i], f1 = this->f_cur_[i];
      const S hermite_mid = (x0 + x1) / S(2) + h * (f0 - f1) / S(8);
      x[i] = hermite_cubic(theta, h, x0, f0, x1, f1) + bubble * (mid_[i] - hermite_mid);
      if (slope != nullptr) {
        slope[i] = hermite_cubic_slope(theta, h, x0, f0, x1, f1) + bubble_slope * (mid_[i] - hermite_mid);
      }
    }
  }

  void keep_dense_data() override {
    std::swap(mid_, mid_before_);
    const S h = this->t_cur_ - this->t_prev_;
    const S* k3 = this->stage(3);
    const S* k4 = this->stage(4);
    const S* k5 = this->stage(5);
    for (std::size_t i = 0; i < mid_.size(); ++i) {
      mid_[i] = this->x_prev_[i] + h * (w1_ * this->f_prev_[i] + w3_ * k3[i] + w4_ * k4[i] + w5_ * k5[i] +
                                        w_end_ * this->f_cur_[i]);
    }
  }
  void undo_dense_data() override { std::swap(mid_, mid_before_); }

  const S w1_ = kCashKarpMid1.as<S>(), w3_ = kCashKarpMid3.as<S>(), w4_ = kCashKarpMid4.as<S>(),
          w5_ = kCashKarpMid5.as<S>(), w_end_ = kCashKarpMidEnd.as<S>();
  State<S> mid_;         // x_1/2 of the last accepted step
  State<S> mid_before_;  // of the step before it (a step the defect check rejects restores it)
};

// Fehlberg 7(8) with a quintic Hermite dense output of order 5.
//
// The two data besides (x0, f0, x1, f1) are slopes the step computed: k10 = f(Y10) at
// c10 = 1/3 and k9 = f(Y9) at c9 = 2/3. Both stages have internal order 4, so k - x'(t) =
// O(h^5) there, and the quintic p with p(0) = x0, p(1) = x1, p'(0) = h f0, p'(1) = h f1,
// p'(1/3) = h k10, p'(2/3) = h k9 has local error O(h^6): order 5, exact for polynomials of
// degree <= 5, no extra evaluation. With the cubic Hermite H and the bubble θ²(1-θ)²(α + βθ),
// whose slopes at 1/3 and 2/3 must make up D1 = h k10 - H'(1/3) and D2 = h k9 - H'(2/3), where
// H'(1/3) = 4/3 (x1 - x0) - h f1 / 3 and H'(2/3) = 4/3 (x1 - x0) - h f0 / 3:
//   4/27 α + 8/81 β = D1,  -4/27 α - 4/81 β = D2   =>   β = 81/4 (D1 + D2),  α = -27/4 (D1 + 2 D2).
// Order 6 would need stage data of internal order 5, which Fehlberg's stages do not have (and a
// continuous extension of order 6 from the 13 stages and f1 does not exist: the order
// conditions are inconsistent), hence extra evaluations; we do not spend them. The leading error
// has E' = θ(θ-1/3)(θ-2/3)(θ-1)(θ-1/2), zero at θ = 1/2: the defect check reads it at θ = 0.9,
// near its largest (max|E| / |E'(0.9)| = 0.19).
template <class S>
class Fehlberg78Stepper final
    : public ExplicitPairStepper<S, odeint::runge_kutta_fehlberg78<State<S>, S, State<S>, S>, 13> {
 public:
  Fehlberg78Stepper(std::size_t n, const StepperTolerances<S>& tol)
      : ExplicitPairStepper<S, odeint::runge_kutta_fehlberg78<State<S>, S, State<S>, S>, 13>(n, tol, S(9) / S(10), 5),
        alpha_(n),
        beta_(n),
        alpha_before_(n),
        beta_before_(n) {}

  std::string_view name() const override { return "rkf78"; }
  int order() const override { return 8; }

  int dense_degree() const override { return 5; }  // the quintic Hermite

  void interpolate(S t, S* x) const override {
    if (this->copy_end_point(t, x)) return;
    dense_at((t - this->t_prev_) / (this->t_cur_ - this->t_prev_), x, nullptr);
  }

 private:
  void dense_at(S theta, S* x, S* slope) const override {
    const S h = this->t_cur_ - this->t_prev_;
    const S bubble = theta * theta * (S(1) - theta) * (S(1) - theta);
    const S bubble_slope = S(2) * theta * (S(1) - theta) * (S(1) - S(2) * theta);
    for (std::size_t i = 0; i < this->x_cur_.size(); ++i) {
      const S x0 = this->x_prev_[i], f0 = this->f_prev_[i], x1 = this->x_cur_[i], f1 = this->f_cur_[i];
      x[i] = hermite_cubic(theta, h, x0, f0, x1, f1) + bubble * (alpha_[i] + beta_[i] * theta);
      if (slope != nullptr) {
        slope[i] = hermite_cubic_slope(theta, h, x0, f0, x1, f1) + bubble_slope * (alpha_[i] + beta_[i] * theta) +
                   bubble * beta_[i];
      }
    }
  }

  void keep_dense_data() override {
    std::swap(alpha_, alpha_before_);
    std::swap(beta_, beta_before_);
    const S h = this->t_cur_ - this->t_prev_;
    const S* k9 = this->stage(9);    // c9 = 2/3
    const S* k10 = this->stage(10);  // c10 = 1/3
    for (std::size_t i = 0; i < alpha_.size(); ++i) {
      const S chord = S(4) / S(3) * (this->x_cur_[i] - this->x_prev_[i]);
      const S d1 = h * k10[i] - chord + h * this->f_cur_[i] / S(3);
      const S d2 = h * k9[i] - chord + h * this->f_prev_[i] / S(3);
      beta_[i] = S(81) / S(4) * (d1 + d2);
      alpha_[i] = S(-27) / S(4) * (d1 + S(2) * d2);
    }
  }
  void undo_dense_data() override {
    std::swap(alpha_, alpha_before_);
    std::swap(beta_, beta_before_);
  }

  State<S> alpha_, beta_;                // the bubble's coefficients for the last accepted step
  State<S> alpha_before_, beta_before_;  // for the step before it (restored by undo_dense_data)
};

// Fixed-step explicit steppers: RK4 (cubic Hermite dense output) and Euler (linear).
template <class S, class OdeintStepper>
class FixedStepper final : public StepperBase<S> {
  using Base = StepperBase<S>;

 public:
  FixedStepper(std::size_t n, std::string_view stepper_name, int stepper_order)
      : Base(n), name_(stepper_name), order_(stepper_order) {}

  std::string_view name() const override { return name_; }
  bool is_adaptive() const override { return false; }
  int order() const override { return order_; }

  StepOutcome<S> try_step(S h) override {
    // x_try = Phi_h(x_cur), using f_cur as the first stage; then f_try = f(t + h, x_try),
    // which is both the Hermite end slope and the next step's first stage.
    stepper_.do_step(OdeintSystem<S>{this->rhs_}, this->x_cur_, this->f_cur_, this->t_cur_, this->x_try_, h);
    const S t_new = this->t_cur_ + h;
    this->rhs_(t_new, this->x_try_.data(), this->f_try_.data());
    this->accept(t_new);
    return {StepStatus::kAccepted, h};
  }

  int dense_degree() const override { return order_ == 1 ? 1 : 3; }  // Euler's line, else the cubic Hermite

  void interpolate(S t, S* x) const override {
    const std::size_t n = this->x_cur_.size();
    const S h = this->t_cur_ - this->t_prev_;
    if (h == S(0)) {
      std::copy(this->x_cur_.begin(), this->x_cur_.end(), x);
      return;
    }
    const S theta = (t - this->t_prev_) / h;
    for (std::size_t i = 0; i < n; ++i) {
      if (order_ == 1) {
        // Euler's own line: x0 + (t - t0) f0 (ends at x1 up to rounding).
        x[i] = this->x_prev_[i] + (t - this->t_prev_) * this->f_prev_[i];
      } else {
        x[i] = hermite_cubic(theta, h, this->x_prev_[i], this->f_prev_[i], this->x_cur_[i], this->f_cur_[i]);
      }
    }
  }

 private:
  OdeintStepper stepper_;
  std::string_view name_;
  int order_;
};

}  // namespace
}  // namespace solvers

namespace {

// The makers of the catalog's steppers defined here, in each scalar type (the others are in
// their own files, stepper_base.hpp).
template <class S>
std::unique_ptr<Stepper<S>> make_dopri5(std::size_t n, const StepperTolerances<S>& tolerances) {
  return std::make_unique<solvers::Dopri5Stepper<S>>(n, tolerances);
}

template <class S>
std::unique_ptr<Stepper<S>> make_rk4(std::size_t n, const StepperTolerances<S>& /*tolerances*/) {
  using solvers::State;
  using Method = boost::numeric::odeint::runge_kutta4<State<S>, S, State<S>, S>;
  return std::make_unique<solvers::FixedStepper<S, Method>>(n, "rk4", 4);
}

template <class S>
std::unique_ptr<Stepper<S>> make_euler(std::size_t n, const StepperTolerances<S>& /*tolerances*/) {
  using solvers::State;
  using Method = boost::numeric::odeint::euler<State<S>, S, State<S>, S>;
  return std::make_unique<solvers::FixedStepper<S, Method>>(n, "euler", 1);
}

template <class S>
std::unique_ptr<Stepper<S>> make_cashkarp54(std::size_t n, const StepperTolerances<S>& tolerances) {
  return std::make_unique<solvers::CashKarp54Stepper<S>>(n, tolerances);
}

template <class S>
std::unique_ptr<Stepper<S>> make_rkf78(std::size_t n, const StepperTolerances<S>& tolerances) {
  return std::make_unique<solvers::Fehlberg78Stepper<S>>(n, tolerances);
}

}  // namespace

// An entry of the catalog: its maker template in each scalar type.
#define HYSIM_SOLVER_MAKERS(maker) &maker<double>, &maker<long double>, &maker<float128>

const std::vector<SolverInfo>& solver_catalog() {
  static const std::vector<SolverInfo> catalog = {
      {"dopri5", "Dormand-Prince 5(4), adaptive, FSAL, 4th-order dense output (Boost.Odeint)", true, HYSIM_SOLVER_MAKERS(make_dopri5)},
      {"rk4", "classical Runge-Kutta 4, fixed step, cubic Hermite dense output (Boost.Odeint)", false, HYSIM_SOLVER_MAKERS(make_rk4)},
      {"euler", "forward Euler, fixed step, linear dense output (Boost.Odeint)", false, HYSIM_SOLVER_MAKERS(make_euler)},
      {"bs3", "Bogacki-Shampine 3(2), adaptive, FSAL, cubic Hermite dense output (order 3, the method's own)",
       true, HYSIM_SOLVER_MAKERS(solvers::make_bogacki_shampine3)},
      {"cashkarp54",
       "Cash-Karp 5(4), adaptive (Boost.Odeint); no own dense output: quartic Hermite of order 4 "
       "(midpoint from the stages), its defect checked per step (one evaluation)",
       true, HYSIM_SOLVER_MAKERS(make_cashkarp54)},
      {"rkf78",
       "Runge-Kutta-Fehlberg 7(8), adaptive, advances with order 8 (Boost.Odeint); no own dense output: "
       "quintic Hermite of order 5 (slopes of stages at 1/3, 2/3), its defect checked per step (one evaluation)",
       true, HYSIM_SOLVER_MAKERS(make_rkf78)},
      {"rosenbrock4",
       "Rosenbrock 4(3) for stiff fields (RODAS, the method of Boost.Odeint's rosenbrock4), adaptive, "
       "3rd-order dense output; finite-difference Jacobian and df/dt: n + 7 evaluations per step",
       true, HYSIM_SOLVER_MAKERS(solvers::make_rosenbrock4)},
      {"ndf",
       "numerical differentiation formulas of orders 1 to 5 for stiff fields (Shampine & Reichelt, the "
       "method of MATLAB's ode15s), variable order, simplified Newton with a kept finite-difference "
       "Jacobian: about 1 evaluation per step; dense output of the step's order",
       true, HYSIM_SOLVER_MAKERS(solvers::make_ndf)},
      {"dop853",
       "Dormand-Prince 8(5,3), adaptive, FSAL, 7th-order dense output (Hairer's dop853): "
       "15 evaluations per step (3 for the dense output)",
       true, HYSIM_SOLVER_MAKERS(solvers::make_dop853)},
  };
  return catalog;
}

#undef HYSIM_SOLVER_MAKERS

LinearSolver linear_solver_from_name(std::string_view name) {
  if (name == "auto") return LinearSolver::kAuto;
  if (name == "dense") return LinearSolver::kDense;
  if (name == "sparse") return LinearSolver::kSparse;
  throw InvalidArgument("unknown linear solver '" + std::string(name) + "' (known: auto, dense, sparse)");
}

template <class S>
std::unique_ptr<Stepper<S>> make_stepper(std::string_view name, std::size_t n,
                                         const StepperTolerances<S>& tolerances) {
  std::string known;
  for (const auto& info : solver_catalog()) {
    if (info.name == name) {
      if constexpr (std::is_same_v<S, double>) {
        return info.make_double(n, tolerances);
      } else if constexpr (std::is_same_v<S, long double>) {
        return info.make_long_double(n, tolerances);
      } else {
        return info.make_float128(n, tolerances);
      }
    }
    known += (known.empty() ? "" : ", ") + info.name;
  }
  throw InvalidArgument("unknown solver '" + std::string(name) + "' (known: " + known + ")");
}

#define HYSIM_INSTANTIATE(S)                                                        \
  template std::unique_ptr<Stepper<S>> make_stepper<S>(std::string_view, std::size_t, \
                                                       const StepperTolerances<S>&);
HYSIM_FOR_EACH_SCALAR(HYSIM_INSTANTIATE)
#undef HYSIM_INSTANTIATE

}  // namespace hysim
