// Zeno detection (events/zeno.hpp) on its own, and on the bouncing ball under every strategy
// that locates events, the gamma approach and the cvode peer; a continuation that does not
// hold is an error, not an endless run.
#include <gtest/gtest.h>

#include <cmath>
#include <iostream>
#include <string>
#include <vector>

#include "hysim/core/errors.hpp"
#include "hysim/events/zeno.hpp"
#include "test_support.hpp"

namespace hysim {
namespace {

SimulationOptions zeno_options() {
  SimulationOptions options;  // zeno_events 8, zeno_ratio_tolerance 1e-3, zeno_horizon 1e-9
  return options;
}

// Feeds t_k = t_inf - d0 r^k / (1 - r)... : intervals d0 r^k, accumulating at t_inf.
TEST(ZenoWatch, GeometricIntervalsGiveTheirLimit) {
  ZenoWatch<double> watch(zeno_options());
  const double r = 0.8, t_inf = 12.0;
  double remaining = 1.0;  // t_inf - t_k
  bool declared = false;
  int k = 0;
  for (; k < 200 && !declared; ++k) {
    declared = watch.observe(t_inf - remaining, 0.0);
    remaining *= r;
  }
  ASSERT_TRUE(declared);
  EXPECT_FALSE(watch.at_resolution());
  EXPECT_NEAR(watch.ratio(), r, 1e-5);  // intervals of 1e-10 s, times rounded to 1.8e-15 s
  EXPECT_NEAR(watch.t_inf(), t_inf, 1e-12);
  // Declared once the time left was within zeno_horizon, not before: the previous event's
  // remaining time, remaining / r^2 at the call, was above it.
  const double left_at_call = remaining / r;
  EXPECT_LE(left_at_call, 1e-9 * (1 + 1e-6));
  EXPECT_GT(left_at_call / r, 1e-9);
}

TEST(ZenoWatch, EqualIntervalsAreNotZeno) {
  ZenoWatch<double> watch(zeno_options());
  for (int k = 0; k < 100; ++k) EXPECT_FALSE(watch.observe(0.5 * k, 0.0)) << "event " << k;
}

TEST(ZenoWatch, AGrowingIntervalBreaksTheSequence) {
  ZenoWatch<double> watch(zeno_options());
  double t = 0, d = 1;
  for (int k = 0; k < 8; ++k) {
    EXPECT_FALSE(watch.observe(t, 0.0));
    t += d;
    d *= 0.5;
  }
  // the 9th event would complete eight halving intervals; a longer one instead
  EXPECT_FALSE(watch.observe(t + 4 * d, 0.0));
}

// Intervals at the time resolution (a few ulps, or h_min): no longer geometric, but at the
// accumulation point to within that resolution.
TEST(ZenoWatch, IntervalsAtTheResolutionAreAnAccumulation) {
  ZenoWatch<double> watch(zeno_options());
  const double t0 = 0.6711382895120890, ulp = std::nextafter(t0, 1.0) - t0;
  bool declared = false;
  double t = t0, last = t0;
  for (int k = 0; k < 9; ++k) {
    declared = watch.observe(t, 16 * ulp);
    last = t;
    t += (k % 2 == 0 ? 3 : 2) * ulp;  // irregular steps of 2 or 3 ulps
  }
  ASSERT_TRUE(declared);
  EXPECT_TRUE(watch.at_resolution());
  EXPECT_EQ(watch.t_inf(), last);
}

// With event times known to 1e-6 s only (gamma's h_min), the ratios of intervals of a few
// hundredths of a second disagree by more than zeno_ratio_tolerance; the test allows for it,
// and declares once the last interval is within 64 resolutions.
TEST(ZenoWatch, CoarseEventTimesAllowForTheirResolution) {
  const double r = 0.8, t_inf = 12.0, resolution = 1e-6;
  ZenoWatch<double> exact(zeno_options()), coarse(zeno_options());
  double remaining = 1.0;
  bool declared = false;
  for (int k = 0; k < 200 && !declared; ++k) {
    const double jitter = (k % 3 - 1) * 0.4 * resolution;  // -0.4, 0, +0.4 h_min
    declared = coarse.observe(t_inf - remaining + jitter, resolution);
    EXPECT_FALSE(declared && remaining > 64 * resolution * r / (1 - r) * 1.01) << "too early, at k = " << k;
    remaining *= r;
  }
  ASSERT_TRUE(declared);
  EXPECT_NEAR(coarse.t_inf(), t_inf, 10 * resolution);
}

// The bouncing ball (e = 0.8 from 10 m) accumulates at t1 + 2 v1 e / (g (1 - e)). Every
// strategy but `step` (whose switches come at step ends, far below the floor) detects it and
// goes on at rest; the error of t_inf is that of the strategy's event times.
struct ZenoCase {
  std::string strategy;
  double tolerance;  // |t_zeno - t_inf| allowed [s]
};

class BouncingBallZenoByStrategy : public ::testing::TestWithParam<ZenoCase> {};

TEST_P(BouncingBallZenoByStrategy, DetectsTheAccumulationAndRests) {
  const ZenoCase& c = GetParam();
  const Model<double> model = testing::catalog_model<double>("bouncing-ball");
  SimulationOptions options;
  options.strategy = c.strategy;
  options.t_end = 20.0;
  RunResult<double> result;
  const auto run = testing::collect(model, options, false, &result);
  const double g = 9.81, e = 0.8, v1 = std::sqrt(2.0 * g * 10.0);
  const double t_inf = v1 / g + 2.0 * v1 * e / (g * (1.0 - e));
  testing::expect_at_rest_after_zeno(model, result, run, options.t_end, "rest");
  EXPECT_NEAR(result.t_zeno, t_inf, c.tolerance);
  std::cout << "[bouncing-ball, " << c.strategy << "] Zeno at t = " << result.t_zeno << ", error "
            << result.t_zeno - t_inf << " s, after " << result.stats.events << " events\n";
}

INSTANTIATE_TEST_SUITE_P(Strategies, BouncingBallZenoByStrategy,
                         ::testing::Values(ZenoCase{"gamma-refine", 1e-9}, ZenoCase{"bisection", 1e-9},
                                           ZenoCase{"illinois", 1e-9}, ZenoCase{"itp", 1e-9},
                                           ZenoCase{"sampled", 1e-9}, ZenoCase{"double-sided", 1e-9},
                                           ZenoCase{"gamma", 100 * 1e-6}, ZenoCase{"cvode", 1e-3}),
                         [](const ::testing::TestParamInfo<ZenoCase>& param_info) {
                           std::string name = param_info.param.strategy;
                           for (char& ch : name) ch = ch == '-' ? '_' : ch;
                           return name;
                         });

// Double-sided location on the cam follower with bounces (003, Fig. 11): its events lie on the
// far side of each surface, so the follower, put back on the cam at the accumulation, lifts
// off at once and the bounces resume at the same point. The run fails with a message that
// says so, instead of going on with an event every few ulps.
TEST(ZenoContinuation, ThatDoesNotHoldIsAnError) {
  const Model<double> model = testing::catalog_model<double>("cam-follower", {{"eps", "0.6"}});  // preset fig11
  SimulationOptions options;
  options.strategy = "double-sided";
  options.t_end = 3.0;
  Simulator<double> simulator(model, options);
  {
    const RunResult<double> result = simulator.run(nullptr);
    ASSERT_TRUE(result.failed()) << "expected a failed run";
    const std::string message = result.message;
    EXPECT_TRUE(testing::contains(message, "continuation does not hold")) << message;
    EXPECT_TRUE(testing::contains(message, "'contact'")) << message;
    EXPECT_LT(simulator.statistics().events, 1000);
  }
}

}  // namespace
}  // namespace hysim
