// rosenbrock4: the 4(3) Rosenbrock method of Boost.Odeint's rosenbrock4, for stiff fields:
// Hairer & Wanner's RODAS (E. Hairer, G. Wanner, Solving ODE II, 2nd ed., Sections IV.7 and
// VI.4; their code rodas.f), 6 stages, L-stable, stiffly accurate, with its embedded 3rd-order
// solution and its 3rd-order dense output. The stages are those of odeint's
// rosenbrock4::do_step, in the transformed variables g_i of Hairer & Wanner:
//
//   M = I / (gamma h) - J,     J = df/dx (t0, x0),   f_t = df/dt (t0, x0)
//   M g1 = f(t0, x0)                                      + h d1 f_t
//   M g2 = f(t0 + c2 h, x0 + a21 g1)                      + h d2 f_t + (c21 g1) / h
//   M g3 = f(t0 + c3 h, x0 + a31 g1 + a32 g2)             + h d3 f_t + (c31 g1 + c32 g2) / h
//   M g4 = f(t0 + c4 h, x0 + a41 g1 + a42 g2 + a43 g3)    + h d4 f_t + (c41 g1 + ... + c43 g3) / h
//   x^ = x0 + a51 g1 + ... + a54 g4
//   M g5 = f(t0 + h, x^)                                             + (c51 g1 + ... + c54 g4) / h
//   x^ = x^ + g5                                          (the embedded solution, order 3)
//   M g6 = f(t0 + h, x^)                                             + (c61 g1 + ... + c65 g5) / h
//   x1 = x^ + g6                                          (the solution, order 4; g6 = x1 - x^)
//   dense: x(t0 + s h) = (1-s) x0 + s (x1 + (1-s) (cont3 + s cont4)),
//          cont3 = sum_j d2j g_j, cont4 = sum_j d3j g_j   (order 3)
//
// Why not odeint's class itself: (1) it keeps its state in uBLAS vectors, and uBLAS 1.74
// (Debian 12's Boost) does not compile in C++20 (its unbounded_array calls
// std::allocator::construct, removed in C++20; boostorg/ublas#96); (2) its
// default_rosenbrock_coefficients has d4 = +0.0362, where rodas.f has d4 = -0.0362: with the
// wrong sign a non-autonomous field loses the method's order (one step on x' = 2t is not exact;
// with -0.0362 it is: solvers/dense_output_derivation.py, tests/solvers_test.cpp). The
// coefficients below are rodas.f's.
//
// Jacobian and f_t: forward differences through the counted field, n + 1 evaluations (g + 1 with
// a Jacobian pattern of g groups of columns that share no row). J has the increments of CVODE's
// difference-quotient Jacobian (solvers/iteration_matrix.hpp):
// delta_j = max(sqrt(eps) |x_j|, 1000 |h| eps n ||f|| (atol + rtol |x_j|)), with h the step being
// attempted and ||f|| the RMS of f in units of the tolerances, so a component far below the others
// (Robertson's y2, down to 1e-14 against y1 and y3 of order 1) is perturbed in proportion to its
// own size and tolerance. (The increments of Hairer & Wanner's codes, sqrt(eps max(1e-5, |x_j|)),
// perturb such a component by about 5e-11, more than its value: the Jacobian's column is wrong,
// the method loses its order, and on Robertson's kinetics to t = 4e10 at rtol 1e-8, atol 1e-14
// the run took 117,918 steps; it takes 1,672 with these.) f_t keeps the increment of
// Hairer & Wanner's codes in t, sqrt(eps max(1e-5, |t|)). Both are taken as the representable
// difference (x_j + delta_j) - x_j, and computed once per point: a rejected attempt retries from
// the same (t0, x0) with the same J and f_t.
// Evaluations: f(t0, x0) is the stored slope (odeint's do_step evaluates it again; we do not);
// every attempt costs 5 (stages 2 to 6); the first attempt from a point adds n + 1 (J, f_t); an
// accepted step adds 1, f(t1, x1), the next point's slope. So a step accepted at once costs
// n + 7.
//
// Error control: the estimate g6 = O(h^4) in odeint's default_error_checker norm, and the
// standard controller with k = 4 (stepper_base.hpp). (odeint's rosenbrock4_controller uses an
// RMS norm and a predictive controller whose history would carry over across the restarts at
// events; the simulator needs neither.) A singular M (a zero pivot) rejects the attempt.
//
// Precision: rodas.f gives its coefficients as 16-digit decimals, so the order conditions hold
// to about 1e-16 only. In long double and float128 the method therefore converges with order 4
// down to a floor of about 1e-15 relative error and no further (measured over [0, 1] on
// x' = x, x' = 1 + x^2 and x' = cos(t) x: 0.6e-15 to 1.7e-15 at every rtol from 1e-16 to 1e-20,
// while rtol = 1e-14 is met); make_rosenbrock4 refuses rtol below kFinestRtol = 1e-14 in those
// types rather than promise what it cannot deliver. In double the finite-difference Jacobian
// (relative error ~ sqrt(eps) = 1.5e-8) limits the accuracy at tight tolerances to a few 1e-13
// (x' = 1 + x^2 over [0, 1], atol = rtol: at rtol 1e-12 error 8e-14, at rtol 1e-14 error 3.6e-13;
// in long double at rtol 1e-14: 1.5e-15. With the increments of Hairer & Wanner's codes these were
// 2.4e-12, 5.4e-13 and 2.0e-14).
#include <cmath>
#include <cstddef>
#include <limits>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "hysim/core/errors.hpp"
#include "hysim/solvers/iteration_matrix.hpp"
#include "hysim/solvers/stepper_base.hpp"

