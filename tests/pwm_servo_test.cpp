// The PWM servo drive of 004 against the project's exact reference
// (models/pwm_servo_exact.hpp: every event time is a root of a linear or quadratic equation,
// computed with 100 significant digits).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <iomanip>
#include <iostream>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "hysim/models/pwm_servo.hpp"
#include "hysim/models/pwm_servo_exact.hpp"
#include "test_support.hpp"

namespace hysim {
namespace {

using reference::Real;

template <class S>
long double as_long_double(const S& v) {
  return static_cast<long double>(v);
}

// No guard of `mode` fires at (t, x): the pre-event state satisfies the mode being left.
template <class S>
bool satisfies_mode(const Model<S>& model, int mode, S t, const std::vector<S>& x) {
  for (const auto& tr : model.modes[static_cast<std::size_t>(mode)].transitions) {
    const auto& atoms = tr.guard.atoms();
    const bool fires = tr.guard.evaluate([&](int i) {
      const auto& a = atoms[static_cast<std::size_t>(i)];
      return relation_holds(a.relation, a.e(t, x.data()));
    });
    if (fires) return false;
  }
  return true;
}

// Over [0, 5] s (100 events) with Dormand-Prince at default tolerances in double, every exact event is
// found, none is missed or spurious, times agree to 1e-14 s, omega and phi to 1e-13, and
// every event is one-sided.
TEST(PwmServo, MatchesExactReferenceOverFiveSeconds) {
  // The saw reset at t = 5 lies on the end of the interval; running a little past it makes
  // it an event like the others (events exactly at t_end are the subject of their own test).
  const Model<double> model = testing::catalog_model<double>("pwm-servo");
  SimulationOptions options;
  options.t_end = 5.01;
  RunResult<double> result;
  auto run = testing::collect(model, options, false, &result);
  const auto exact = reference::pwm_servo_exact_events(reference::PwmServoParameters{}, Real(5));
  ASSERT_EQ(exact.size(), 100u);
  const std::size_t after_five = reference::pwm_servo_exact_events(reference::PwmServoParameters{}, Real("5.01")).size();
  ASSERT_EQ(run.rows.size(), after_five) << "missed or spurious events";
  run.rows.resize(exact.size());  // keep [0, 5]
  long double worst_t = 0, worst_omega = 0, worst_phi = 0;
  for (std::size_t i = 0; i < exact.size(); ++i) {
    const auto& row = run.rows[i];
    const auto& ref = exact[i];
    EXPECT_EQ(row.from, ref.from) << "event " << i + 1;
    EXPECT_EQ(row.to, ref.to) << "event " << i + 1;
    EXPECT_EQ(row.guard, ref.guard) << "event " << i + 1;
    EXPECT_EQ(row.kind, TransitionClass::kInterior) << "event " << i + 1;
    const long double dt = std::fabs(static_cast<long double>(row.t) - static_cast<long double>(ref.t));
    const long double domega = std::fabs(static_cast<long double>(row.x_pre[0]) - static_cast<long double>(ref.omega));
    const long double dphi = std::fabs(static_cast<long double>(row.x_pre[1]) - static_cast<long double>(ref.phi));
    worst_t = std::max(worst_t, dt);
    worst_omega = std::max(worst_omega, domega);
    worst_phi = std::max(worst_phi, dphi);
    EXPECT_LE(dt, 1e-14L) << "event " << i + 1 << " at t* = " << static_cast<double>(ref.t);
    EXPECT_LE(domega, 1e-13L) << "event " << i + 1;
    EXPECT_LE(dphi, 1e-13L) << "event " << i + 1;
    EXPECT_TRUE(satisfies_mode(model, row.from, row.t, row.x_pre)) << "event " << i + 1 << " is not one-sided";
  }
  EXPECT_EQ(result.stats.one_sided_events, result.stats.events);
  EXPECT_EQ(result.stats.events, static_cast<std::int64_t>(after_five));
  std::cout << "[pwm-servo 0..5 s] events " << exact.size() << ", max |t - t*| = " << static_cast<double>(worst_t)
            << ", max |omega - omega*| = " << static_cast<double>(worst_omega)
            << ", max |phi - phi*| = " << static_cast<double>(worst_phi) << "\n";
}

// The parameter values of the catalog's preset `tracking` (u(t) = sin t).
std::vector<std::pair<std::string, std::string>> tracking_values() {
  for (const Preset& preset : find_model("pwm-servo").presets) {
    if (preset.name == "tracking") return preset.values;
  }
  ADD_FAILURE() << "pwm-servo has no preset 'tracking'";
  return {};
}

reference::PwmServoParameters tracking_parameters() {
  reference::PwmServoParameters p;
  for (const auto& [name, value] : tracking_values()) {
    if (name == "u") p.u = Real(value);
    if (name == "u_amp") p.u_amp = Real(value);
    if (name == "u_freq") p.u_freq = Real(value);
  }
  return p;
}

// The worst |t - t*| of a run of the tracking preset over [0, 20] s in double (t_end = 20 and
// the other options as given) against the exact reference: every exact event before t = 20 is
// found in order (the first at t = 0: x = 0 there and s1 is left at once), with the same
// modes and guard, none spurious, each one-sided. The reset at t = 20 lies on t_end: a run
// may or may not record it.
double tracking_worst_time_error(const std::string& solver) {
  const Model<double> model = testing::catalog_model<double>("pwm-servo", tracking_values());
  SimulationOptions options;
  options.t_end = 20.0;
  options.solver = solver;
  RunResult<double> result;
  auto run = testing::collect(model, options, false, &result);
  auto exact = reference::pwm_servo_exact_events(tracking_parameters(), Real(20));
  EXPECT_EQ(exact.size(), 400u);
  while (!exact.empty() && exact.back().t > Real("19.999999999")) exact.pop_back();
  if (!run.rows.empty() && run.rows.back().t > 20.0 - 1e-12 && run.rows.back().guard == "saw_reset") {
    run.rows.pop_back();
  }
  EXPECT_EQ(run.rows.size(), exact.size()) << solver << ": missed or spurious events";
  long double worst = 0;
  for (std::size_t i = 0; i < std::min(run.rows.size(), exact.size()); ++i) {
    const auto& row = run.rows[i];
    const auto& ref = exact[i];
    EXPECT_EQ(row.from, ref.from) << solver << " event " << i + 1;
    EXPECT_EQ(row.to, ref.to) << solver << " event " << i + 1;
    EXPECT_EQ(row.guard, ref.guard) << solver << " event " << i + 1;
    const long double dt = std::fabs(static_cast<long double>(row.t) - static_cast<long double>(ref.t));
    worst = std::max(worst, dt);
    EXPECT_TRUE(satisfies_mode(model, row.from, row.t, row.x_pre))
        << solver << " event " << i + 1 << " is not one-sided";
  }
  EXPECT_EQ(result.stats.one_sided_events, result.stats.events) << solver;
  std::cout << "[pwm-servo tracking 0..20 s, " << solver << ", " << options.strategy << "] events " << run.rows.size()
            << " (reference " << exact.size() << " before t = 20), max |t - t*| = " << static_cast<double>(worst)
            << "\n";
  return static_cast<double>(worst);
}

// Once the servo has settled, the error and so the pulses shrink to the rounding level: a
// p2 boundary, a sliding motion on the comparator's surface that ends where it began, the
// guard back, sliding again. At kp = 0.1187687687687688 that chain ran "65 events at the
// same time" at t = 8.2 s; the motion that lasts less than the time resolution is now left
// at it, and the run goes on. Over the README's sweep of kp (1000 values in [0.05, 0.2],
// t_end = 10 s, 2 of which failed) every run reaches its end, settled at the setpoint.
TEST(PwmServo, PulsesAtTheRoundingLevelNeverStall) {
  SimulationOptions options;
  options.t_end = 10;
  const auto settles = [&](const std::string& kp) {
    const Model<double> model = testing::catalog_model<double>("pwm-servo", {{"kp", kp}});
    Simulator<double> simulator(model, options);
    const RunResult<double> result = simulator.run();
    EXPECT_EQ(result.reason, RunReason::kReachedEnd) << "kp = " << kp << ": " << result.report();
    EXPECT_NEAR(result.x[1], 1.0, 1e-9) << "kp = " << kp;  // phi at u = 1
    EXPECT_NEAR(result.x[0], 0.0, 1e-6) << "kp = " << kp;  // omega, within a pulse's kick
    return result.reason == RunReason::kReachedEnd;
  };
  EXPECT_TRUE(settles("0.1187687687687688"));
  int failed = 0;
  for (int i = 0; i < 1000; ++i) {
    std::ostringstream kp;
    kp << std::setprecision(17) << 0.05 + (0.2 - 0.05) * i / 999.0;
    failed += settles(kp.str()) ? 0 : 1;
  }
  EXPECT_EQ(failed, 0);
  std::cout << "[pwm-servo kp sweep] 1000 runs, " << failed << " failed\n";
}

// The tracking setpoint u(t) = sin t keeps the pulses far above the rounding level, so the
// whole run is comparable with the reference: under the default options (dopri5,
// gamma-refine) every event time is within 1e-14 s of the exact one; so with bs3 (measured
// 3.6e-15 and 4.1e-15; bs3 gave 2.9e-14 before steps of exact length, h = (t + h) - t).
TEST(PwmServo, TrackingPresetMatchesExactReferenceOverTwentySeconds) {
  EXPECT_LE(tracking_worst_time_error(SimulationOptions{}.solver), 1e-14);
  EXPECT_LE(tracking_worst_time_error("bs3"), 1e-14);
}

// The time of the first event at which the run's sequence departs from the exact one: a
// different transition, or a time more than 1e-9 s away.
template <class S>
double first_departure(double t_end) {
  const Model<S> model = testing::catalog_model<S>("pwm-servo");
  SimulationOptions options;
  options.t_end = t_end;
  const auto run = testing::collect(model, options);
  const auto exact = reference::pwm_servo_exact_events(reference::PwmServoParameters{}, Real(t_end));
  for (std::size_t i = 0; i < std::min(run.rows.size(), exact.size()); ++i) {
    const auto& row = run.rows[i];
    const auto& ref = exact[i];
    const long double dt = std::fabs(static_cast<long double>(row.t) - static_cast<long double>(ref.t));
    if (row.from != ref.from || row.to != ref.to || row.guard != ref.guard || dt > 1e-9L) {
      return static_cast<double>(std::min(static_cast<long double>(row.t), static_cast<long double>(ref.t)));
    }
  }
  return run.rows.size() == exact.size() ? t_end : static_cast<double>(exact[std::min(run.rows.size(), exact.size())].t);
}

// The servo converges (|x| falls about 1.5 decades per second); once |x| nears the rounding
// level, rounding decides the sign of x at a saw reset and the mode sequence departs from
// the exact one. Double departs between 7 s and 10 s; the wider types depart later.
TEST(PwmServo, DepartureFromExactSequenceComesLaterInWiderTypes) {
  const double t_end = 20.0;
  const double in_double = first_departure<double>(t_end);
  const double in_long_double = first_departure<long double>(t_end);
  const double in_float128 = first_departure<float128>(t_end);
  std::cout << "[pwm-servo 0..20 s] first departure from the exact event sequence: double " << in_double
            << " s, long double " << in_long_double << " s, float128 " << in_float128 << " s\n";
  EXPECT_GE(in_double, 7.0);
  EXPECT_LE(in_double, 10.0);
  EXPECT_GT(in_long_double, in_double);
  EXPECT_GT(in_float128, in_long_double);
}

}  // namespace
}  // namespace hysim

