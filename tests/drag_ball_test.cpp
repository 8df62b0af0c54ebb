// The bouncing ball with linear drag (models/drag_ball.cpp) against its reference: impact
// times are roots of a transcendental equation, found in 100-digit arithmetic. Checked here
// against the closed form written out again independently, against the first-order expansion
// in a small drag rate, and against the engine at tight tolerances; and the engine's Zeno
// detection of the accumulating impacts (pinnacles: flight -> impact -> flight) against the
// accumulation time computed from the reference.
#include <gtest/gtest.h>

#include <boost/multiprecision/cpp_bin_float.hpp>

#include <algorithm>
#include <cmath>
#include <iomanip>
#include <iostream>
#include <string>

#include "hysim/core/errors.hpp"
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
    EXPECT_EQ(event.from, "flight");
    EXPECT_EQ(event.to, "impact");  // the event's first row; the chain rebounds into flight
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
// within 1e-9 s of the reference and velocities within 1e-9 m/s. Each impact is two rows at
// one t: flight -> impact (a pinnacle: algebraic, the velocity jumps), then impact -> flight
// by "rebound" (interior); the reference lists the first.
TYPED_TEST(DragBallEngineTest, TightToleranceReproducesTheReference) {
  using S = TypeParam;
  const Model<S> model = testing::catalog_model<S>("drag-ball");
  SimulationOptions options;
  options.t_end = kTEnd;
  options.rtol = 1e-12;
  options.atol = 1e-14;
  const auto run = testing::collect(model, options);
  const Reference reference = testing::catalog_reference("drag-ball", kTEnd);
  ASSERT_EQ(run.rows.size(), 2 * reference.events.size());
  for (std::size_t k = 0; k < reference.events.size(); ++k) {
    const auto& impact = run.rows[2 * k];
    const auto& rebound = run.rows[2 * k + 1];
    EXPECT_EQ(impact.guard, "impact") << "impact " << k + 1;
    EXPECT_EQ(impact.kind, TransitionClass::kPinnacle) << "impact " << k + 1;
    EXPECT_EQ(rebound.guard, "rebound") << "impact " << k + 1;
    EXPECT_EQ(rebound.kind, TransitionClass::kInterior) << "impact " << k + 1;
    EXPECT_EQ(rebound.index, impact.index);
    EXPECT_EQ(rebound.t, impact.t);
    EXPECT_EQ(rebound.x_pre, impact.x_post);
    EXPECT_GT(impact.x_post[1], S(0));  // the ball leaves upward
  }
  const auto errors = testing::compare_with_reference(model, run, reference);
  EXPECT_LT(errors.max_dt, 1e-9L);
  EXPECT_LT(errors.max_dx, 1e-9L);
  std::cout << "[drag-ball " << scalar_name(scalar_kind_of<S>()) << ", dopri5 rtol 1e-12 atol 1e-14] "
            << run.rows.size() / 2 << " of " << reference.events.size() << " impacts, max |t - t*| = "
            << static_cast<double>(errors.max_dt) << " s, max |x - x*| = " << static_cast<double>(errors.max_dx) << "\n";
}

