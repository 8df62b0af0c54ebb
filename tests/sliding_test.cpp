// Sliding modes (Mosterman, Zhao and Biswas, "Sliding modes"): the equivalent (Filippov)
// dynamics on a switching surface, against a closed form.
//
// The test model: x' = -1 + t/2 in mode "pos" (x > 0), x' = 1 + t/2 in mode "neg" (x < 0),
// from x(0) = 1/2 in pos. Closed form:
//   pos:      x(t) = 1/2 - t + t^2/4, which reaches 0 at t1 = 2 - sqrt(2), where both fields
//             point into x = 0 (-1 + t1/2 < 0 < 1 + t1/2): sliding;
//   sliding:  lambda = r_pos / (r_pos - r_neg) = (1 - t/2) / 2, x = 0, until r_pos = 0 at t2 = 2
//             (lambda reaches 0: pos's field stops driving into the surface);
//   pos:      x(t) = (t - 2)^2 / 4 afterwards.
#include <gtest/gtest.h>

#include <cmath>
#include <iostream>
#include <string>

#include "hysim/simulator.hpp"
#include "test_support.hpp"

namespace hysim {
namespace {

Model<double> filippov_model() {
  Model<double> model;
  model.name = "filippov";
  model.state_names = {"x"};
  model.x0 = {0.5};
  model.add_mode("pos", [](double t, const double*, double* dxdt) { dxdt[0] = -1 + t / 2; });
  model.add_mode("neg", [](double t, const double*, double* dxdt) { dxdt[0] = 1 + t / 2; });
  const EventRate<double> rate = [](double, const double*, const double* f) { return f[0]; };
  const EventFunction<double> x = [](double, const double* s) { return s[0]; };
  model.add_transition("pos", "neg", "x<0", Guard<double>::atom("x", x, Relation::kLess, rate));
  model.add_transition("neg", "pos", "x>0", Guard<double>::atom("x", x, Relation::kGreater, rate));
  model.finalize();
  return model;
}

struct Outcome {
  testing::Collected<double> out;
  RunResult<double> result;
  std::string error;
};

Outcome run_filippov(const std::string& strategy, bool sliding, double t_end = 3.0) {
  Outcome o;
  SimulationOptions options;
  options.t_end = t_end;
  options.strategy = strategy;
  options.sliding = sliding;
  options.rtol = 1e-10;
  options.atol = 1e-12;
  const Model<double> model = filippov_model();
  testing::Collector<double> collector(&o.out, /*keep_samples=*/true);
  Simulator<double> simulator(model, options);
  try {
    o.result = simulator.run(&collector);
  } catch (const std::exception& e) {
    o.error = e.what();
  }
  return o;
}

class Sliding : public ::testing::TestWithParam<std::string> {};

TEST_P(Sliding, EquivalentDynamicsMatchClosedForm) {
  const Outcome o = run_filippov(GetParam(), true);
  ASSERT_EQ(o.error, "");
  // gamma places the entry within h_min = 1e-6 s of t1; the others to rounding.
  const double entry = GetParam() == "gamma" ? 1e-6 : 1e-14;
  const double t1 = 2 - std::sqrt(2.0);
  // Rows: pos -> neg (boundary), neg -> pos (sliding) at t1; then the end of sliding at 2.
  ASSERT_EQ(o.out.rows.size(), 3u);
  EXPECT_EQ(o.out.rows[0].kind, TransitionClass::kBoundary);
  EXPECT_EQ(o.out.rows[1].kind, TransitionClass::kSliding);
  EXPECT_NEAR(o.out.rows[0].t, t1, entry);
  EXPECT_EQ(o.out.rows[2].guard, "end_of_sliding");
  EXPECT_EQ(o.out.rows[2].to, 0);
  EXPECT_NEAR(o.out.rows[2].t, 2.0, 1e-12);
  // On the surface the state stays at x = 0 (no drift), between t1 and 2.
  double drift = 0;
  for (const auto& s : o.out.samples) {
    if (s.t > t1 + 1e-6 && s.t < 2 - 1e-9) drift = std::max(drift, std::abs(s.x[0]));
  }
  EXPECT_LT(drift, 1e-15);
  // After it: x = (t - 2)^2 / 4.
  EXPECT_EQ(o.result.mode, 0);
  EXPECT_NEAR(o.result.x[0], 0.25, 1e-9);
  std::cout << "[" << GetParam() << "] sliding " << o.out.rows[1].t << " .. " << o.out.rows[2].t
            << " (exact 2, error " << o.out.rows[2].t - 2 << "), drift " << drift << ", events "
            << o.result.stats.events << ", x(3) - 1/4 = " << o.result.x[0] - 0.25 << "\n";
}

INSTANTIATE_TEST_SUITE_P(Strategies, Sliding,
                         ::testing::Values("bisection", "illinois", "itp", "gamma", "gamma-refine", "sampled"));

// Without the equivalent dynamics the two modes chatter at the minimum step (16 ulps of t):
// the run spends its whole event budget (1,000 here) within microseconds of t1.
TEST(SlidingOff, ChattersAtTheMinimumStep) {
  const Outcome on = run_filippov("gamma-refine", true, 1.0);
  ASSERT_EQ(on.error, "");
  EXPECT_EQ(on.result.stats.events, 1);
  EXPECT_EQ(on.result.reason, RunReason::kReachedEnd);

  Outcome off;
  SimulationOptions options;
  options.t_end = 1.0;
  options.sliding = false;
  options.event_limit = 1000;
  const Model<double> model = filippov_model();
  testing::Collector<double> collector(&off.out, /*keep_samples=*/false);
  Simulator<double> simulator(model, options);
  off.result = simulator.run(&collector);
  EXPECT_EQ(off.result.reason, RunReason::kEventLimit);
  EXPECT_LT(off.result.t, 2 - std::sqrt(2.0) + 1e-6);
  std::cout << "sliding on: " << on.result.stats.events << " event to t = 1; off: " << off.result.stats.events
            << " events reach only t = " << off.result.t << "\n";
}

// With the default event budget the chattering would take 10 million events; the run fails
// instead once stall_events events in a row each moved t by at most 64 ulps, and says where.
TEST(SlidingOff, ChatteringAtTheTimeResolutionIsNoProgress) {
  SimulationOptions options;
  options.t_end = 1.0;
  options.sliding = false;
  options.stall_events = 500;
  const Model<double> model = filippov_model();
  Simulator<double> simulator(model, options);
  const RunResult<double> result = simulator.run(nullptr);
  ASSERT_TRUE(result.failed()) << result.message;
  EXPECT_TRUE(testing::contains(result.message, "makes no progress")) << result.message;
  EXPECT_TRUE(testing::contains(result.message, "guard 'x")) << result.message;
  EXPECT_TRUE(testing::contains(result.message, "501 events in a row")) << result.message;
  EXPECT_LE(result.stats.events, 502);
  EXPECT_NEAR(result.t, 2 - std::sqrt(2.0), 1e-9);  // chattering where x reaches 0
  std::cout << result.message << "\n";
}

}  // namespace
}  // namespace hysim
