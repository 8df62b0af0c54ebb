// The tolerance check (hysim/study/tolerance_check.hpp): the rerun's options, its verdicts on
// runs it resolves, runs it does not, runs whose steps the tolerance does not limit, and the
// cases where it gives no verdict. The check at every point of the solver campaign, against
// the exact references, is in solver_campaign_test.cpp.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "hysim/core/errors.hpp"
#include "hysim/study/evaluation.hpp"
#include "hysim/study/tolerance_check.hpp"
#include "test_support.hpp"

namespace hysim::study {
namespace {

// One run of a catalog model and its check.
struct Checked {
  Evaluation run;
  ToleranceCheck check;
};

Checked run_and_check(const std::string& name, const SimulationOptions& options,
                      const ToleranceCheckOptions& check_options = {}) {
  const Model<double> model = testing::catalog_model<double>(name);
  Checked out;
  out.run = evaluate_run(model, options);
  EXPECT_EQ(out.run.outcome, Outcome::kCompleted) << out.run.note;
  // The time the run reached: its last event when it stopped at the event limit, else t_end.
  const bool limited = out.run.stats.events >= options.event_limit;
  const double t_reached = limited ? static_cast<double>(out.run.events.back().t) : options.t_end.value();
  out.check = check_tolerance(model, options,
                              {out.run.events, false, t_reached, out.run.stats.steps_accepted, out.run.stats.rhs_evals},
                              check_options);
  return out;
}

TEST(ToleranceCheck, TheRerunDividesEveryToleranceAndTheFixedStep) {
  SimulationOptions options;
  options.rtol = 1e-5;
  options.atol = 1e-8;
  options.atol_states = {{"x", Decimal(1e-12)}};
  options.fixed_step = 0.01;
  options.max_step = 0.5;
  const SimulationOptions tight = tightened_options(options, 10);
  EXPECT_DOUBLE_EQ(tight.rtol.value(), 1e-6);
  EXPECT_DOUBLE_EQ(tight.atol.value(), 1e-9);
  ASSERT_EQ(tight.atol_states.size(), 1u);
  EXPECT_DOUBLE_EQ(tight.atol_states[0].second.value(), 1e-13);
  EXPECT_DOUBLE_EQ(tight.fixed_step.value(), 1e-3);
  EXPECT_EQ(tight.max_step.value(), 0.5);  // every other option as given
}

TEST(ToleranceCheck, BadOptionsAreRefused) {
  EXPECT_THROW(ToleranceCheckOptions({1.0, 10}).validate(), InvalidArgument);
  EXPECT_THROW(ToleranceCheckOptions({NAN, 10}).validate(), InvalidArgument);
  EXPECT_THROW(ToleranceCheckOptions({10, 0}).validate(), InvalidArgument);
  EXPECT_NO_THROW(ToleranceCheckOptions({2, 1}).validate());
}

// The grazing crests at rtol 1e-3 (2e-4 above the threshold, less than the state's error) are
// not resolved, and the sentence names an event; at rtol 1e-8 they are, with an estimate near
// the true error against the closed form pi/2 -+ 0.02 + 2 pi k.
TEST(ToleranceCheck, TheGrazingCrestsAreResolvedOnlyAtATightTolerance) {
  SimulationOptions options;
  options.t_end = 20;
  options.solver = "cashkarp54";
  options.rtol = 1e-3;
  options.atol = 1e-6;
  const Checked loose = run_and_check("grazing", options);
  EXPECT_FALSE(loose.check.resolved());
  EXPECT_TRUE(loose.check.not_checked.empty());
  EXPECT_GT(loose.check.missed + loose.check.spurious, 0u);
  EXPECT_NE(loose.check.first_difference.find("has no partner"), std::string::npos) << loose.check.first_difference;
  EXPECT_NE(loose.check.summary().find("do not resolve"), std::string::npos);

  options.rtol = 1e-8;
  options.atol = 1e-11;
  const Checked tight = run_and_check("grazing", options);
  ASSERT_TRUE(tight.check.resolved()) << tight.check.summary();
  ASSERT_EQ(tight.run.events.size(), 6u);
  EXPECT_FALSE(tight.check.same_steps);
  double error = 0;
  for (std::size_t i = 0; i < 6; ++i) {
    const double exact = M_PI / 2 + (i % 2 == 0 ? -0.02 : 0.02) + 2 * M_PI * static_cast<double>(i / 2);
    error = std::max(error, std::abs(static_cast<double>(tight.run.events[i].t) - exact));
  }
  ASSERT_TRUE(tight.check.max_dt.has_value());
  EXPECT_GT(error / *tight.check.max_dt, 0.1);
  EXPECT_LT(error / *tight.check.max_dt, 10);
}

// The bouncing ball's flights are parabolas, which dopri5 integrates exactly: the tolerance does
// not limit its steps, the rerun takes the very same ones, and the check says it has no
// estimate rather than report an agreement that proves nothing.
TEST(ToleranceCheck, ARerunWithTheSameStepsGivesNoEstimate) {
  SimulationOptions options;
  options.t_end = 5;
  const Checked checked = run_and_check("bouncing-ball", options);
  EXPECT_TRUE(checked.check.resolved());
  EXPECT_TRUE(checked.check.same_steps);
  EXPECT_NE(checked.check.summary().find("does not estimate the error"), std::string::npos);
  EXPECT_EQ(checked.check.to_json()["same_steps"], true);
}

// A run that stopped at the event limit is compared up to where it stopped: its last event, at
// that very time, is left out when its partner lies just after (an open window, as at t_end).
TEST(ToleranceCheck, ARunStoppedAtTheEventLimitIsComparedUpToThere) {
  SimulationOptions options;
  options.t_end = 20;
  options.event_limit = 40;
  options.rtol = 1e-8;
  options.atol = 1e-11;
  const Checked checked = run_and_check("pwm-servo", options);
  EXPECT_EQ(checked.run.events.size(), 40u);
  EXPECT_TRUE(checked.check.resolved()) << checked.check.summary();
  EXPECT_GE(checked.check.matched, 39u);
  EXPECT_EQ(checked.check.spurious, 0u);
}

// More events than the check keeps: no verdict, and it says why.
TEST(ToleranceCheck, TooManyEventsGiveNoVerdict) {
  SimulationOptions options;
  options.t_end = 1;
  ToleranceCheckOptions check;
  check.max_events = 5;
  const Checked checked = run_and_check("pwm-servo", options, check);
  EXPECT_FALSE(checked.check.resolved());
  EXPECT_NE(checked.check.not_checked.find("more events than the check keeps"), std::string::npos)
      << checked.check.not_checked;
  EXPECT_NE(checked.check.summary().find("not checked"), std::string::npos);
}

}  // namespace
}  // namespace hysim::study