// Loose tolerances, as a user's first try (atol 1e-6, rtol 1e-3 to 1e-6), under every adaptive
// solver and two locating strategies: the 6 impacts of (0, 6], no other event, each within
// 25 rtol seconds of the reference (measured worst: ndf 10.7 rtol, rkf78 6.8, dop853 6.4, bs3
// 5.6, cashkarp54 2.5, rosenbrock4 2.4, dopri5 1.5). rkf78 and cashkarp54 take steps far longer
// than their Hermite dense output can follow (rkf78: order 8 steps, an order-5 interpolant);
// before the dense output's defect was checked (solvers/odeint_steppers.cpp), rkf78 at rtol
// 1e-3 put the second impact 0.24 s late from one 1.8 s step across the whole flight, and found
// 4 of the 14 impacts of (0, 6.9]; with the defect read without the coupling of height and
// speed over the step, 45 rtol.
TEST(DragBallLooseTolerances, EveryAdaptiveSolverFindsEveryImpact) {
  const Model<double> model = testing::catalog_model<double>("drag-ball");
  const double t_end = 6.0;
  const Reference reference = testing::catalog_reference("drag-ball", t_end);
  ASSERT_EQ(reference.events.size(), 6u);
  for (const char* solver : {"dopri5", "bs3", "cashkarp54", "rkf78", "dop853", "rosenbrock4", "ndf"}) {
    double worst = 0;  // max |t - t*| / rtol over the strategies and tolerances
    for (const char* strategy : {"gamma-refine", "bisection"}) {
      for (const double rtol : {1e-3, 1e-4, 1e-5, 1e-6}) {
        SCOPED_TRACE(std::string(solver) + ", " + strategy + ", rtol " + std::to_string(rtol));
        SimulationOptions options;
        options.t_end = t_end;
        options.solver = solver;
        options.strategy = strategy;
        options.rtol = rtol;
        options.atol = 1e-6;
        const auto run = testing::collect(model, options);
        const auto errors = testing::compare_with_reference(model, run, reference);
        EXPECT_LE(static_cast<double>(errors.max_dt), 25 * rtol);
        worst = std::max(worst, static_cast<double>(errors.max_dt) / rtol);
      }
    }
    std::cout << "[drag-ball loose] " << solver << ": worst max |t - t*| / rtol = " << worst << "\n";
  }
}

// The dense output itself at rtol 1e-3, atol 1e-6, where rkf78 and cashkarp54 take a whole
// flight in one or two steps: every sample on a 1 ms grid (the interpolant between the steps)
// against the closed form of its flight from the run's own state after the impact before it,
// so that only the flight's own error counts (its steps and its interpolant, not the impacts
// before). |y - y*| stays within the tolerance scale atol + rtol * 10 m (10 m the drop height;
// measured 6.4e-4 m rkf78, 6.9e-4 m cashkarp54). Before the defect check weighed the coupling
// of height and speed over a step (solvers/odeint_steppers.cpp), rkf78's height strayed
// 5.2e-2 m mid-flight.
TEST(DragBallLooseTolerances, DenseOutputKeepsTheToleranceWithinEachFlight) {
  const Model<double> model = testing::catalog_model<double>("drag-ball");
  const double g = 9.81, c = 0.5;
  for (const char* solver : {"rkf78", "cashkarp54"}) {
    SCOPED_TRACE(solver);
    SimulationOptions options;
    options.t_end = 6.0;
    options.solver = solver;
    options.rtol = 1e-3;
    options.atol = 1e-6;
    options.output_step = "1e-3";
    const auto run = testing::collect(model, options, true);
    double t_s = 0, y_s = 10, v_s = 0, worst = 0;
    std::size_t next_event = 0;
    for (const auto& sample : run.samples) {
      while (next_event < run.rows.size() && run.rows[next_event].t <= sample.t) {
        t_s = run.rows[next_event].t;
        y_s = run.rows[next_event].x_post[0];
        v_s = run.rows[next_event].x_post[1];
        ++next_event;
      }
      const double tau = sample.t - t_s;
      const double y = y_s - g / c * tau - (v_s + g / c) * std::expm1(-c * tau) / c;
      worst = std::max(worst, std::abs(sample.x[0] - y));
    }
    EXPECT_GT(run.samples.size(), 6000u);
    EXPECT_LE(worst, 1e-6 + 1e-3 * 10);
    std::cout << "[drag-ball dense output, rtol 1e-3] " << solver << ": max |y - y*| within a flight = " << worst
              << " m\n";
  }
}

// The accumulation time, computed without the engine: the reference's impacts up to the last
// it keeps (for t_end = 10, impact 62 at 7.0879908 s, whose upward speed afterwards is
// u = e |v_62| = 4.3e-6 m/s), then the remaining infinitely many flights summed with the
// first-order expansion in the drag of SmallDragMatchesFirstOrderExpansion: a bounce leaving
// at u lasts (2u/g)(1 - c u/(3g)) and lands at u (1 - 2 c u/(3g)). The neglected terms are
// relative (c u/g)^2 <= 5e-14 of a tail of 4.4e-6 s, 2e-19 s; summed in 100 digits down to
// flights below 1e-40 s (the rest of the geometric tail, < 1e-39 s, is dropped). Result:
// 7.087995213531703 s (a float128 run at rtol 1e-20 gives t_zeno = 7.0879952135317029).
Real accumulation_time() {
  const Reference reference = testing::catalog_reference("drag-ball", 10);
  const Real g("9.81"), c("0.5"), e("0.8");
  Real t(reference.events.back().t);
  Real speed = -Real(reference.events.back().x[1]);
  const Real smallest("1e-40");
  for (;;) {
    const Real u = e * speed;
    const Real flight = 2 * u / g * (1 - c * u / (3 * g));
    if (flight < smallest) return t;
    t += flight;
    speed = u * (1 - 2 * c * u / (3 * g));
  }
}

