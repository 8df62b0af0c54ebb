// Properties of particular solvers that the typed suite of stepper_test.cpp does not cover:
// bs3 on quadratics (the PWM servo's solutions within a mode), rosenbrock4 on a stiff field,
// its Jacobian's cost and reuse, its non-autonomous stages, and its precision guard; and the
// catalog as a whole.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <string>
#include <type_traits>

#include "hysim/core/errors.hpp"
#include "hysim/core/scalar.hpp"
#include "hysim/solvers/stepper.hpp"

namespace hysim {
namespace {

// A counted field of any dimension.
template <class S>
struct Field {
  std::function<void(S, const S*, S*)> f;
  std::int64_t evals = 0;
  Rhs<S> rhs() { return Rhs<S>{&f, &evals}; }
};

template <class S>
class ScalarTypes : public ::testing::Test {};
using Scalars = ::testing::Types<double, long double, float128>;
TYPED_TEST_SUITE(ScalarTypes, Scalars);

// 64 units of rounding relative to max(|scale|, 1).
template <class S>
S rounding(S scale) {
  using std::abs;
  return S(64) * machine_epsilon<S>() * std::max<S>(abs(scale), S(1));
}

// x'' = a (x' = v, v' = a) has the quadratic x = x0 + v0 t + a t^2 / 2: bs3's 3rd- and
// 2nd-order solutions are both exact for it, so its error estimate is 0 up to rounding and
// every step is accepted with the controller's largest growth, 5 h, while the end points and
// the dense output stay exact. With x0 = 0, v0 = 1, a = -2 and h = 0.3, 1.5, 7.5 from t = 0:
// x(t) = t - t^2, v(t) = 1 - 2t.
TYPED_TEST(ScalarTypes, Bs3IsExactOnQuadraticsAndGrowsItsStepFivefold) {
  using S = TypeParam;
  auto stepper = make_stepper<S>("bs3", 2, StepperTolerances<S>{});  // rtol 1e-6, atol 1e-9
  Field<S> field{[](S, const S* x, S* dxdt) {
    dxdt[0] = x[1];
    dxdt[1] = S(-2);
  }};
  const S x0[2] = {S(0), S(1)};
  stepper->restart(field.rhs(), S(0), x0, nullptr);
  auto exact = [](S t, S* x) {
    x[0] = t - t * t;
    x[1] = S(1) - S(2) * t;
  };
  S h = S(3) / S(10);
  for (int k = 0; k < 3; ++k) {
    const StepOutcome<S> outcome = stepper->try_step(h);
    ASSERT_EQ(outcome.status, StepStatus::kAccepted) << "step " << k;
    EXPECT_TRUE(outcome.h_next == S(5) * h) << "step " << k << ": h_next / h = " << to_double(outcome.h_next / h);
    S x[2], x_exact[2];
    exact(stepper->t_current(), x_exact);
    for (int i = 0; i < 2; ++i) {
      using std::abs;
      EXPECT_TRUE(abs(stepper->x_current()[i] - x_exact[i]) <= rounding(x_exact[i] * S(8)))
          << "step " << k << ", x[" << i << "] = " << to_double(stepper->x_current()[i]);
    }
    for (int j = 1; j <= 7; ++j) {
      const S t = stepper->t_previous() + h * S(j) / S(8);
      stepper->interpolate(t, x);
      exact(t, x_exact);
      for (int i = 0; i < 2; ++i) {
        using std::abs;
        EXPECT_TRUE(abs(x[i] - x_exact[i]) <= rounding(x_exact[i] * S(8)))
            << "t = " << to_double(t) << ", x[" << i << "] = " << to_double(x[i]);
      }
    }
    EXPECT_EQ(field.evals, 1 + 3 * (k + 1));  // FSAL: 3 per step
    h = outcome.h_next;
  }
}

// The fivefold growth above comes from exactness, not from a controller that always grows:
// on x''' = 6 from rest (x = t^3, x' = 3t^2, x'' = 6t) bs3's 3rd-order solution is still
// exact, but its 2nd-order companion is not. With the stages of one step of h from 0 (slopes
// of x: 0, 0, 9h^2/4, 3h^2; of x': 0, 3h, 9h/2, 6h; of x'': 6, 6, 6, 6), the estimate
// h (-5/72 k1 + 1/12 k2 + 1/9 k3 - 1/8 k4) is -h^3/8 for x and 0 for x' and x''. At rest the
// scale of x is atol, so with atol = 1e-6 and h = 1/100, err = 1e-6 / 8 / 1e-6 = 1/8 and the
// controller proposes 0.9 (1/8)^(-1/3) h = 1.8 h.
TYPED_TEST(ScalarTypes, Bs3ErrorEstimateSeesTheCubicTerm) {
  using S = TypeParam;
  auto stepper = make_stepper<S>("bs3", 3, StepperTolerances<S>{S(1e-6), S(1e-6)});
  Field<S> field{[](S, const S* x, S* dxdt) {
    dxdt[0] = x[1];
    dxdt[1] = x[2];
    dxdt[2] = S(6);
  }};
  const S x0[3] = {S(0), S(0), S(0)};
  stepper->restart(field.rhs(), S(0), x0, nullptr);
  const S h = S(1) / S(100);
  const StepOutcome<S> outcome = stepper->try_step(h);
  ASSERT_EQ(outcome.status, StepStatus::kAccepted);
  using std::abs;
  EXPECT_TRUE(abs(stepper->x_current()[0] - h * h * h) <= rounding(S(1)) * h * h * h);
  EXPECT_NEAR(to_double(outcome.h_next / h), 1.8, 1e-9);
}

// A stiff field, x' = -lambda (x - cos t) with lambda = 1e4, x(0) = 1: the solution is
// x = (lambda^2 cos t + lambda sin t) / (lambda^2 + 1) + e^(-lambda t) / (lambda^2 + 1).
// rosenbrock4 (L-stable) follows it over [0, 1] at rtol 1e-6 in a few dozen steps, to the
// tolerance; dopri5, whose stability region bounds h lambda by about 3.3, needs thousands.
template <class S>
struct StiffRun {
  std::int64_t steps = 0;
  S error = S(0);
};

template <class S>
StiffRun<S> run_stiff(const char* solver) {
  const S lambda = S(1e4);
  Field<S> field{[lambda](S t, const S* x, S* dxdt) {
    using std::cos;
    dxdt[0] = -lambda * (x[0] - cos(t));
  }};
  auto stepper = make_stepper<S>(solver, 1, StepperTolerances<S>{S(1e-6), S(1e-9)});
  const S x0 = S(1);
  stepper->restart(field.rhs(), S(0), &x0, nullptr);
  StiffRun<S> run;
  S h = S(1e-6);
  while (stepper->t_current() < S(1) && run.steps < 100000) {
    const StepOutcome<S> outcome = stepper->try_step(std::min(h, S(1) - stepper->t_current()));
    if (outcome.status == StepStatus::kAccepted) ++run.steps;
    h = outcome.h_next;
  }
  using std::abs;
  using std::cos;
  using std::exp;
  using std::sin;
  const S l2 = lambda * lambda;
  const S exact = (l2 * cos(S(1)) + lambda * sin(S(1))) / (l2 + S(1)) + exp(-lambda) / (l2 + S(1));
  run.error = abs(stepper->x_current()[0] - exact);
  return run;
}

TYPED_TEST(ScalarTypes, Rosenbrock4FollowsAStiffFieldWithFewSteps) {
  using S = TypeParam;
  const StiffRun<S> rosenbrock = run_stiff<S>("rosenbrock4");
  const StiffRun<S> dopri = run_stiff<S>("dopri5");
  std::printf("[ measured ] stiff lambda = 1e4 over [0, 1]: rosenbrock4 %lld steps, error %.2e; dopri5 %lld steps\n",
              static_cast<long long>(rosenbrock.steps), to_double(rosenbrock.error),
              static_cast<long long>(dopri.steps));
  EXPECT_LT(rosenbrock.steps, 100);
  EXPECT_LT(to_double(rosenbrock.error), 1e-6);
  EXPECT_GT(dopri.steps, 2000);
}

// The Jacobian costs n evaluations and f_t one, once per point: on a 2-component field a step
// accepted at once costs 2 + 1 + 5 + 1 = 9; a rejected attempt costs its 5 stages (J and f_t
// are reused for the retry from the same point), and the next point computes them afresh.
TYPED_TEST(ScalarTypes, Rosenbrock4ComputesTheJacobianOncePerPoint) {
  using S = TypeParam;
  auto stepper = make_stepper<S>("rosenbrock4", 2, StepperTolerances<S>{S(1e-6), S(1e-9)});
  Field<S> field{[](S, const S* x, S* dxdt) {
    dxdt[0] = x[1];
    dxdt[1] = -S(400) * x[0];  // omega = 20
  }};
  const S x0[2] = {S(1), S(0)};
  stepper->restart(field.rhs(), S(0), x0, nullptr);
  EXPECT_EQ(field.evals, 1);
  ASSERT_EQ(stepper->try_step(S(1e-3)).status, StepStatus::kAccepted);
  EXPECT_EQ(field.evals, 1 + 9);
  ASSERT_EQ(stepper->try_step(S(1)).status, StepStatus::kRejected);
  EXPECT_EQ(field.evals, 1 + 9 + 3 + 5);
  ASSERT_EQ(stepper->try_step(S(1)).status, StepStatus::kRejected);
  EXPECT_EQ(field.evals, 1 + 9 + 3 + 5 + 5);
  ASSERT_EQ(stepper->try_step(S(1e-3)).status, StepStatus::kAccepted);
  EXPECT_EQ(field.evals, 1 + 9 + 3 + 5 + 5 + 5 + 1);
  // x = cos(20 t) to the tolerance at t = 2e-3.
  using std::abs;
  using std::cos;
  EXPECT_LT(to_double(abs(stepper->x_current()[0] - cos(S(20) * S(2e-3)))), 1e-8);
}

// The df/dt terms: one step of h = 2 from t = 1 on x' = 2t must give x(3) = 9. With rodas.f's
// d4 = -0.0362 it does (to the 16 digits of the coefficients; the forward difference of a
// linear f_t is exact); Boost.Odeint's default_rosenbrock_coefficients has d4 = +0.0362, with
// which the same step gives 9.2730 (exact rational arithmetic on its coefficients).
TYPED_TEST(ScalarTypes, Rosenbrock4IntegratesTimeDependentFieldsWithRodasD4) {
  using S = TypeParam;
  auto stepper = make_stepper<S>("rosenbrock4", 1, StepperTolerances<S>{S(1e6), S(1e6)});
  Field<S> field{[](S t, const S*, S* dxdt) { dxdt[0] = S(2) * t; }};
  const S x0 = S(1);
  stepper->restart(field.rhs(), S(1), &x0, nullptr);
  ASSERT_EQ(stepper->try_step(S(2)).status, StepStatus::kAccepted);
  EXPECT_NEAR(to_double(stepper->x_current()[0]), 9.0, 1e-13);
}

// In long double and float128 rosenbrock4 refuses a tolerance below 1e-14, which its 16-digit
// coefficients cannot meet, naming the type and the limit; 1e-14 itself, and any rtol in
// double (where the coefficients are exact to the type's precision), are accepted.
TYPED_TEST(ScalarTypes, Rosenbrock4RefusesTolerancesItsCoefficientsCannotMeet) {
  using S = TypeParam;
  EXPECT_NO_THROW((void)make_stepper<S>("rosenbrock4", 1, StepperTolerances<S>{S(1e-14), S(1e-20)}));
  if constexpr (std::is_same_v<S, double>) {
    EXPECT_NO_THROW((void)make_stepper<S>("rosenbrock4", 1, StepperTolerances<S>{S(1e-16), S(1e-20)}));
  } else {
    try {
      (void)make_stepper<S>("rosenbrock4", 1, StepperTolerances<S>{S(1e-20), S(1e-20)});
      FAIL() << "rosenbrock4 accepted rtol = 1e-20";
    } catch (const InvalidArgument& e) {
      const std::string message = e.what();
      EXPECT_NE(message.find("rosenbrock4"), std::string::npos) << message;
      EXPECT_NE(message.find(std::string(scalar_name(scalar_kind_of<S>()))), std::string::npos) << message;
      EXPECT_NE(message.find("1e-14"), std::string::npos) << message;
    }
  }
}

// Every solver of the catalog can be made in every scalar type, under its own name, adaptive
// as the catalog says.
TYPED_TEST(ScalarTypes, EveryCatalogSolverCanBeMade) {
  using S = TypeParam;
  ASSERT_EQ(solver_catalog().size(), 9u);
  for (const SolverInfo& info : solver_catalog()) {
    auto stepper = make_stepper<S>(info.name, 3, StepperTolerances<S>{});
    EXPECT_EQ(stepper->name(), info.name);
    EXPECT_EQ(stepper->is_adaptive(), info.adaptive) << info.name;
  }
}

}  // namespace
}  // namespace hysim