namespace hysim {
namespace {

// The wider scalar types locate the same 100 events over [0, 5] s to their own precision:
// max |t - t*| below 64 ulps of 5 s in the type (the reference has 100 digits).
template <class S>
long double worst_time_error_over_five_seconds() {
  const Model<S> model = testing::catalog_model<S>("pwm-servo");
  SimulationOptions options;
  options.t_end = 5.01;
  const auto run = testing::collect(model, options);
  const auto exact = reference::pwm_servo_exact_events(reference::PwmServoParameters{}, Real(5));
  EXPECT_GE(run.rows.size(), exact.size());
  Real worst = 0;
  for (std::size_t i = 0; i < std::min(run.rows.size(), exact.size()); ++i) {
    EXPECT_EQ(run.rows[i].to, exact[i].to) << "event " << i + 1;
    const Real dt = abs(Real(run.rows[i].t) - exact[i].t);
    if (dt > worst) worst = dt;
  }
  return static_cast<long double>(worst);
}

TEST(PwmServo, WiderTypesMatchExactReferenceToTheirPrecision) {
  const long double in_long_double = worst_time_error_over_five_seconds<long double>();
  const long double in_float128 = worst_time_error_over_five_seconds<float128>();
  std::cout << "[pwm-servo 0..5 s] max |t - t*|: long double " << static_cast<double>(in_long_double)
            << ", float128 " << static_cast<double>(in_float128) << "\n";
  EXPECT_LE(in_long_double, 64 * 5 * static_cast<long double>(std::numeric_limits<long double>::epsilon()));
  EXPECT_LE(in_float128, 64 * 5 * static_cast<long double>(std::numeric_limits<float128>::epsilon()));
}

}  // namespace
}  // namespace hysim
