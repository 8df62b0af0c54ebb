// The stiff multistep solver ndf (solvers/ndf.cpp), in every scalar type: its backward-difference
// algebra (solvers/backward_differences.hpp) against differences taken directly; against closed forms
// on a stiff field (Prothero & Robinson's x' = -lambda (x - g(t)) + g'(t)), exactness where the
// formulas are exact (a solution linear in t), its dense output, the step it asks for after a
// restart (from x'' = J f, by its definition), a restart that forgets everything, the cost per
// step of a kept Jacobian, and a field that turns NaN. The suite of the one-step methods
// (stepper_test.cpp) does not fit a variable-order multistep method: its order depends on the
// history, not on the step.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <limits>
#include <vector>

#include "hysim/core/scalar.hpp"
#include "hysim/solvers/backward_differences.hpp"
#include "hysim/solvers/stepper.hpp"

namespace hysim {
namespace {

template <class S>
struct CountedField {
  std::function<void(S, const S*, S*)> f;
  std::int64_t evals = 0;
  Rhs<S> rhs() { return Rhs<S>{&f, &evals}; }
};

template <class S>
class Ndf : public ::testing::Test {};
using Scalars = ::testing::Types<double, long double, float128>;
TYPED_TEST_SUITE(Ndf, Scalars);

// Prothero & Robinson: x' = -lambda (x - sin t) + cos t, x(0) = 1, solution
// x = sin t + e^(-lambda t): a transient of time constant 1 / lambda, then the slow sin t.
template <class S>
struct ProtheroRobinson {
  S lambda = S(1e4);
  CountedField<S> field{[this](S t, const S* x, S* dxdt) {
    using std::cos;
    using std::sin;
    dxdt[0] = -lambda * (x[0] - sin(t)) + cos(t);
  }};
  S exact(S t) const {
    using std::exp;
    using std::sin;
    return sin(t) + exp(-lambda * t);
  }
};

template <class S>
struct Run {
  std::int64_t accepted = 0, rejected = 0, evals = 0;
  S max_error = S(0);       // at the step ends
  S t_max_error = S(0);     // where
  S max_dense_error = S(0);  // at the midpoints of the steps
};

// Adaptive steps over [0, t_end] with the solver's own proposals (and its preferred step).
template <class S>
Run<S> run_prothero_robinson(S rtol, S t_end) {
  ProtheroRobinson<S> problem;
  auto stepper = make_stepper<S>("ndf", 1, StepperTolerances<S>{rtol, rtol * S(1e-3)});
  const S x0 = S(1);
  stepper->restart(problem.field.rhs(), S(0), &x0, nullptr);
  Run<S> run;
  S h = S(1);
  using std::abs;
  while (stepper->t_current() < t_end && run.accepted + run.rejected < 100000) {
    h = std::min(stepper->preferred_step(h), t_end - stepper->t_current());
    const StepOutcome<S> outcome = stepper->try_step(h);
    h = outcome.h_next;
    if (outcome.status == StepStatus::kRejected) {
      ++run.rejected;
      continue;
    }
    ++run.accepted;
    const S t = stepper->t_current();
    if (abs(stepper->x_current()[0] - problem.exact(t)) > run.max_error) {
      run.max_error = abs(stepper->x_current()[0] - problem.exact(t));
      run.t_max_error = t;
    }
    const S t_mid = (stepper->t_previous() + t) / S(2);
    S x_mid = S(0);
    stepper->interpolate(t_mid, &x_mid);
    run.max_dense_error = std::max(run.max_dense_error, abs(x_mid - problem.exact(t_mid)));
  }
  run.evals = problem.field.evals;
  return run;
}

// The backward differences of p at t_n = 0.7 with spacing h, taken directly from the values
// p(t_n - i h), i = 0 .. k (nabla^j x_n = sum_i (-1)^i C(j, i) x_(n-i)).
template <class S>
std::vector<std::vector<S>> differences_of(S (*p)(S), S h, std::size_t k) {
  std::vector<std::vector<S>> D(k + 1, std::vector<S>(1));
  std::vector<S> x(k + 1);
  for (std::size_t i = 0; i <= k; ++i) x[i] = p(S(0.7) - S(static_cast<double>(i)) * h);
  for (std::size_t j = 0; j <= k; ++j) {
    S sum = S(0), binomial = S(1);
    for (std::size_t i = 0; i <= j; ++i) {
      sum += (i % 2 == 0 ? binomial : -binomial) * x[i];
      binomial = binomial * S(static_cast<double>(j - i)) / S(static_cast<double>(i + 1));
    }
    D[j][0] = sum;
  }
  return D;
}

template <class S>
S quartic(S t) {
  return S(1) - S(2) * t + S(3) * t * t - S(0.5) * t * t * t + S(0.25) * t * t * t * t;
}

// Rescaling the differences of a quartic (degree 4 = k) from spacing h to rho h gives its
// differences at rho h, for shrinking and growing rho; to rounding (the differences are
// O(h^j) and the values O(1): measured against the values' scale).
TYPED_TEST(Ndf, RescaledDifferencesAreThoseAtTheNewSpacing) {
  using S = TypeParam;
  const std::size_t k = 4;
  const S h = S(0.05);
  for (const double rho : {0.25, 0.5, 1.0, 2.0, 3.7}) {
    std::vector<std::vector<S>> D = differences_of<S>(&quartic<S>, h, k);
    solvers::rescale_backward_differences(D.data(), k, S(rho), 1);
    const std::vector<std::vector<S>> expected = differences_of<S>(&quartic<S>, S(rho) * h, k);
    for (std::size_t j = 0; j <= k; ++j) {
      using std::abs;
      EXPECT_LE(to_double(abs(D[j][0] - expected[j][0])), 1e3 * to_double(machine_epsilon<S>()))
          << "rho " << rho << ", difference " << j;
    }
  }
}

// The Newton backward interpolant of k + 1 values of a polynomial of degree k is the polynomial:
// the quartic at s = -3.5 .. 0.5 (inside and beyond the points) from its differences at h.
TYPED_TEST(Ndf, BackwardInterpolantReproducesAPolynomialOfItsDegree) {
  using S = TypeParam;
  const std::size_t k = 4;
  const S h = S(0.05);
  const std::vector<std::vector<S>> D = differences_of<S>(&quartic<S>, h, k);
  for (int i = -7; i <= 1; ++i) {
    const S s = S(i) / S(2);
    S x = S(0);
    solvers::backward_interpolate(D.data(), k, s, 1, &x);
    using std::abs;
    EXPECT_LE(to_double(abs(x - quartic<S>(S(0.7) + s * h))), 1e3 * to_double(machine_epsilon<S>())) << "s = " << i / 2.0;
  }
}

// The global error follows the tolerance over [0, 10] (through the transient and 1.6 periods of
// sin t), at every rtol from 1e-4 to 1e-10 (and 1e-14 in long double and float128), with fewer
// than 1.5 evaluations per step and fewer than 5,000 steps (an explicit method needs
// h lambda < 3.3: 12,000 steps or more). The largest error is in the transient, at t ~ 1/lambda,
// where the local errors of its steps add up undamped: measured 0.8, 2.1, 2.7 and 3.0 rtol
// from 1e-4 to 1e-10 (130 to 950 steps), 24 rtol at 1e-14 (4,200 steps); bound 50 rtol.
TYPED_TEST(Ndf, FollowsAStiffFieldToItsTolerance) {
  using S = TypeParam;
  std::vector<S> rtols = {S(1e-4), S(1e-6), S(1e-8), S(1e-10)};
  if (machine_epsilon<S>() < S(1e-18)) rtols.push_back(S(1e-14));
  for (const S& rtol : rtols) {
    const Run<S> run = run_prothero_robinson<S>(rtol, S(10));
    std::printf("[ measured ] ndf on Prothero-Robinson, rtol %.0e: %lld steps, %lld rejected, %lld evaluations, "
                "max error %.2e at step ends (t = %.3g), %.2e at midpoints\n",
                to_double(rtol), static_cast<long long>(run.accepted), static_cast<long long>(run.rejected),
                static_cast<long long>(run.evals), to_double(run.max_error), to_double(run.t_max_error),
                to_double(run.max_dense_error));
    EXPECT_LT(to_double(run.max_error), 50 * to_double(rtol));
    EXPECT_LT(to_double(run.max_dense_error), 50 * to_double(rtol));
    EXPECT_LT(static_cast<double>(run.evals), 1.5 * static_cast<double>(run.accepted) + 20);
    EXPECT_LT(run.accepted, 5000);
  }
}

// Tighter tolerances give smaller errors: from rtol 1e-5 to 1e-9 the error falls by more than
// 1000 (a method that ignored its error estimate, or kept its order 1, would not).
TYPED_TEST(Ndf, ErrorFallsWithTheTolerance) {
  using S = TypeParam;
  const Run<S> loose = run_prothero_robinson<S>(S(1e-5), S(10));
  const Run<S> tight = run_prothero_robinson<S>(S(1e-9), S(10));
  EXPECT_LT(to_double(tight.max_error), to_double(loose.max_error) / 1000);
  EXPECT_GT(tight.accepted, loose.accepted);
}

// Every formula of order k >= 1 is exact on a solution linear in t (the predictor is exact, so
// NDF's kappa term vanishes and the BDF part differentiates a line exactly): on the stiff
// x' = -50 (x - (1 + 2t)) + 2 with x(0) = 1, x = 1 + 2t at every step end and in the dense
// output, to rounding, whatever the steps; the error estimate is rounding, so the steps grow
// by 10 every few steps.
TYPED_TEST(Ndf, ExactOnASolutionLinearInTime) {
  using S = TypeParam;
  CountedField<S> field{[](S t, const S* x, S* dxdt) { dxdt[0] = -S(50) * (x[0] - (S(1) + S(2) * t)) + S(2); }};
  auto stepper = make_stepper<S>("ndf", 1, StepperTolerances<S>{S(1e-8), S(1e-12)});
  const S x0 = S(1);
  stepper->restart(field.rhs(), S(0), &x0, nullptr);
  S h = S(1e-3);
  int accepted = 0;
  using std::abs;
  while (stepper->t_current() < S(100) && accepted < 1000) {
    const StepOutcome<S> outcome = stepper->try_step(std::min(h, S(100) - stepper->t_current()));
    ASSERT_EQ(outcome.status, StepStatus::kAccepted) << "at t = " << to_double(stepper->t_current());
    ++accepted;
    h = outcome.h_next;
    const S t = stepper->t_current();
    const S scale = S(1) + S(2) * t;
    EXPECT_LE(to_double(abs(stepper->x_current()[0] - scale)), 1e3 * to_double(machine_epsilon<S>() * scale));
    const S t_mid = stepper->t_previous() + (t - stepper->t_previous()) / S(3);
    S x_mid = S(0);
    stepper->interpolate(t_mid, &x_mid);
    EXPECT_LE(to_double(abs(x_mid - (S(1) + S(2) * t_mid))), 1e3 * to_double(machine_epsilon<S>() * scale));
  }
  EXPECT_EQ(stepper->t_current(), S(100));
  EXPECT_LT(accepted, 60);
}

// After a restart the solver asks for the step its order 1 can take: with x'' = J f at the
// restart point, E_1 h^2 |x''| = 1/4 in the error norm, E_1 = kappa_1 + 1/2 = 0.315 (the error
// constant of NDF1). On x' = y, y' = -w^2 x from (1, 0): f = (0, -w^2), x'' = (-w^2, 0), and the
// norm's weight of the first component is atol + rtol. After the first accepted step it asks
// for nothing more than it was given.
TYPED_TEST(Ndf, AsksForTheStepOfItsStartingOrder) {
  using S = TypeParam;
  const S w2 = S(400);
  CountedField<S> field{[w2](S, const S* x, S* dxdt) {
    dxdt[0] = x[1];
    dxdt[1] = -w2 * x[0];
  }};
  const S rtol = S(1e-6), atol = S(1e-9);
  auto stepper = make_stepper<S>("ndf", 2, StepperTolerances<S>{rtol, atol});
  const S x0[2] = {S(1), S(0)};
  stepper->restart(field.rhs(), S(0), x0, nullptr);
  EXPECT_EQ(field.evals, 1 + 2);  // f(x0) and the two columns of J
  using std::sqrt;
  const S expected = sqrt(S(0.25) / ((S(-0.1850) + S(0.5)) * w2 / (atol + rtol)));
  const S preferred = stepper->preferred_step(S(1));
  EXPECT_NEAR(to_double(preferred / expected), 1.0, 1e-6);
  EXPECT_EQ(stepper->preferred_step(preferred / S(2)), preferred / S(2));
  ASSERT_EQ(stepper->try_step(preferred).status, StepStatus::kAccepted);
  EXPECT_EQ(stepper->preferred_step(S(1)), S(1));
}

// A restart forgets the history, the order and the Jacobian: the same run twice from the same
// stepper gives the same states bit for bit and the same number of evaluations.
TYPED_TEST(Ndf, RestartForgetsEverything) {
  using S = TypeParam;
  ProtheroRobinson<S> problem;
  auto stepper = make_stepper<S>("ndf", 1, StepperTolerances<S>{S(1e-8), S(1e-11)});
  std::vector<S> states[2];
  std::int64_t evals[2] = {0, 0};
  for (int pass = 0; pass < 2; ++pass) {
    const std::int64_t before = problem.field.evals;
    const S x0 = S(1);
    stepper->restart(problem.field.rhs(), S(0), &x0, nullptr);
    S h = S(1);
    for (int attempts = 0; stepper->t_current() < S(2) && attempts < 100000; ++attempts) {
      h = std::min(stepper->preferred_step(h), S(2) - stepper->t_current());
      const StepOutcome<S> outcome = stepper->try_step(h);
      h = outcome.h_next;
      if (outcome.status == StepStatus::kAccepted) states[pass].push_back(stepper->x_current()[0]);
    }
    EXPECT_EQ(stepper->t_current(), S(2));
    evals[pass] = problem.field.evals - before;
  }
  EXPECT_EQ(states[0], states[1]);
  EXPECT_EQ(evals[0], evals[1]);
}

// The kept Jacobian: on a linear field (J constant, so the simplified Newton iteration is exact
// after one iteration), 300 steps of the damped oscillator x'' = -100 x - 2 x' at rtol 1e-8
// cost fewer than 1.3 evaluations per step, J included; and the solution matches the closed form.
TYPED_TEST(Ndf, KeepsItsJacobianOnALinearField) {
  using S = TypeParam;
  CountedField<S> field{[](S, const S* x, S* dxdt) {
    dxdt[0] = x[1];
    dxdt[1] = -S(100) * x[0] - S(2) * x[1];
  }};
  auto stepper = make_stepper<S>("ndf", 2, StepperTolerances<S>{S(1e-8), S(1e-11)});
  const S x0[2] = {S(1), S(0)};
  stepper->restart(field.rhs(), S(0), x0, nullptr);
  S h = S(1);
  std::int64_t accepted = 0;
  for (int attempts = 0; stepper->t_current() < S(3) && attempts < 100000; ++attempts) {
    h = std::min(stepper->preferred_step(h), S(3) - stepper->t_current());
    const StepOutcome<S> outcome = stepper->try_step(h);
    h = outcome.h_next;
    if (outcome.status == StepStatus::kAccepted) ++accepted;
  }
  // x = e^(-t) (cos(w t) + sin(w t) / w), w = sqrt(99).
  using std::abs;
  using std::cos;
  using std::exp;
  using std::sin;
  using std::sqrt;
  const S w = sqrt(S(99));
  const S exact = exp(-S(3)) * (cos(w * S(3)) + sin(w * S(3)) / w);
  std::printf("[ measured ] ndf on a damped oscillator: %lld steps, %lld evaluations, error %.2e\n",
              static_cast<long long>(accepted), static_cast<long long>(field.evals),
              to_double(abs(stepper->x_current()[0] - exact)));
  EXPECT_GT(accepted, 100);
  EXPECT_LT(static_cast<double>(field.evals), 1.3 * static_cast<double>(accepted));
  EXPECT_LT(to_double(abs(stepper->x_current()[0] - exact)), 1e-6);
}

// A field that is NaN beyond t = 0.5: a step across it is rejected and shrunk (the NaN
// Jacobian is not kept), and a step that ends before 0.5 is then accepted.
TYPED_TEST(Ndf, RejectsANonFiniteFieldAndRecovers) {
  using S = TypeParam;
  CountedField<S> field{[](S t, const S* x, S* dxdt) {
    dxdt[0] = t > S(0.5) ? std::numeric_limits<S>::quiet_NaN() : -x[0];
  }};
  auto stepper = make_stepper<S>("ndf", 1, StepperTolerances<S>{S(1e-6), S(1e-9)});
  const S x0 = S(1);
  stepper->restart(field.rhs(), S(0), &x0, nullptr);
  ASSERT_EQ(stepper->try_step(S(1e-3)).status, StepStatus::kAccepted);
  const StepOutcome<S> across = stepper->try_step(S(1));
  EXPECT_EQ(across.status, StepStatus::kRejected);
  EXPECT_LT(across.h_next, S(1));
  EXPECT_EQ(stepper->t_current(), S(1e-3));
  const StepOutcome<S> before = stepper->try_step(S(1e-3));
  EXPECT_EQ(before.status, StepStatus::kAccepted);
  using std::abs;
  using std::exp;
  EXPECT_LT(to_double(abs(stepper->x_current()[0] - exp(-S(2e-3)))), 1e-6);
}

// Robertson's chemical kinetics (H. H. Robertson, 1966; Hairer & Wanner II, Section IV.1), the
// classic nonlinear stiff test: rate constants 0.04, 3e7, 1e4, y(0) = (1, 0, 0), over [0, 40].
// The reference is rosenbrock4 in long double at rtol 1e-14 (a different method in higher
// precision; it agrees with the published y1(40) = 0.7158270687 to its 10 digits). ndf in double
// at rtol 1e-8 meets it to 1e-7 relative in every component, with fewer than 1,000 evaluations
// (its Jacobian is renewed as the solution moves; rosenbrock4 in double needs about 6,300).
template <class S>
std::vector<S> robertson_at_40(const char* solver, S rtol, S atol, std::int64_t* evals) {
  CountedField<S> field{[](S, const S* y, S* dy) {
    dy[0] = -S(0.04) * y[0] + S(1e4) * y[1] * y[2];
    dy[2] = S(3e7) * y[1] * y[1];
    dy[1] = -dy[0] - dy[2];
  }};
  auto stepper = make_stepper<S>(solver, 3, StepperTolerances<S>{rtol, atol});
  const S y0[3] = {S(1), S(0), S(0)};
  stepper->restart(field.rhs(), S(0), y0, nullptr);
  S h = S(1e-6);
  for (int attempts = 0; stepper->t_current() < S(40) && attempts < 1000000; ++attempts) {
    h = std::min(stepper->preferred_step(h), S(40) - stepper->t_current());
    h = stepper->try_step(h).h_next;
  }
  EXPECT_EQ(stepper->t_current(), S(40)) << solver;
  *evals = field.evals;
  return {stepper->x_current(), stepper->x_current() + 3};
}

TEST(NdfNonlinear, FollowsRobertsonsKinetics) {
  std::int64_t reference_evals = 0, evals = 0;
  const std::vector<long double> reference =
      robertson_at_40<long double>("rosenbrock4", 1e-14L, 1e-20L, &reference_evals);
  EXPECT_NEAR(static_cast<double>(reference[0]), 0.7158270687, 1e-10);
  const std::vector<double> y = robertson_at_40<double>("ndf", 1e-8, 1e-14, &evals);
  std::printf("[ measured ] ndf on Robertson to t = 40, rtol 1e-8: %lld evaluations, y = (%.10g, %.10g, %.10g); "
              "reference (rosenbrock4, long double, rtol 1e-14, %lld evaluations) (%.10g, %.10g, %.10g)\n",
              static_cast<long long>(evals), y[0], y[1], y[2], static_cast<long long>(reference_evals),
              static_cast<double>(reference[0]),
              static_cast<double>(reference[1]), static_cast<double>(reference[2]));
  for (std::size_t i = 0; i < 3; ++i) {
    const double exact = static_cast<double>(reference[i]);
    EXPECT_LT(std::abs(y[i] - exact), 1e-7 * std::abs(exact)) << "component " << i;
  }
  EXPECT_LT(evals, 1000);
}

}  // namespace
}  // namespace hysim