namespace hysim::solvers {
namespace {

// RODAS (rodas.f, METH = 1), in the names of odeint's rosenbrock4 coefficients.
constexpr long double kGamma = 0.25L;
constexpr long double kD1 = 0.25L, kD2 = -0.1043L, kD3 = 0.1035L, kD4 = -0.3620000000000023e-01L;
constexpr long double kC2 = 0.386L, kC3 = 0.21L, kC4 = 0.63L;
constexpr long double kC21 = -0.5668800000000000e+01L;
constexpr long double kA21 = 0.1544000000000000e+01L;
constexpr long double kC31 = -0.2430093356833875e+01L, kC32 = -0.2063599157091915e+00L;
constexpr long double kA31 = 0.9466785280815826e+00L, kA32 = 0.2557011698983284e+00L;
constexpr long double kC41 = -0.1073529058151375e+00L, kC42 = -0.9594562251023355e+01L,
                      kC43 = -0.2047028614809616e+02L;
constexpr long double kA41 = 0.3314825187068521e+01L, kA42 = 0.2896124015972201e+01L,
                      kA43 = 0.9986419139977817e+00L;
constexpr long double kC51 = 0.7496443313967647e+01L, kC52 = -0.1024680431464352e+02L,
                      kC53 = -0.3399990352819905e+02L, kC54 = 0.1170890893206160e+02L;
constexpr long double kA51 = 0.1221224509226641e+01L, kA52 = 0.6019134481288629e+01L,
                      kA53 = 0.1253708332932087e+02L, kA54 = -0.6878860361058950e+00L;
constexpr long double kC61 = 0.8083246795921522e+01L, kC62 = -0.7981132988064893e+01L,
                      kC63 = -0.3152159432874371e+02L, kC64 = 0.1631930543123136e+02L,
                      kC65 = -0.6058818238834054e+01L;
constexpr long double kD21 = 0.1012623508344586e+02L, kD22 = -0.7487995877610167e+01L,
                      kD23 = -0.3480091861555747e+02L, kD24 = -0.7992771707568823e+01L,
                      kD25 = 0.1025137723295662e+01L;
constexpr long double kD31 = -0.6762803392801253e+00L, kD32 = 0.6087714651680015e+01L,
                      kD33 = 0.1643084320892478e+02L, kD34 = 0.2476722511418386e+02L,
                      kD35 = -0.6594389125716872e+01L;

constexpr int kErrorEstimateOrder = 4;           // g6 = x1 - x^ = O(h^4)
constexpr double kFinestRtol = 1e-14;            // in long double and float128 (see above)

template <class S>
S coefficient(long double value) {
  return S(value);
}

template <class S>
class Rosenbrock4Stepper final : public StepperBase<S> {
  using Base = StepperBase<S>;

