// bs3: the Bogacki-Shampine 3(2) pair, adaptive, FSAL, with its cubic Hermite dense output.
//
// P. Bogacki and L. F. Shampine, "A 3(2) pair of Runge-Kutta formulas", Appl. Math. Lett.
// 2(4), 321-325 (1989). Butcher tableau (b: the propagated 3rd-order solution, b^: the
// embedded 2nd-order one; the last row of A equals b, so k4 = f(t1, x1) is the next step's k1):
//
//     0   |
//    1/2  | 1/2
//    3/4  | 0     3/4
//     1   | 2/9   1/3   4/9
//   ------+------------------------
//     b   | 2/9   1/3   4/9   0
//     b^  | 7/24  1/4   1/3   1/8
//
// One attempt costs 3 evaluations (k2, k3, k4), accepted or not: k1 is the stored slope and k4
// is f at the new point. The local error estimate is err = x1 - x1^ = h sum (b_i - b^_i) k_i
// = O(h^3); it is measured with odeint's default_error_checker norm and drives the standard
// controller (stepper_base.hpp) with k = 3. Since the propagated solution has order 3 (local
// extrapolation), a solution that is a polynomial of degree <= 3 in t on the step, e.g. a
// quadratic within a mode of the PWM servo, makes both solutions exact and err = 0 (up to
// rounding): the step then grows by the controller's maximum factor, 5.
//
// Dense output: the cubic Hermite interpolant through (x0, f0, x1, f1) (Hairer, Norsett & Wanner,
// Solving ODE I, II.6, Eq. (6.7)), which is free here (f1 = k4) and of order 3: local error
// O(h^4), the method's own local error order, and exact for polynomials of degree <= 3.
#include <cstddef>
#include <memory>
#include <string_view>

#include "hysim/solvers/stepper_base.hpp"

namespace hysim::solvers {
namespace {

// The tableau above, each coefficient once.
constexpr Fraction kC2{1, 2}, kC3{3, 4};
constexpr Fraction kA21{1, 2}, kA32{3, 4};
constexpr Fraction kB1{2, 9}, kB2{1, 3}, kB3{4, 9};
constexpr Fraction kE1{-5, 72}, kE2{1, 12}, kE3{1, 9}, kE4{-1, 8};  // b - b^
constexpr int kErrorEstimateOrder = 3;                               // err = O(h^3)

template <class S>
class BogackiShampine3Stepper final : public StepperBase<S> {
  using Base = StepperBase<S>;

 public:
  BogackiShampine3Stepper(std::size_t n, const StepperTolerances<S>& tolerances)
      : Base(n), tolerances_(tolerances), k2_(n), k3_(n), stage_(n), err_(n) {}

  std::string_view name() const override { return "bs3"; }
  bool is_adaptive() const override { return true; }
  int order() const override { return 3; }

  StepOutcome<S> try_step(S h) override {
    const std::size_t n = this->x_cur_.size();
    const S t = this->t_cur_;
    const S t_new = t + h;
    const S* x = this->x_cur_.data();
    const S* k1 = this->f_cur_.data();  // FSAL: the previous step's k4, f(t, x)

    // k2 = f(t + h/2, x + h/2 k1)
    for (std::size_t i = 0; i < n; ++i) stage_[i] = x[i] + h * a21_ * k1[i];
    this->rhs_(t + h * c2_, stage_.data(), k2_.data());
    // k3 = f(t + 3h/4, x + 3h/4 k2)
    for (std::size_t i = 0; i < n; ++i) stage_[i] = x[i] + h * a32_ * k2_[i];
    this->rhs_(t + h * c3_, stage_.data(), k3_.data());
    // x1 = x + h (2/9 k1 + 1/3 k2 + 4/9 k3);  k4 = f(t + h, x1), the next step's k1
    for (std::size_t i = 0; i < n; ++i) this->x_try_[i] = x[i] + h * (b1_ * k1[i] + b2_ * k2_[i] + b3_ * k3_[i]);
    this->rhs_(t_new, this->x_try_.data(), this->f_try_.data());
    const S* k4 = this->f_try_.data();
    // err = x1 - x1^ = h (-5/72 k1 + 1/12 k2 + 1/9 k3 - 1/8 k4)
    for (std::size_t i = 0; i < n; ++i) err_[i] = h * (e1_ * k1[i] + e2_ * k2_[i] + e3_ * k3_[i] + e4_ * k4[i]);

    const S err = error_ratio(tolerances_, err_.data(), x, k1, h, n);
    const S h_next = controller_.next_step(h, err);
    if (!controller_.accepts(err)) return {StepStatus::kRejected, h_next};
    this->accept(t_new);
    return {StepStatus::kAccepted, h_next};
  }

  int dense_degree() const override { return 3; }  // the cubic Hermite

  void interpolate(S t, S* x) const override {
    if (this->copy_end_point(t, x)) return;
    const S h = this->t_cur_ - this->t_prev_;
    const S theta = (t - this->t_prev_) / h;
    for (std::size_t i = 0; i < this->x_cur_.size(); ++i) {
      x[i] = hermite_cubic(theta, h, this->x_prev_[i], this->f_prev_[i], this->x_cur_[i], this->f_cur_[i]);
    }
  }

 private:
  StepperTolerances<S> tolerances_;
  StepSizeController controller_{kErrorEstimateOrder};
  const S c2_ = kC2.as<S>(), c3_ = kC3.as<S>();
  const S a21_ = kA21.as<S>(), a32_ = kA32.as<S>();
  const S b1_ = kB1.as<S>(), b2_ = kB2.as<S>(), b3_ = kB3.as<S>();
  const S e1_ = kE1.as<S>(), e2_ = kE2.as<S>(), e3_ = kE3.as<S>(), e4_ = kE4.as<S>();
  State<S> k2_, k3_, stage_, err_;
};

}  // namespace

template <class S>
std::unique_ptr<Stepper<S>> make_bogacki_shampine3(std::size_t n, const StepperTolerances<S>& tolerances) {
  return std::make_unique<BogackiShampine3Stepper<S>>(n, tolerances);
}

#define HYSIM_INSTANTIATE(S) \
  template std::unique_ptr<Stepper<S>> make_bogacki_shampine3<S>(std::size_t, const StepperTolerances<S>&);
HYSIM_FOR_EACH_SCALAR(HYSIM_INSTANTIATE)
#undef HYSIM_INSTANTIATE

}  // namespace hysim::solvers
