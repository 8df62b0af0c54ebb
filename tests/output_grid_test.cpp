// Outputs for long runs: the output grid (SimulationOptions::output_step) samples t0 + k
// output_step from the dense output, with the steps, the events and the statistics unchanged to
// the bit; Simulator::stop_when ends a run on request (SIGINT in `hysim run`).
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <vector>

#include "hysim/core/errors.hpp"
#include "test_support.hpp"

namespace hysim {
namespace {

template <class S>
void expect_same_events(const std::string& model_name, double t_end, double output_step) {
  const Model<S> model = testing::catalog_model<S>(model_name);
  SimulationOptions options;
  options.t_end = t_end;
  RunResult<S> plain_result, grid_result;
  const auto plain = testing::collect(model, options, true, &plain_result);
  options.output_step = output_step;
  const auto grid = testing::collect(model, options, true, &grid_result);
  ASSERT_FALSE(plain.rows.empty());
  ASSERT_EQ(plain.rows.size(), grid.rows.size()) << model_name;
  for (std::size_t i = 0; i < plain.rows.size(); ++i) {
    EXPECT_EQ(plain.rows[i].t, grid.rows[i].t) << "row " << i;
    EXPECT_EQ(plain.rows[i].from, grid.rows[i].from);
    EXPECT_EQ(plain.rows[i].to, grid.rows[i].to);
    EXPECT_EQ(plain.rows[i].kind, grid.rows[i].kind);
    EXPECT_EQ(plain.rows[i].x_pre, grid.rows[i].x_pre);
    EXPECT_EQ(plain.rows[i].x_post, grid.rows[i].x_post);
  }
  EXPECT_EQ(plain_result.stats.steps_accepted, grid_result.stats.steps_accepted);
  EXPECT_EQ(plain_result.stats.rhs_evals, grid_result.stats.rhs_evals);
  EXPECT_EQ(plain_result.stats.guard_evals, grid_result.stats.guard_evals);
  // Every sample is t0, t_end, an event's side or a grid point, in time order.
  const S step = S(output_step);
  for (std::size_t i = 0; i < grid.samples.size(); ++i) {
    const S t = grid.samples[i].t;
    if (i > 0) {
      EXPECT_GE(t, grid.samples[i - 1].t);
    }
    bool event_side = false;
    for (const auto& row : grid.rows) event_side = event_side || row.t == t;
    const S k = t / step;
    using std::round;
    using boost::multiprecision::round;
    const bool on_grid = S(round(k)) * step == t;
    EXPECT_TRUE(t == S(0) || t == S(t_end) || event_side || on_grid) << "sample at t = " << format_scalar(t);
  }
}

TEST(OutputGrid, LeavesEveryEventBitForBitUnchanged) {
  expect_same_events<double>("pwm-servo", 20.0, 0.01);
  expect_same_events<double>("bouncing-ball", 20.0, 0.05);
  expect_same_events<double>("stick-slip", 30.0, 0.1);  // sliding motions
  expect_same_events<float128>("pwm-servo", 2.0, 0.01);
}

TEST(OutputGrid, SamplesTheDenseOutputOnTheGrid) {
  const Model<double> model = testing::catalog_model<double>("exponential");
  SimulationOptions options;
  options.t_end = 3;
  options.rtol = 1e-10;
  options.atol = 1e-12;
  options.output_step = 0.001;
  const auto run = testing::collect(model, options, true);
  ASSERT_EQ(run.samples.size(), 3001u);  // t0, the 2999 interior grid points, t_end
  for (std::size_t k = 0; k < run.samples.size(); ++k) {
    EXPECT_EQ(run.samples[k].t, static_cast<double>(k) * 0.001) << k;
    EXPECT_NEAR(run.samples[k].x[0], std::exp(run.samples[k].t), 1e-8 * std::exp(run.samples[k].t)) << k;
  }
}

TEST(OutputGrid, RefusesABadGrid) {
  const Model<double> model = testing::catalog_model<double>("exponential");
  SimulationOptions options;
  options.output_step = -1;
  EXPECT_THROW((Simulator<double>{model, options}), InvalidArgument);
  options.output_step = 1e-300;  // 1e300 samples
  EXPECT_THROW((Simulator<double>{model, options}), InvalidArgument);
#if HYSIM_HAVE_CVODE
  options.output_step = 0.1;
  options.strategy = "cvode";
  EXPECT_THROW((Simulator<double>{model, options}), InvalidArgument);
#endif
}

// An observer that raises the stop flag at the 10th event, as a signal handler would.
class StopAtTenthEvent final : public Observer<double> {
 public:
  explicit StopAtTenthEvent(std::atomic<bool>* flag) : flag_(flag) {}
  void on_event(const EventRecord<double>& r) override {
    if (r.index >= 10) flag_->store(true);
  }

 private:
  std::atomic<bool>* flag_;
};

TEST(StopWhen, EndsTheRunAtTheNextStepWithEverythingPassedOn) {
  const Model<double> model = testing::catalog_model<double>("pwm-servo");
  SimulationOptions options;
  options.t_end = 100;
  Simulator<double> simulator(model, options);
  std::atomic<bool> stop{false};
  simulator.stop_when(&stop);
  StopAtTenthEvent observer(&stop);
  const RunResult<double> result = simulator.run(&observer);
  EXPECT_EQ(result.reason, RunReason::kInterrupted);
  EXPECT_LT(result.t, 1.0);
  EXPECT_GE(result.stats.events, 10);
  EXPECT_LE(result.stats.events, 11);
  EXPECT_TRUE(testing::contains(result.message, "interrupted at t = "));
}

// output_times: samples at exactly the given times (besides t0, t_end and the events' sides),
// the events and the work unchanged to the bit; a time outside [t0, t_end] is refused.
TEST(OutputTimes, SamplesAtTheGivenTimesOnly) {
  const Model<double> model = testing::catalog_model<double>("bouncing-ball");
  SimulationOptions options;
  options.t_end = 3;
  RunResult<double> plain_result, timed_result;
  const auto plain = testing::collect(model, options, true, &plain_result);
  options.output_times = {Decimal("0.3"), Decimal("1"), Decimal("2.25")};
  const auto timed = testing::collect(model, options, true, &timed_result);
  ASSERT_EQ(plain.rows.size(), timed.rows.size());
  for (std::size_t i = 0; i < plain.rows.size(); ++i) EXPECT_EQ(plain.rows[i].t, timed.rows[i].t);
  EXPECT_EQ(plain_result.stats.rhs_evals, timed_result.stats.rhs_evals);
  std::vector<double> inside;
  for (const auto& sample : timed.samples) {
    const bool event_side = std::any_of(timed.rows.begin(), timed.rows.end(), [&](const auto& r) { return r.t == sample.t; });
    if (sample.t != 0 && sample.t != 3 && !event_side) inside.push_back(sample.t);
  }
  EXPECT_EQ(inside, (std::vector<double>{0.3, 1.0, 2.25}));
  options.output_times = {Decimal("1"), Decimal("4")};
  EXPECT_THROW(Simulator<double>(model, options), InvalidArgument);
  options.output_times = {Decimal("1"), Decimal("0.5")};
  EXPECT_THROW(options.validate(), InvalidArgument);
}

}  // namespace
}  // namespace hysim