 public:
  Rosenbrock4Stepper(std::size_t n, const StepperTolerances<S>& tolerances)
      : Base(n),
        tolerances_(tolerances),
        iteration_(n),
        dfdt_(n),
        g_{State<S>(n), State<S>(n), State<S>(n), State<S>(n), State<S>(n), State<S>(n)},
        x_stage_(n),
        f_stage_(n),
        cont3_(n),
        cont4_(n) {}

  std::string_view name() const override { return "rosenbrock4"; }
  bool is_adaptive() const override { return true; }
  int order() const override { return 4; }

  StepOutcome<S> try_step(S h) override {
    const std::size_t n = this->x_cur_.size();
    const S t = this->t_cur_;
    const S t_new = t + h;
    const S* x = this->x_cur_.data();
    if (!jacobian_ready_) {
      differentiate(h);
      jacobian_ready_ = true;
    }
    // M = I / (gamma h) - J, factored.
    if (!iteration_.factor(S(1) / (gamma_ * h), S(1))) return {StepStatus::kRejected, h * S(StepSizeController::kMaxShrink)};

    State<S>& g1 = g_[0];
    State<S>& g2 = g_[1];
    State<S>& g3 = g_[2];
    State<S>& g4 = g_[3];
    State<S>& g5 = g_[4];
    State<S>& g6 = g_[5];
    const S* f0 = this->f_cur_.data();
    const S* ft = dfdt_.data();
    // M g1 = f(t0, x0) + h d1 f_t
    for (std::size_t i = 0; i < n; ++i) g1[i] = f0[i] + h * d1_ * ft[i];
    iteration_.solve(g1.data());
    // M g2 = f(t0 + c2 h, x0 + a21 g1) + h d2 f_t + c21 g1 / h
    for (std::size_t i = 0; i < n; ++i) x_stage_[i] = x[i] + a21_ * g1[i];
    this->rhs_(t + c2_ * h, x_stage_.data(), f_stage_.data());
    for (std::size_t i = 0; i < n; ++i) g2[i] = f_stage_[i] + h * d2_ * ft[i] + c21_ * g1[i] / h;
    iteration_.solve(g2.data());
    // M g3 = f(t0 + c3 h, x0 + a31 g1 + a32 g2) + h d3 f_t + (c31 g1 + c32 g2) / h
    for (std::size_t i = 0; i < n; ++i) x_stage_[i] = x[i] + a31_ * g1[i] + a32_ * g2[i];
    this->rhs_(t + c3_ * h, x_stage_.data(), f_stage_.data());
    for (std::size_t i = 0; i < n; ++i) g3[i] = f_stage_[i] + h * d3_ * ft[i] + (c31_ * g1[i] + c32_ * g2[i]) / h;
    iteration_.solve(g3.data());
    // M g4 = f(t0 + c4 h, x0 + a41 g1 + a42 g2 + a43 g3) + h d4 f_t + (c41 g1 + c42 g2 + c43 g3) / h
    for (std::size_t i = 0; i < n; ++i) x_stage_[i] = x[i] + a41_ * g1[i] + a42_ * g2[i] + a43_ * g3[i];
    this->rhs_(t + c4_ * h, x_stage_.data(), f_stage_.data());
    for (std::size_t i = 0; i < n; ++i) {
      g4[i] = f_stage_[i] + h * d4_ * ft[i] + (c41_ * g1[i] + c42_ * g2[i] + c43_ * g3[i]) / h;
    }
    iteration_.solve(g4.data());
    // x^ = x0 + a51 g1 + ... + a54 g4;  M g5 = f(t0 + h, x^) + (c51 g1 + ... + c54 g4) / h
    for (std::size_t i = 0; i < n; ++i) x_stage_[i] = x[i] + a51_ * g1[i] + a52_ * g2[i] + a53_ * g3[i] + a54_ * g4[i];
    this->rhs_(t_new, x_stage_.data(), f_stage_.data());
    for (std::size_t i = 0; i < n; ++i) {
      g5[i] = f_stage_[i] + (c51_ * g1[i] + c52_ * g2[i] + c53_ * g3[i] + c54_ * g4[i]) / h;
    }
    iteration_.solve(g5.data());
    // x^ += g5 (order 3);  M g6 = f(t0 + h, x^) + (c61 g1 + ... + c65 g5) / h
    for (std::size_t i = 0; i < n; ++i) x_stage_[i] += g5[i];
    this->rhs_(t_new, x_stage_.data(), f_stage_.data());
    for (std::size_t i = 0; i < n; ++i) {
      g6[i] = f_stage_[i] + (c61_ * g1[i] + c62_ * g2[i] + c63_ * g3[i] + c64_ * g4[i] + c65_ * g5[i]) / h;
    }
    iteration_.solve(g6.data());

    const S err = error_ratio(tolerances_, g6.data(), x, f0, h, n);
    const S h_next = controller_.next_step(h, err);
    if (!controller_.accepts(err)) return {StepStatus::kRejected, h_next};

    // x1 = x^ + g6; its slope; the dense output's two vectors, before the next attempt
    // overwrites the g_j.
    for (std::size_t i = 0; i < n; ++i) this->x_try_[i] = x_stage_[i] + g6[i];
    this->rhs_(t_new, this->x_try_.data(), this->f_try_.data());
    for (std::size_t i = 0; i < n; ++i) {
      cont3_[i] = d21_ * g1[i] + d22_ * g2[i] + d23_ * g3[i] + d24_ * g4[i] + d25_ * g5[i];
      cont4_[i] = d31_ * g1[i] + d32_ * g2[i] + d33_ * g3[i] + d34_ * g4[i] + d35_ * g5[i];
    }
    this->accept(t_new);
    jacobian_ready_ = false;
    return {StepStatus::kAccepted, h_next};
  }

