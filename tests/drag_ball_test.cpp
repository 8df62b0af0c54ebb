// The bouncing ball with linear drag (models/drag_ball.cpp) against its reference: impact
// times are roots of a transcendental equation, found in 100-digit arithmetic. Checked here
// against the closed form written out again independently, against the first-order expansion
// in a small drag rate, and against the engine at tight tolerances.
#include <gtest/gtest.h>

#include <boost/multiprecision/cpp_bin_float.hpp>

#include <cmath>
#include <iostream>

#include "core/errors.hpp"
#include "reference_support.hpp"

namespace hysim {
namespace {

using Real = boost::multiprecision::cpp_bin_float_100;

// t_end of the comparisons: 14 impacts, well before the accumulation at 7.0880 s.
constexpr double kTEnd = 6.9;

// Height and velocity of a drag flight started at (y_s, v_s), tau later (the closed form).
struct DragFlight {
  Real g, c, y_s, v_s;
  Real y(const Real& tau) const {
    const Real terminal = g / c;
    return y_s - terminal * tau + (v_s + terminal) * (1 - exp(-c * tau)) / c;
  }
  Real v(const Real& tau) const { return (v_s + g / c) * exp(-c * tau) - g / c; }
};

// Each reference impact, replayed from the previous one (the ball leaves at -e v_impact), is
// a zero of the closed-form height evaluated in 100-digit arithmetic, and its velocity is the
// closed-form velocity there; residuals are at float128 rounding (the reference's times and
// states are float128). The defaults give 14 impacts in (0, 6.9].
TEST(DragBallReference, ImpactsAreZerosOfTheClosedForm) {
  const Reference reference = testing::catalog_reference("drag-ball", kTEnd);
  ASSERT_EQ(reference.events.size(), 14u);
  const Real g("9.81"), c("0.5"), e("0.8");
  Real t_start = 0, y_s = 10, v_s = 0;
  Real worst_y = 0, worst_v = 0;
  for (std::size_t k = 0; k < reference.events.size(); ++k) {
    const ReferenceEvent& event = reference.events[k];
    EXPECT_EQ(event.guard, "impact");
    ASSERT_EQ(event.x.size(), 2u);
    EXPECT_EQ(event.x[0], 0);
    EXPECT_LT(event.x[1], 0);
    const DragFlight flight{g, c, y_s, v_s};
    const Real tau = Real(event.t) - t_start;
    EXPECT_GT(tau, 0);
    const Real y_residual = abs(flight.y(tau));
    const Real v_residual = abs(flight.v(tau) - Real(event.x[1]));
    worst_y = std::max(worst_y, y_residual);
    worst_v = std::max(worst_v, v_residual);
    EXPECT_LT(y_residual, Real("1e-30")) << "impact " << k + 1;
    EXPECT_LT(v_residual, Real("1e-30")) << "impact " << k + 1;
    t_start = Real(event.t);
    y_s = 0;
    v_s = -e * Real(event.x[1]);
  }
  std::cout << "[drag-ball reference] 14 impacts in (0, 6.9]: max |y(t*)| = " << static_cast<double>(worst_y)
            << " m, max |v(t*) - v*| = " << static_cast<double>(worst_v) << " m/s (closed form, 100 digits)\n";
}

// For a small drag rate c the impacts follow the drag-free ball corrected to first order in c:
// a drop from rest lands at T0 (1 + c T0 / 6) with speed g T0 (1 - c T0 / 3), T0 = sqrt(2 y0 / g);
// a bounce leaving at speed u lasts (2u/g)(1 - c u / (3g)) and lands with speed
// u (1 - 2 c u / (3g)). With c = 1e-6 the first-order terms are ~1e-6 relative and the
// neglected ones ~1e-12: the reference must agree to 1e-10 relative over 5 impacts.
TEST(DragBallReference, SmallDragMatchesFirstOrderExpansion) {
  const Reference reference = testing::catalog_reference("drag-ball", 20, {{"c", "0.000001"}});
  ASSERT_GE(reference.events.size(), 5u);
  const long double g = 9.81L, c = 1e-6L, e = 0.8L, y0 = 10;
  const long double t0 = std::sqrt(2 * y0 / g);
  long double t = t0 * (1 + c * t0 / 6);
  long double speed = g * t0 * (1 - c * t0 / 3);
  long double worst_t = 0, worst_v = 0, first_order = 0;
  for (std::size_t k = 0; k < 5; ++k) {
    const ReferenceEvent& event = reference.events[k];
    const long double dt = std::fabs(static_cast<long double>(event.t) - t) / t;
    const long double dv = std::fabs(static_cast<long double>(-event.x[1]) - speed) / speed;
    worst_t = std::max(worst_t, dt);
    worst_v = std::max(worst_v, dv);
    EXPECT_LT(dt, 1e-10L) << "impact " << k + 1;
    EXPECT_LT(dv, 1e-10L) << "impact " << k + 1;
    const long double u = e * speed;  // the next bounce
    t += 2 * u / g * (1 - c * u / (3 * g));
    speed = u * (1 - 2 * c * u / (3 * g));
  }
  // The first-order term is resolved: the drag-free first impact sqrt(2 y0/g) is off by c T0^2/6.
  first_order = std::fabs(static_cast<long double>(reference.events[0].t) - t0);
  EXPECT_GT(first_order, 1e-3L * c * t0 * t0 / 6);
  std::cout << "[drag-ball reference c = 1e-6] first 5 impacts vs first-order expansion: max relative |dt| = "
            << static_cast<double>(worst_t) << ", |dv| = " << static_cast<double>(worst_v)
            << "; drag shifts impact 1 by " << static_cast<double>(first_order) << " s\n";
}

// The impacts accumulate (Zeno) at t = 7.0880 s: asked for t_end = 10, the reference stops
// before the first flight shorter than 1e-6 s (after 62 impacts) and says so.
TEST(DragBallReference, StopsBeforeTheZenoAccumulation) {
  const Reference reference = testing::catalog_reference("drag-ball", 10);
  ASSERT_EQ(reference.events.size(), 62u);
  EXPECT_TRUE(testing::contains(reference.method, "Zeno"));
  const auto& events = reference.events;
  const float128 last_flight = events[61].t - events[60].t;
  EXPECT_GE(last_flight, float128("1e-6"));
  EXPECT_LT(events.back().t, float128("7.0880"));
  std::cout << "[drag-ball reference t_end = 10] " << events.size() << " impacts, last at t = "
            << static_cast<double>(events.back().t) << " s after a flight of " << static_cast<double>(last_flight)
            << " s; " << reference.method << "\n";
  EXPECT_THROW(testing::catalog_reference("drag-ball", 5, {{"c", "0"}}), InvalidArgument);
  EXPECT_THROW(testing::catalog_reference("drag-ball", 5, {{"y0", "0"}}), InvalidArgument);
}

template <class S>
class DragBallEngineTest : public ::testing::Test {};
using Scalars = ::testing::Types<double, long double, float128>;
TYPED_TEST_SUITE(DragBallEngineTest, Scalars);

// Consistency with the engine: dopri5 at rtol 1e-12 (atol 1e-14, so that the slow late
// bounces are held to the relative tolerance too) finds the 14 impacts of (0, 6.9], times
// within 1e-9 s of the reference and velocities within 1e-9 m/s.
TYPED_TEST(DragBallEngineTest, TightToleranceReproducesTheReference) {
  using S = TypeParam;
  const Model<S> model = testing::catalog_model<S>("drag-ball");
  SimulationOptions options;
  options.t_end = kTEnd;
  options.rtol = 1e-12;
  options.atol = 1e-14;
  const auto run = testing::collect(model, options);
  const Reference reference = testing::catalog_reference("drag-ball", kTEnd);
  const auto errors = testing::compare_with_reference(model, run, reference);
  EXPECT_LT(errors.max_dt, 1e-9L);
  EXPECT_LT(errors.max_dx, 1e-9L);
  std::cout << "[drag-ball " << scalar_name(scalar_kind_of<S>()) << ", dopri5 rtol 1e-12 atol 1e-14] "
            << run.rows.size() << " of " << reference.events.size() << " impacts, max |t - t*| = "
            << static_cast<double>(errors.max_dt) << " s, max |x - x*| = " << static_cast<double>(errors.max_dx) << "\n";
}

}  // namespace
}  // namespace hysim