// Zeno: the impacts are pinnacles, so the engine sees them accumulate. At the tolerances of the
// previous test and t_end = 10, it declares Zeno once the intervals between impacts shrink
// geometrically (near the end the drag hardly matters and their ratio is e to within
// c u/g ~ 1e-10) and less than zeno_horizon = 1e-9 s remains, estimates t_inf and rests on the
// floor (y = v = 0) to t = 10. The bound on |t_zeno - t_inf| is zeno_horizon, 1e-9 s: the
// detector extrapolates over at most that much of the sequence, and the engine's impact times
// must be good to better than that for the declaration to be sound. Measured: 4.7e-11 s in
// double, long double and float128 alike, which is the error of the impact times themselves
// at rtol 1e-12 (`hysim compare drag-ball --t-end 10 --rtol 1e-12 --atol 1e-14`: up to
// 4.7e-11 s over the reference's 62); the extrapolation over the last < 1e-9 s adds ~1e-14 s
// at most (a ratio taken from times known to an ulp). 101 events: 100 impacts and the `zeno` row.
TYPED_TEST(DragBallEngineTest, ZenoAccumulationThenRest) {
  using S = TypeParam;
  const Model<S> model = testing::catalog_model<S>("drag-ball");
  SimulationOptions options;
  options.t_end = 10;
  options.rtol = 1e-12;
  options.atol = 1e-14;
  RunResult<S> result;
  const auto run = testing::collect(model, options, false, &result);
  const Real t_inf = accumulation_time();
  testing::expect_at_rest_after_zeno(model, result, run, 10.0, "rest");
  const Real error = Real(static_cast<float128>(result.t_zeno)) - t_inf;
  EXPECT_LT(abs(error), Real("1e-9"));
  std::cout << "[drag-ball " << scalar_name(scalar_kind_of<S>()) << ", dopri5 rtol 1e-12 atol 1e-14] Zeno at t = "
            << std::setprecision(17) << static_cast<double>(result.t_zeno) << " (from the reference "
            << static_cast<double>(t_inf) << std::setprecision(6) << ", error " << static_cast<double>(error)
            << " s) after " << result.stats.events << " events; at rest to t = 10\n";
}

// The same at the default tolerances (rtol 1e-6, atol 1e-9), in double: Zeno is declared and
// the run rests to t = 10, but t_zeno carries the error of the impact times, which grows over
// the slow late bounces to 2.4e-6 s by impact 62 (`hysim compare drag-ball --t-end 10`);
// measured 2.35e-6 s; bound 1e-5 s.
TEST(DragBallZeno, DefaultTolerances) {
  const Model<double> model = testing::catalog_model<double>("drag-ball");
  SimulationOptions options;
  options.t_end = 10;
  RunResult<double> result;
  testing::collect(model, options, false, &result);
  ASSERT_TRUE(result.zeno_detected) << result.message;
  const double error = result.t_zeno - static_cast<double>(accumulation_time());
  EXPECT_LT(std::fabs(error), 1e-5);
  EXPECT_EQ(result.reason, RunReason::kReachedEnd);
  EXPECT_EQ(result.t, 10.0);
  EXPECT_EQ(model.modes[static_cast<std::size_t>(result.mode)].name, "rest");
  std::cout << "[drag-ball double, defaults] Zeno at t = " << std::setprecision(17) << result.t_zeno
            << std::setprecision(6) << ", error " << error << " s, after " << result.stats.events << " events\n";
}

}  // namespace
}  // namespace hysim
