// Steppers built on Boost.Odeint, behind the Stepper interface of solvers/stepper.hpp.
//
//   dopri5  Dormand & Prince 5(4), FSAL, odeint's controlled_runge_kutta with its default
//           error checker and step adjuster; dense output is Dormand-Prince's own continuous
//           extension of order 4 (odeint's runge_kutta_dopri5::calc_state; Hairer, Norsett &
//           Wanner, Solving ODE I, II.6).
//   rk4     classical Runge-Kutta 4, fixed step; dense output by the cubic Hermite
//           interpolant through (x0, f0, x1, f1), one evaluation per step reused as the next
//           step's first stage.
//   euler   forward Euler, fixed step; dense output is the Euler line itself.
#include <algorithm>
#include <boost/numeric/odeint/stepper/controlled_runge_kutta.hpp>
#include <boost/numeric/odeint/stepper/euler.hpp>
#include <boost/numeric/odeint/stepper/runge_kutta4.hpp>
#include <boost/numeric/odeint/stepper/runge_kutta_dopri5.hpp>
#include <utility>

#include "core/errors.hpp"
#include "solvers/stepper.hpp"

// Boost.Multiprecision numbers name themselves as their value_type, which sends odeint's
// value-type extraction into an endless recursion; tell odeint that float128 is a scalar.
namespace boost::numeric::odeint::detail {
template <>
struct extract_value_type<hysim::float128, void> {
  using type = hysim::float128;
};
}  // namespace boost::numeric::odeint::detail

namespace hysim {
namespace {

namespace odeint = boost::numeric::odeint;

template <class S>
using State = std::vector<S>;

// Adapts our Rhs (pointers) to odeint's system signature sys(x, dxdt, t).
template <class S>
struct OdeintSystem {
  Rhs<S> rhs;
  void operator()(const State<S>& x, State<S>& dxdt, S t) const { rhs(t, x.data(), dxdt.data()); }
};

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
  }

  S t_current() const override { return t_cur_; }
  const S* x_current() const override { return x_cur_.data(); }
  const S* dxdt_current() const override { return f_cur_.data(); }
  S t_previous() const override { return t_prev_; }
  const S* x_previous() const override { return x_prev_.data(); }

 protected:
  // Makes the attempted point (t_new, x_try, f_try) the current one.
  void accept(S t_new) {
    std::swap(x_prev_, x_cur_);
    std::swap(f_prev_, f_cur_);
    std::swap(x_cur_, x_try_);
    std::swap(f_cur_, f_try_);
    t_prev_ = t_cur_;
    t_cur_ = t_new;
  }

  Rhs<S> rhs_;
  S t_prev_ = S(0), t_cur_ = S(0);
  State<S> x_prev_, f_prev_, x_cur_, f_cur_, x_try_, f_try_;
};

template <class S>
class Dopri5Stepper final : public StepperBase<S> {
  using Base = StepperBase<S>;
  using Dopri = odeint::runge_kutta_dopri5<State<S>, S, State<S>, S>;
  using Checker = odeint::default_error_checker<S, odeint::range_algebra, odeint::default_operations>;
  using Controlled = odeint::controlled_runge_kutta<Dopri, Checker>;

 public:
  Dopri5Stepper(std::size_t n, const StepperTolerances<S>& tol)
      : Base(n), controlled_(Checker(tol.atol, tol.rtol)), dense_(n) {}

  std::string_view name() const override { return "dopri5"; }
  bool is_adaptive() const override { return true; }
  int order() const override { return 5; }

  StepOutcome<S> try_step(S h) override {
    S t = this->t_cur_;
    S dt = h;
    const auto result = controlled_.try_step(OdeintSystem<S>{this->rhs_}, this->x_cur_, this->f_cur_, t,
                                             this->x_try_, this->f_try_, dt);
    if (result == odeint::fail) return {StepStatus::kRejected, dt};
    // odeint advanced t by h; keep the sum the caller expects, t_cur + h.
    this->accept(this->t_cur_ + h);
    // The dense output reads the accepted step's stages, which the next attempt (accepted or
    // not) overwrites inside controlled_: keep a copy (same sizes after the first step, so
    // the assignment does not allocate).
    accepted_ = controlled_.stepper();
    return {StepStatus::kAccepted, dt};
  }