  void use_jacobian_pattern(std::shared_ptr<const JacobianPattern> pattern, LinearSolver choice) override {
    iteration_.use_pattern(std::move(pattern), choice);
  }

  int dense_degree() const override { return 4; }

  void interpolate(S t, S* x) const override {
    if (this->copy_end_point(t, x)) return;
    const S s = (t - this->t_prev_) / (this->t_cur_ - this->t_prev_);
    const S s1 = S(1) - s;
    for (std::size_t i = 0; i < this->x_cur_.size(); ++i) {
      x[i] = this->x_prev_[i] * s1 + s * (this->x_cur_[i] + s1 * (cont3_[i] + s * cont4_[i]));
    }
  }

 protected:
  void on_restart() override { jacobian_ready_ = false; }

 private:
  // J = df/dx and f_t = df/dt at the current point by forward differences (g + 1 evaluations),
  // for a step of size h.
  void differentiate(S h) {
    using std::abs;
    using std::max;
    using std::sqrt;
    const std::size_t n = this->x_cur_.size();
    const S t = this->t_cur_;
    const S* f0 = this->f_cur_.data();
    const S eps = machine_epsilon<S>();
    const S floor = S(kTimeIncrementFloor);
    // J; x_stage_ holds x afterwards
    iteration_.differentiate(this->rhs_, t, this->x_cur_.data(), f0, tolerances_, h, x_stage_.data(), f_stage_.data());
    const S t_plus = t + sqrt(eps * max(floor, abs(t)));
    const S delta_t = t_plus - t;
    this->rhs_(t_plus, x_stage_.data(), f_stage_.data());
    for (std::size_t i = 0; i < n; ++i) dfdt_[i] = (f_stage_[i] - f0[i]) / delta_t;
  }

