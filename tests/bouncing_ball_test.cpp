// The bouncing ball against its closed form: t_1 = sqrt(2 y0/g), t_{k+1} = t_k + 2 e^k v_1/g,
// and the catalog's reference (models/bouncing_ball.cpp) against the same closed form.
#include <gtest/gtest.h>

#include <boost/multiprecision/cpp_bin_float.hpp>

#include <cmath>
#include <iostream>

#include "hysim/core/errors.hpp"
#include "reference_support.hpp"
#include "test_support.hpp"

namespace hysim {
namespace {

template <class S>
class BouncingBallTest : public ::testing::Test {};
using Scalars = ::testing::Types<double, long double, float128>;
TYPED_TEST_SUITE(BouncingBallTest, Scalars);

// The first 10 impact times match the closed form to 1e-12 relative in every scalar type
// (the flight is a parabola, which Dormand-Prince and its dense output reproduce exactly).
TYPED_TEST(BouncingBallTest, FirstTenImpactsMatchClosedForm) {
  using S = TypeParam;
  using std::sqrt;
  const Model<S> model = testing::catalog_model<S>("bouncing-ball");
  SimulationOptions options;
  options.t_end = 12.0;  // the 10th impact is at 11.32 s; the impacts accumulate at 12.85 s (Zeno)
  const auto run = testing::collect(model, options);
  ASSERT_GE(run.rows.size(), 20u);

  const long double g = 9.81L, e = 0.8L, y0 = 10.0L;
  const long double v1 = std::sqrt(2.0L * g * y0);
  long double t_exact = v1 / g;
  long double speed = v1;
  long double worst = 0;
  for (std::size_t k = 0; k < 10; ++k) {
    // Each impact is a chain flight -> impact (a pinnacle: algebraic, the state jumps) ->
    // flight (interior) at one time.
    const auto& row = run.rows[2 * k];
    EXPECT_EQ(row.guard, "impact");
    EXPECT_EQ(row.kind, TransitionClass::kPinnacle);
    EXPECT_EQ(run.rows[2 * k + 1].guard, "rebound");
    EXPECT_EQ(run.rows[2 * k + 1].kind, TransitionClass::kInterior);
    EXPECT_EQ(run.rows[2 * k + 1].x_pre, row.x_post);
    const long double t = static_cast<long double>(row.t);
    worst = std::max(worst, std::fabs(t - t_exact) / t_exact);
    EXPECT_LT(std::fabs(t - t_exact) / t_exact, 1e-12L) << "impact " << k + 1 << " at t = " << t;
    // One-sided: the pre-impact height is still >= 0 and the ball leaves upward.
    EXPECT_GE(row.x_pre[0], S(0));
    EXPECT_GT(row.x_post[1], S(0));
    speed *= e;
    t_exact += 2.0L * speed / g;
  }
  std::cout << "[bouncing-ball " << scalar_name(scalar_kind_of<S>()) << "] first 10 impacts: max relative time error "
            << static_cast<double>(worst) << "\n";
}

// The reference, with a thrown start (v0 = 3 up, v0 = -2 down) as well as a drop: the first
// impact solves y0 + v0 t - g t^2/2 = 0 in 100-digit arithmetic at the float128 time, its
// velocity is -sqrt(v0^2 + 2 g y0), and each later impact follows the previous one after
// 2 |v_k| e / g with velocity e v_k (the flight of a ball leaving at -e v_k).
TEST(BouncingBallReference, MatchesTheParabolaForThrownStarts) {
  using Real = boost::multiprecision::cpp_bin_float_100;
  for (const char* v0_text : {"0", "3", "-2"}) {
    const Reference reference = testing::catalog_reference("bouncing-ball", 12, {{"v0", v0_text}});
    ASSERT_GE(reference.events.size(), 10u);
    const Real g("9.81"), e("0.8"), y0(10), v0(v0_text);
    const Real t1(reference.events[0].t);
    Real worst = abs(y0 + v0 * t1 - g * t1 * t1 / 2);
    EXPECT_LT(worst, Real("1e-30")) << "v0 = " << v0_text;
    EXPECT_LT(abs(Real(reference.events[0].x[1]) + sqrt(v0 * v0 + 2 * g * y0)), Real("1e-30"));
    for (std::size_t k = 1; k < reference.events.size(); ++k) {
      const ReferenceEvent& before = reference.events[k - 1];
      const ReferenceEvent& event = reference.events[k];
      const Real leave = -e * Real(before.x[1]);  // upward speed after impact k
      const Real tau = Real(event.t) - Real(before.t);
      const Real height = leave * tau - g * tau * tau / 2;  // zero at the next impact
      worst = std::max(worst, abs(height));
      EXPECT_LT(abs(height), Real("1e-30")) << "v0 = " << v0_text << ", impact " << k + 1;
      EXPECT_LT(abs(Real(event.x[1]) + leave), Real("1e-30"));
      EXPECT_EQ(event.x[0], 0);
    }
    std::cout << "[bouncing-ball reference v0 = " << v0_text << "] " << reference.events.size()
              << " impacts in (0, 12]: max |y(t*)| = " << static_cast<double>(worst) << " m (100 digits)\n";
  }
}

// Zeno: the impacts accumulate at t_inf = t_1 + 2 e w/(g (1 - e)) = 12.8506 s. Asked for
// t_end = 20, the reference stops before the first flight shorter than 1e-9 s: flight k lasts
// 2 e^k w / g, so it keeps impacts 1 .. K + 1 with K the largest k where that is >= 1e-9.
// A ball resting on the floor has no first impact to compute: InvalidArgument.
TEST(BouncingBallReference, StopsBeforeTheZenoAccumulation) {
  const Reference reference = testing::catalog_reference("bouncing-ball", 20);
  const double w = std::sqrt(2 * 9.81 * 10);
  const auto last_k = static_cast<std::size_t>(std::floor(std::log(1e-9 * 9.81 / (2 * w)) / std::log(0.8)));
  ASSERT_EQ(reference.events.size(), last_k + 1);
  EXPECT_TRUE(testing::contains(reference.method, "Zeno"));
  const auto& events = reference.events;
  const double accumulation = std::sqrt(2 * 10 / 9.81) + 2 * 0.8 * w / (9.81 * 0.2);
  EXPECT_GE(events[last_k].t - events[last_k - 1].t, float128("1e-9"));
  EXPECT_LT(static_cast<double>(events.back().t), accumulation);
  std::cout << "[bouncing-ball reference t_end = 20] " << events.size() << " impacts, the last "
            << accumulation - static_cast<double>(events.back().t) << " s before the accumulation at "
            << accumulation << " s\n";
  EXPECT_THROW(testing::catalog_reference("bouncing-ball", 5, {{"y0", "0"}}), InvalidArgument);
  EXPECT_THROW(testing::catalog_reference("bouncing-ball", 5, {{"e", "1.5"}}), InvalidArgument);
}

// The engine against the reference, thrown upward (v0 = 3): dopri5 integrates the parabola
// exactly, so at default tolerances every impact of (0, 12] is found with |t - t*| < 1e-12 s.
TYPED_TEST(BouncingBallTest, ThrownBallMatchesReference) {
  using S = TypeParam;
  const Model<S> model = testing::catalog_model<S>("bouncing-ball", {{"v0", "3"}});
  SimulationOptions options;
  options.t_end = 12.0;
  const auto run = testing::collect(model, options);
  const Reference reference = testing::catalog_reference("bouncing-ball", options.t_end, {{"v0", "3"}});
  const auto errors = testing::compare_with_reference(model, run, reference);
  EXPECT_LT(errors.max_dt, 1e-12L);
  EXPECT_LT(errors.max_dx, 1e-11L);
  std::cout << "[bouncing-ball " << scalar_name(scalar_kind_of<S>()) << " v0 = 3] " << run.rows.size() << " of "
            << reference.events.size() << " impacts, max |t - t*| = " << static_cast<double>(errors.max_dt)
            << " s, max |x - x*| = " << static_cast<double>(errors.max_dx) << "\n";
}

// Zeno: restitution 0.8 from 10 m. The engine declares the accumulation once the
// impact intervals shrink geometrically and less than zeno_horizon = 1e-9 s remains, estimates
// t_inf within 1e-9 s of the closed form t_1 + 2 v_1 e / (g (1 - e)), and goes on at rest to
// t = 100 s with fewer than 1,000 events.
TYPED_TEST(BouncingBallTest, ZenoAccumulationThenRest) {
  using S = TypeParam;
  const Model<S> model = testing::catalog_model<S>("bouncing-ball");
  SimulationOptions options;
  options.t_end = 100.0;
  RunResult<S> result;
  const auto run = testing::collect(model, options, false, &result);
  const long double g = 9.81L, e = 0.8L, v1 = std::sqrt(2.0L * g * 10.0L);
  const long double t_inf = v1 / g + 2.0L * v1 * e / (g * (1.0L - e));
  testing::expect_at_rest_after_zeno(model, result, run, 100.0, "rest");
  const long double error = static_cast<long double>(result.t_zeno) - t_inf;
  EXPECT_LT(std::fabs(error), 1e-9L);
  std::cout << "[bouncing-ball " << scalar_name(scalar_kind_of<S>()) << "] Zeno at t = "
            << static_cast<double>(result.t_zeno) << " (exact " << static_cast<double>(t_inf) << ", error "
            << static_cast<double>(error) << " s) after " << result.stats.events << " events; at rest to t = 100\n";
}

// Without a declared continuation the run stops at the accumulation with RunReason::kZeno.
TEST(BouncingBallZeno, WithoutContinuationTheRunStops) {
  Model<double> model = testing::catalog_model<double>("bouncing-ball");
  model.zeno = {};
  SimulationOptions options;
  options.t_end = 100.0;
  RunResult<double> result;
  testing::collect(model, options, false, &result);
  EXPECT_EQ(result.reason, RunReason::kZeno);
  EXPECT_TRUE(result.zeno_detected);
  EXPECT_LT(result.t, 12.86);
  // The run ends at the last impact, in flight, on the floor and rising.
  EXPECT_EQ(model.modes[static_cast<std::size_t>(result.mode)].name, "flight");
  EXPECT_GE(result.x[0], 0.0);
  EXPECT_LT(result.x[0], 1e-12);
  EXPECT_GT(result.x[1], 0.0);
  EXPECT_TRUE(testing::contains(result.message, "Zeno accumulation")) << result.message;
  EXPECT_TRUE(testing::contains(result.message, "no continuation")) << result.message;
}

}  // namespace
}  // namespace hysim