  void interpolate(S t, S* x) const override {
    if (t == this->t_cur_) {
      std::copy(this->x_cur_.begin(), this->x_cur_.end(), x);
      return;
    }
    if (t == this->t_prev_) {
      std::copy(this->x_prev_.begin(), this->x_prev_.end(), x);
      return;
    }
    // odeint writes into a State of the right size (allocated once, in the constructor).
    accepted_.calc_state(t, dense_, this->x_prev_, this->f_prev_, this->t_prev_,
                                     this->x_cur_, this->f_cur_, this->t_cur_);
    std::copy(dense_.begin(), dense_.end(), x);
  }

 private:
  Controlled controlled_;
  Dopri accepted_;  // the stepper as it was after the last accepted step
  mutable State<S> dense_;
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

  void interpolate(S t, S* x) const override {
    const std::size_t n = this->x_cur_.size();
    const S h = this->t_cur_ - this->t_prev_;
    if (h == S(0)) {
      std::copy(this->x_cur_.begin(), this->x_cur_.end(), x);
      return;
    }
    const S theta = (t - this->t_prev_) / h;
    for (std::size_t i = 0; i < n; ++i) {
      const S x0 = this->x_prev_[i], x1 = this->x_cur_[i];
      if (order_ == 1) {
        // Euler's own line: x0 + (t - t0) f0 (ends at x1 up to rounding).
        x[i] = x0 + (t - this->t_prev_) * this->f_prev_[i];
      } else {
        // Cubic Hermite: (1-θ)x0 + θx1 + θ(θ-1)[(1-2θ)(x1-x0) + (θ-1)h f0 + θ h f1]
        // (Hairer, Norsett & Wanner, Solving ODE I, II.6, Eq. 6.7).
        x[i] = (S(1) - theta) * x0 + theta * x1 +
               theta * (theta - S(1)) *
                   ((S(1) - S(2) * theta) * (x1 - x0) + (theta - S(1)) * h * this->f_prev_[i] +
                    theta * h * this->f_cur_[i]);
      }
    }
  }

 private:
  OdeintStepper stepper_;
  std::string_view name_;
  int order_;
};

}  // namespace

const std::vector<SolverInfo>& solver_catalog() {
  static const std::vector<SolverInfo> catalog = {
      {"dopri5", "Dormand-Prince 5(4), adaptive, FSAL, 4th-order dense output (Boost.Odeint)", true},
      {"rk4", "classical Runge-Kutta 4, fixed step, cubic Hermite dense output (Boost.Odeint)", false},
      {"euler", "forward Euler, fixed step, linear dense output (Boost.Odeint)", false},
  };
  return catalog;
}

template <class S>
std::unique_ptr<Stepper<S>> make_stepper(std::string_view name, std::size_t n,
                                         const StepperTolerances<S>& tolerances) {
  if (name == "dopri5") return std::make_unique<Dopri5Stepper<S>>(n, tolerances);
  if (name == "rk4") {
    return std::make_unique<FixedStepper<S, odeint::runge_kutta4<State<S>, S, State<S>, S>>>(n, "rk4", 4);
  }
  if (name == "euler") {
    return std::make_unique<FixedStepper<S, odeint::euler<State<S>, S, State<S>, S>>>(n, "euler", 1);
  }
  std::string known;
  for (const auto& info : solver_catalog()) known += (known.empty() ? "" : ", ") + info.name;
  throw InvalidArgument("unknown solver '" + std::string(name) + "' (known: " + known + ")");
}

#define HYSIM_INSTANTIATE(S)                                                        \
  template std::unique_ptr<Stepper<S>> make_stepper<S>(std::string_view, std::size_t, \
                                                       const StepperTolerances<S>&);
HYSIM_FOR_EACH_SCALAR(HYSIM_INSTANTIATE)
#undef HYSIM_INSTANTIATE

}  // namespace hysim
