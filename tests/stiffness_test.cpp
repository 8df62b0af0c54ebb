// Hairer's stiffness detection for the explicit solvers (solvers/stiffness.hpp): the estimate
// h |lambda| against a linear field whose eigenvalue is known, the counting of dopri5.f and
// dop853.f, and the run's warning: said once for dopri5 and dop853 on Robertson's kinetics
// (models/robertson.hym) and on the stiff relay, never on non-stiff models whose runs take
// thousands of steps, never for the implicit solvers.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <limits>
#include <string>

#include "hysim/lang/build.hpp"
#include "hysim/solvers/stepper.hpp"
#include "hysim/solvers/stiffness.hpp"
#include "source_dir.hpp"
#include "test_support.hpp"

namespace hysim {
namespace {

using testing::contains;

constexpr const char* kStiffPhrase = "finds the problem stiff";

std::size_t occurrences(const std::string& text, const std::string& part) {
  std::size_t count = 0;
  for (std::size_t at = text.find(part); at != std::string::npos; at = text.find(part, at + 1)) ++count;
  return count;
}

// On x' = lambda x every difference quotient of the field is lambda: the ratio is h |lambda| over
// the method's bound (3.25 for dopri5, 6.1 for dop853) after each accepted step, whatever the
// step; before any step, and for the implicit solvers, there is none (NaN).
TEST(Stiffness, EstimatesTheEigenvalueOfALinearField) {
  const double lambda = -250.0;
  std::function<void(double, const double*, double*)> f = [&](double, const double* x, double* dx) {
    dx[0] = lambda * x[0];
  };
  for (const auto& [solver, bound] : {std::pair<const char*, double>{"dopri5", 3.25}, {"dop853", 6.1}}) {
    std::int64_t evals = 0;
    auto stepper = make_stepper<double>(solver, 1, StepperTolerances<double>{0.5, 0.5});  // accepts every h here
    const double x0 = 1.0;
    stepper->restart(Rhs<double>{&f, &evals}, 0.0, &x0, nullptr);
    EXPECT_TRUE(std::isnan(stepper->stiffness_ratio())) << solver;
    for (const double h : {1e-3, 5e-3, 1.2e-2}) {
      ASSERT_EQ(stepper->try_step(h).status, StepStatus::kAccepted) << solver << ", h = " << h;
      EXPECT_NEAR(stepper->stiffness_ratio(), h * std::abs(lambda) / bound, 1e-9 * h * std::abs(lambda)) << solver;
    }
  }
  for (const char* solver : {"rosenbrock4", "ndf", "bs3"}) {
    std::int64_t evals = 0;
    auto stepper = make_stepper<double>(solver, 1, StepperTolerances<double>{0.5, 0.5});
    const double x0 = 1.0;
    stepper->restart(Rhs<double>{&f, &evals}, 0.0, &x0, nullptr);
    ASSERT_EQ(stepper->try_step(1e-3).status, StepStatus::kAccepted) << solver;
    EXPECT_TRUE(std::isnan(stepper->stiffness_ratio())) << solver;
  }
}

// dopri5.f's counting: tested at every 1000th accepted step, then at every step while suspect;
// 15 steps beyond the bound declare stiffness (once), 6 in a row below it clear the suspicion.
TEST(Stiffness, CountsAsHairersCodes) {
  StiffnessDetector detector;
  for (int step = 1; step < 1000; ++step) EXPECT_FALSE(detector.due()) << step;
  ASSERT_TRUE(detector.due());                    // step 1000
  EXPECT_FALSE(detector.observe(1.5));           // suspect 1
  for (int k = 0; k < 5; ++k) {
    ASSERT_TRUE(detector.due());
    EXPECT_FALSE(detector.observe(0.5));         // 5 calm steps: still suspect
  }
  for (int k = 2; k <= 14; ++k) {
    ASSERT_TRUE(detector.due());
    EXPECT_FALSE(detector.observe(2.0)) << k;    // suspect 2..14
  }
  ASSERT_TRUE(detector.due());
  EXPECT_TRUE(detector.observe(2.0));            // the 15th: declared
  EXPECT_TRUE(detector.declared());
  EXPECT_FALSE(detector.due());                  // and silent from then on

  StiffnessDetector cleared;
  for (int step = 1; step < 1000; ++step) (void)cleared.due();
  ASSERT_TRUE(cleared.due());
  for (int k = 0; k < 14; ++k) {                 // 14 suspect steps ...
    EXPECT_FALSE(cleared.observe(2.0));
    ASSERT_TRUE(cleared.due());
  }
  for (int k = 0; k < 6; ++k) {                  // ... cleared by 6 calm ones in a row
    EXPECT_FALSE(cleared.observe(0.5));
    ASSERT_EQ(cleared.due(), k < 5) << k;
  }
  EXPECT_FALSE(cleared.observe(std::numeric_limits<double>::quiet_NaN()));  // no estimate: counts nothing
  EXPECT_FALSE(cleared.declared());
}

const Model<double>& robertson() {
  static const Model<double> model = [] {
    const ModelEntry entry = lang::load_model_file(testing::source_dir() + "/models/robertson.hym");
    return entry.make<double>(entry.default_values());
  }();
  return model;
}

struct Warned {
  RunResult<double> result;
  std::string log;  // what the run wrote on stderr (the engine's log)
};

Warned run_capturing_log(const Model<double>& model, const std::string& solver, double t_end, double rtol = 1e-6) {
  SimulationOptions options;
  options.solver = solver;
  options.t_end = t_end;
  options.rtol = rtol;
  options.atol = rtol * 1e-3;
  Warned out;
  ::testing::internal::CaptureStderr();
  Simulator<double> simulator(model, options);
  out.result = simulator.run();
  out.log = ::testing::internal::GetCapturedStderr();
  return out;
}

// dopri5 and dop853 on Robertson's kinetics over [0, 100] (tens of thousands of steps held at
// the stability bound by the eigenvalue near -2e3): one warning, in the log and in the result,
// naming the stiff solvers; the run goes on to its end.
TEST(Stiffness, ExplicitSolversSayOnceThatRobertsonIsStiff) {
  for (const char* solver : {"dopri5", "dop853"}) {
    const Warned run = run_capturing_log(robertson(), solver, 100.0);
    EXPECT_EQ(run.result.reason, RunReason::kReachedEnd) << run.result.message;
    EXPECT_EQ(run.result.t, 100.0);
    ASSERT_EQ(run.result.warnings.size(), 1u) << solver;
    const std::string& warning = run.result.warnings[0];
    std::printf("[ measured ] %s, %lld steps: %s\n", solver, static_cast<long long>(run.result.stats.steps_accepted),
                warning.c_str());
    EXPECT_TRUE(contains(warning, std::string(solver) + " " + kStiffPhrase));
    EXPECT_TRUE(contains(warning, "model 'robertson'"));
    for (const char* named : {"rosenbrock4", "ndf", "--strategy cvode"}) EXPECT_TRUE(contains(warning, named));
    EXPECT_EQ(occurrences(run.log, kStiffPhrase), 1u) << run.log;
    EXPECT_TRUE(contains(run.log, "[warning] " + warning));
    // declared within the first thousands of steps, at the first test that finds it
    const double t_declared = std::stod(warning.substr(warning.find(", t = ") + 6));
    EXPECT_GT(t_declared, 0.0);
    EXPECT_LT(t_declared, 10.0);
  }
}

// The stiff relay (time constants 1 s and 1e-4 s) with dopri5: also said once, over 25 events.
TEST(Stiffness, TheStiffRelayIsStiffToo) {
  const Warned run = run_capturing_log(testing::catalog_model<double>("stiff-relay"), "dopri5", 10.0);
  EXPECT_EQ(run.result.stats.events, 25);
  EXPECT_EQ(run.result.warnings.size(), 1u);
  EXPECT_EQ(occurrences(run.log, kStiffPhrase), 1u) << run.log;
}

// Non-stiff models, in runs long enough for the test to run many times (it first runs at the
// 1000th step): the damped oscillator (lambda = -1 +- 20i) with dopri5 at rtol 1e-10 (about
// 10,800 steps over 100 s) and with dop853 at rtol 1e-13, and the PWM servo over 20 s; and the
// implicit solvers on Robertson: no warning.
TEST(Stiffness, NeverOnNonStiffModelsNorForImplicitSolvers) {
  struct Case {
    Model<double> model;
    const char* solver;
    double t_end, rtol;
    std::int64_t at_least_steps;
  };
  const Case cases[] = {
      {testing::catalog_model<double>("oscillator"), "dopri5", 100.0, 1e-10, 5000},
      {testing::catalog_model<double>("oscillator"), "dop853", 100.0, 1e-13, 2000},
      {testing::catalog_model<double>("pwm-servo"), "dopri5", 20.0, 1e-6, 0},
      {robertson(), "rosenbrock4", 100.0, 1e-6, 0},
      {robertson(), "ndf", 100.0, 1e-6, 0},
  };
  for (const Case& c : cases) {
    const Warned run = run_capturing_log(c.model, c.solver, c.t_end, c.rtol);
    EXPECT_EQ(run.result.reason, RunReason::kReachedEnd) << run.result.message;
    EXPECT_GE(run.result.stats.steps_accepted, c.at_least_steps) << c.model.name << " " << c.solver;
    EXPECT_TRUE(run.result.warnings.empty()) << c.model.name << " " << c.solver << ": " << run.result.warnings[0];
    EXPECT_EQ(occurrences(run.log, kStiffPhrase), 0u) << run.log;
  }
}

}  // namespace
}  // namespace hysim
