// The certified strategy's level 2 (events/flow_bound.hpp, docs/certified.md): the bound E(t) of
// the exact flow's distance to the dense output, checked against closed forms from each step's
// start under every solver with a dense output of known degree; the PWM servo's file twin proved
// for the exact flow with the default strategy's events; the refusals.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <random>
#include <string>

#include "hysim/events/flow_bound.hpp"
#include "hysim/lang/build.hpp"
#include "hysim/lang/compiler.hpp"
#include "hysim/solvers/dense_enclosure.hpp"
#include "hysim/solvers/stepper.hpp"
#include "model_text.hpp"
#include "source_dir.hpp"
#include "test_support.hpp"

namespace hysim {
namespace {

Model<double> from_text(const std::string& text) { return testing::model_from_text("flow.hym", text); }

// A rotation of (x, y) at rate w, damped, and a forced decay of z, all in closed form from any
// start (t0, x0, y0, z0): with tau = t - t0,
//   x = e^{-c tau} (x0 cos w tau - y0 sin w tau),  y = e^{-c tau} (x0 sin w tau + y0 cos w tau),
//   z = 1/2 + (z0 - 1/2) e^{-2 tau}.
const char* const kRotation = R"(model rotation
parameter w = 3, c = 0.2
state x = 1, y = 0, z = 2
mode turn { der(x) = -c*x - w*y; der(y) = w*x - c*y; der(z) = 1 - 2*z }
)";

void exact(double tau, const double* start, double* out) {
  const double w = 3, c = 0.2, decay = std::exp(-c * tau);
  out[0] = decay * (start[0] * std::cos(w * tau) - start[1] * std::sin(w * tau));
  out[1] = decay * (start[0] * std::sin(w * tau) + start[1] * std::cos(w * tau));
  out[2] = 0.5 + (start[2] - 0.5) * std::exp(-2 * tau);
}

// Over 12 steps of each solver at rtol 1e-3 and 1e-8, at 60 random times of each step: the
// exact flow from the step's start lies within E(t) of the dense output, componentwise; and E
// is not loose beyond its resolution.
TEST(CertifiedFlow, TheBoundHoldsTheExactFlowFromEachStepsStart) {
  const Model<double> model = from_text(kRotation);
  auto enclosure = model.guard_enclosure();
  ASSERT_TRUE(enclosure->has_flow());
  std::mt19937_64 random(7);
  for (const char* solver : {"dopri5", "bs3", "cashkarp54", "rkf78", "dop853", "rosenbrock4", "ndf", "rk4"}) {
    for (const double rtol : {1e-3, 1e-8}) {
      SCOPED_TRACE(std::string(solver) + " at rtol " + std::to_string(rtol));
      StepperTolerances<double> tolerances;
      tolerances.rtol = rtol;
      tolerances.atol = rtol * 1e-3;
      auto stepper = make_stepper<double>(solver, 3, tolerances);
      std::int64_t evaluations = 0;
      const double x0[3] = {1, 0, 2};
      const auto& field = model.modes[0].field;
      stepper->restart(Rhs<double>{&field, &evaluations}, 0.0, x0, nullptr);
      DenseEnclosure dense(3);
      FlowBound flow(3);
      double worst_ratio = 0, max_bound = 0;
      for (int step = 0; step < 12; ++step) {
        for (double h = 0.2;;) {
          const StepOutcome<double> outcome = stepper->try_step(h);
          if (outcome.status == StepStatus::kAccepted) break;
          h = outcome.h_next;
        }
        ASSERT_EQ(dense.fit(*stepper), DenseEnclosure::Fit::kFitted);
        const double t0 = stepper->t_previous(), t1 = stepper->t_current();
        const double start[3] = {stepper->x_previous()[0], stepper->x_previous()[1], stepper->x_previous()[2]};
        ASSERT_TRUE(flow.bound(0, enclosure.get(), dense, start)) << "no bound for the step at t = " << t0;
        EXPECT_EQ(flow.error_at(t0), 0);
        std::uniform_real_distribution<double> within(t0, t1);
        double worst = 0;
        for (int k = 0; k < 60; ++k) {
          const double t = within(random);
          double p[3], x[3];
          stepper->interpolate(t, p);
          exact(t - t0, start, x);
          const double bound = flow.error_at(t);
          for (int i = 0; i < 3; ++i) {
            EXPECT_LE(std::fabs(x[i] - p[i]), bound) << "component " << i << " at t = " << t;
            worst = std::max(worst, std::fabs(x[i] - p[i]));
          }
        }
        worst_ratio = std::max(worst_ratio, flow.error_at(t1) / (worst + 1e-14));
        max_bound = std::max(max_bound, flow.error_at(t1));
      }
      // E's resolution: the defect's mean-value form over a part of width d costs about
      // |x'''| d^2 (the dependency of p'' and J p' in interval arithmetic), here 27 (0.2 / 8)^2
      // / 2 ~ 8e-3, times the part's growth: E stays within 1e4 times the error or below 5e-3.
      EXPECT_TRUE(worst_ratio < 1e4 || max_bound < 5e-3) << worst_ratio << ", " << max_bound;
      std::printf("%-12s rtol %.0e: E(t1) at most %.2g, at most %.3g times the worst error it bounds\n", solver, rtol,
                  max_bound, worst_ratio);
    }
  }
}

// The PWM servo's file twin tracking sin t over [0, 20.05] s at level 2: the default strategy's
// events, every step proved for the exact flow from its start within 1e-9 of the dense output,
// and no event of the exact flow before its part.
TEST(CertifiedFlow, PwmServoTwinProvedForTheExactFlow) {
  const ModelEntry entry = lang::load_model_file(testing::source_dir() + "/models/pwm-servo.hym");
  ParameterValues values = entry.default_values();
  values.set("u", "0");
  values.set("u_amp", "1");
  const Model<double> model = entry.make<double>(values);
  SimulationOptions options;
  options.t_end = 20.05;
  const auto plain = testing::collect(model, options);
  options.strategy = "certified";
  options.certified_level = 2;
  RunResult<double> result;
  const auto proved = testing::collect(model, options, false, &result);
  ASSERT_EQ(result.reason, RunReason::kReachedEnd) << result.message;
  ASSERT_EQ(proved.rows.size(), plain.rows.size());
  for (std::size_t i = 0; i < plain.rows.size(); ++i) EXPECT_EQ(proved.rows[i].t, plain.rows[i].t);
  const CertifiedStatistics& c = result.stats.certified;
  EXPECT_EQ(c.level, 2);
  EXPECT_EQ(c.steps_unproved, 0);
  EXPECT_EQ(c.steps_proved, result.stats.steps_accepted);
  EXPECT_GT(c.flow_error_max, 0);
  EXPECT_LT(c.flow_error_max, 1e-9);
  EXPECT_EQ(c.flow_early_max, 0);
}

// A field that may jump inside a step (sign of a state that crosses 0 within it, stepped
// across rather than split into modes) has no Lipschitz bound there: the step is not proved at
// level 2, and the run says so; level 1 proves the dense output. A model without a Jacobian on
// intervals (a built-in C++ model) and a level other than 1 or 2 are refused.
TEST(CertifiedFlow, ASteppedJumpInTheFieldIsNotProvedAndRefusalsAreClear) {
  // The run's failure or refusal, as its message ("" when it went through).
  const auto message_of = [](const Model<double>& model, const SimulationOptions& options) -> std::string {
    try {
      RunResult<double> r;
      (void)testing::collect(model, options, false, &r);
      return r.failed() ? r.message : "";
    } catch (const Error& e) {
      return e.what();
    }
  };
  const Model<double> model = from_text(R"(model jumpy
state x = 1, v = -1
mode fall { der(x) = v; der(v) = -stepped(sign(x)) }
fall -> fall stop_low [x <= -5]
)");
  SimulationOptions options = testing::tight_options("certified", 2);
  options.certified_level = 2;
  std::string message = message_of(model, options);
  EXPECT_TRUE(testing::contains(message, "no bound of the exact flow")) << message;
  EXPECT_TRUE(testing::contains(message, "mode 'fall'")) << message;
  options.certified_level = 1;
  EXPECT_EQ(message_of(model, options), "");

  options.certified_level = 2;  // 17 states: no Jacobian on intervals is built (compiling stays linear)
  std::string wide = "model wide\nstate s0 = 1";
  std::string fields;
  for (int i = 1; i < 17; ++i) wide += ", s" + std::to_string(i) + " = 1";
  for (int i = 0; i < 17; ++i) fields += std::string(i ? "; " : "") + "der(s" + std::to_string(i) + ") = -s" + std::to_string(i);
  wide += "\nmode decay { " + fields + " }\ndecay -> decay half [s0 <= 0.5]\n";
  message = message_of(from_text(wide), options);
  EXPECT_TRUE(testing::contains(message, "level 2 reads the field's Jacobian")) << message;
  options.certified_level = 3;
  message = message_of(model, options);
  EXPECT_TRUE(testing::contains(message, "certified_level")) << message;
}

}  // namespace
}  // namespace hysim