  StepperTolerances<S> tolerances_;
  StepSizeController controller_{kErrorEstimateOrder};
  bool jacobian_ready_ = false;  // jac_ and dfdt_ belong to the current point
  IterationMatrix<S> iteration_;  // J and M
  State<S> dfdt_;
  State<S> g_[6];
  State<S> x_stage_, f_stage_;
  State<S> cont3_, cont4_;  // of the last accepted step

  const S gamma_ = coefficient<S>(kGamma);
  const S d1_ = coefficient<S>(kD1), d2_ = coefficient<S>(kD2), d3_ = coefficient<S>(kD3), d4_ = coefficient<S>(kD4);
  const S c2_ = coefficient<S>(kC2), c3_ = coefficient<S>(kC3), c4_ = coefficient<S>(kC4);
  const S c21_ = coefficient<S>(kC21), a21_ = coefficient<S>(kA21);
  const S c31_ = coefficient<S>(kC31), c32_ = coefficient<S>(kC32);
  const S a31_ = coefficient<S>(kA31), a32_ = coefficient<S>(kA32);
  const S c41_ = coefficient<S>(kC41), c42_ = coefficient<S>(kC42), c43_ = coefficient<S>(kC43);
  const S a41_ = coefficient<S>(kA41), a42_ = coefficient<S>(kA42), a43_ = coefficient<S>(kA43);
  const S c51_ = coefficient<S>(kC51), c52_ = coefficient<S>(kC52), c53_ = coefficient<S>(kC53),
          c54_ = coefficient<S>(kC54);
  const S a51_ = coefficient<S>(kA51), a52_ = coefficient<S>(kA52), a53_ = coefficient<S>(kA53),
          a54_ = coefficient<S>(kA54);
  const S c61_ = coefficient<S>(kC61), c62_ = coefficient<S>(kC62), c63_ = coefficient<S>(kC63),
          c64_ = coefficient<S>(kC64), c65_ = coefficient<S>(kC65);
  const S d21_ = coefficient<S>(kD21), d22_ = coefficient<S>(kD22), d23_ = coefficient<S>(kD23),
          d24_ = coefficient<S>(kD24), d25_ = coefficient<S>(kD25);
  const S d31_ = coefficient<S>(kD31), d32_ = coefficient<S>(kD32), d33_ = coefficient<S>(kD33),
          d34_ = coefficient<S>(kD34), d35_ = coefficient<S>(kD35);
};

}  // namespace

template <class S>
std::unique_ptr<Stepper<S>> make_rosenbrock4(std::size_t n, const StepperTolerances<S>& tolerances) {
  if (machine_epsilon<S>() < S(std::numeric_limits<double>::epsilon()) && tolerances.rtol < S(kFinestRtol)) {
    throw InvalidArgument("solver rosenbrock4 cannot meet rtol = " + format_scalar(tolerances.rtol, 3) + " in " +
                          std::string(scalar_name(scalar_kind_of<S>())) +
                          ": its coefficients (Hairer & Wanner's RODAS) have 16 digits, so it converges only "
                          "to about 1e-15; use rtol >= " +
                          format_scalar(kFinestRtol, 3) + " or an explicit solver");
  }
  return std::make_unique<Rosenbrock4Stepper<S>>(n, tolerances);
}

#define HYSIM_INSTANTIATE(S) \
  template std::unique_ptr<Stepper<S>> make_rosenbrock4<S>(std::size_t, const StepperTolerances<S>&);
HYSIM_FOR_EACH_SCALAR(HYSIM_INSTANTIATE)
#undef HYSIM_INSTANTIATE

}  // namespace hysim::solvers
