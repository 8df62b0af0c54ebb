// The cam follower (003, Figs. 1, 10, 11; models/cam_follower.hpp): with eps = 0 and sliding
// handling on it rides the cam as a sliding mode, with two events per revolution at the
// closed-form separation and landing times; with sliding handling off and a fixed step it
// chatters (Fig. 10, left); with eps > 0 it bounces (Fig. 11) at the closed-form landing
// times, the bounces accumulate (Zeno) and it rides again. The closed form is the model's
// 100-digit reference, which the last test checks against the equations of motion.
#include <gtest/gtest.h>

#include <boost/math/constants/constants.hpp>
#include <boost/multiprecision/cpp_bin_float.hpp>

#include <cmath>
#include <iostream>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "hysim/models/cam_follower.hpp"
#include "test_support.hpp"

namespace hysim {
namespace {

using Real = boost::multiprecision::cpp_bin_float_100;
using Params = std::vector<std::pair<std::string, std::string>>;

ParameterValues cam_values(const Params& params) {
  ParameterValues values = cam_follower_entry().default_values();
  for (const auto& [key, value] : params) values.set(key, value);
  return values;
}

template <class S>
Model<S> cam_model(const Params& params = {}) {
  return cam_follower_entry().make<S>(cam_values(params));
}

Reference cam_reference(double t_end, const Params& params = {}) {
  return cam_follower_entry().reference(cam_values(params), t_end);
}

using Run = testing::Collected<double>;
using Events = std::vector<const Run::Row*>;

// The first row of each event (a chain at one time is one event), after t = 0.
Events events_after_start(const Run& run) {
  Events events;
  std::int64_t last = -1;
  for (const auto& row : run.rows) {
    if (row.index == last) continue;
    last = row.index;
    if (row.t > 0) events.push_back(&row);
  }
  return events;
}

// Events per revolution (T = 1 s for n = 1): counts over (r, r + 1], r = 0 .. revolutions - 1.
std::vector<int> per_revolution(const Events& events, int revolutions) {
  std::vector<int> counts(static_cast<std::size_t>(revolutions), 0);
  for (const auto* e : events) {
    const auto r = static_cast<std::size_t>(std::ceil(e->t) - 1);
    if (r < counts.size()) ++counts[r];
  }
  return counts;
}

// Rows (transitions: modes visited at events) per revolution, after t = 0.
std::vector<int> rows_per_revolution(const Run& run, int revolutions) {
  Events rows;
  for (const auto& row : run.rows) {
    if (row.t > 0) rows.push_back(&row);
  }
  return per_revolution(rows, revolutions);
}

std::string counts_text(const std::vector<int>& counts) {
  std::string out;
  for (int c : counts) out += (out.empty() ? "" : ", ") + std::to_string(c);
  return out;
}

// Each reference event against the run event with the same guard nearest in time: the
// largest |t - t*|; a reference event without one counts as infinity.
long double worst_time_error(const Events& events, const Reference& reference, std::size_t count) {
  long double worst = 0;
  for (std::size_t i = 0; i < count && i < reference.events.size(); ++i) {
    const ReferenceEvent& ref = reference.events[i];
    long double best = INFINITY;
    for (const auto* e : events) {
      if (e->guard != ref.guard) continue;
      best = std::min(best, static_cast<long double>(abs(static_cast<float128>(e->t) - ref.t)));
    }
    worst = std::max(worst, best);
  }
  return worst;
}

constexpr int kRevolutions = 5;

// (a) eps = 0, sliding handling on (default strategy and solver, tight tolerances): after the
// start the follower separates where N = 0 (Omega t = asin(rho), 58 deg), lands at 186 deg
// and rides the cam as a sliding mode until the next revolution: exactly 2 events per
// revolution, each within 1e-9 s of the closed form.
TEST(CamFollower, RidesTheCamWithSlidingOn) {
  SimulationOptions options;
  options.t_end = kRevolutions;
  options.rtol = 1e-10;
  options.atol = 1e-12;
  options.event_limit = 1000;  // a run that chattered would stop here
  const Model<double> model = cam_model<double>();
  RunResult<double> result;
  const auto run = testing::collect(model, options, false, &result);
  const auto events = events_after_start(run);
  const auto counts = per_revolution(events, kRevolutions);
  const Reference reference = cam_reference(options.t_end);
  ASSERT_EQ(reference.events.size(), 2u * kRevolutions);
  for (int c : counts) EXPECT_EQ(c, 2);
  const long double dt = worst_time_error(events, reference, reference.events.size());
  EXPECT_LT(dt, 1e-9L);
  std::map<std::string, int> classes;
  for (const auto& row : run.rows) ++classes[model.modes[static_cast<std::size_t>(row.to)].name + " " + transition_class_name(row.kind)];
  std::cout << "[cam-follower eps = 0, sliding on] events per revolution: " << counts_text(counts)
            << "; transitions (rows) per revolution: " << counts_text(rows_per_revolution(run, kRevolutions)) << " ("
            << run.rows.size() << " rows in all, " << result.stats.steps_accepted << " steps); max |t - t*| = "
            << static_cast<double>(dt) << " s; rows by arrival and class:";
  for (const auto& [key, n] : classes) std::cout << " [" << key << "] " << n;
  std::cout << "\n";
}

// (a) at the default tolerances, over 10 revolutions: the riding phase is integrated exactly
// (u = z = 0 along the equivalent field), so nothing limits the integrator's steps, and the
// separation, where the cam's reaction N(t) turns negative for 64 degrees, is a sign change
// of a sliding rate that a long step can hold whole (it missed every separation after the
// first revolution before the rates were predicted to second order). Every strategy caps each
// sliding step by the first root of that prediction (gamma's factor, or 1.5 by default), and
// sampled also checks interior points: each finds all 20 events, with dopri5 and with
// rosenbrock4 (whose steps along the exact sliding motion grew to 0.31 s and held the whole
// first separation, 58 to 122 degrees: every step-end strategy missed it before the default
// cap).
class CamFollowerDefaultTolerances : public ::testing::TestWithParam<std::string> {};

void finds_every_separation_after_riding(const std::string& strategy, const std::string& solver) {
  constexpr int kLong = 10;
  SimulationOptions options;
  options.strategy = strategy;
  options.solver = solver;
  options.t_end = kLong;
  options.event_limit = 1000;
  const Model<double> model = cam_model<double>();
  const auto run = testing::collect(model, options);
  const auto events = events_after_start(run);
  const auto counts = per_revolution(events, kLong);
  for (int c : counts) EXPECT_EQ(c, 2) << counts_text(counts);
  const Reference reference = cam_reference(options.t_end);
  ASSERT_EQ(reference.events.size(), 2u * kLong);
  ASSERT_EQ(events.size(), reference.events.size());
  const long double dt = worst_time_error(events, reference, reference.events.size());
  EXPECT_LT(dt, options.strategy == "gamma" ? 1e-5L : 1e-7L);  // the landings carry the flight's rtol = 1e-6
  std::cout << "[cam-follower eps = 0, " << options.strategy << ", " << solver << ", default tolerances, " << kLong
            << " revolutions] events per revolution: " << counts_text(counts) << "; max |t - t*| = "
            << static_cast<double>(dt) << " s\n";
}

TEST_P(CamFollowerDefaultTolerances, FindsEverySeparationAfterRiding) {
  finds_every_separation_after_riding(GetParam(), "dopri5");
}

TEST_P(CamFollowerDefaultTolerances, FindsEverySeparationAfterRidingWithRosenbrock4) {
  finds_every_separation_after_riding(GetParam(), "rosenbrock4");
}

INSTANTIATE_TEST_SUITE_P(LookAhead, CamFollowerDefaultTolerances,
                         ::testing::Values("gamma-refine", "gamma", "sampled", "bisection", "illinois", "itp",
                                           "double-sided"),
                         [](const ::testing::TestParamInfo<std::string>& param_info) {
                           std::string name = param_info.param;
                           for (char& ch : name) ch = ch == '-' ? '_' : ch;
                           return name;
                         });

// (a) eps = 0, sliding handling off, a fixed-step rule interpreter (strategy step, rk4 with
// h = 1 ms, chattering at the same step): the follower chatters between contact and free
// over each riding phase, 003's Fig. 10, left: the velocities alternately differ (a step in
// contact raises u by h N/m) and are made equal by an inelastic collision (strike + impact).
// Measured: events per revolution, against 2 with sliding handling.
TEST(CamFollower, ChattersWithSlidingOff) {
  SimulationOptions options;
  options.t_end = kRevolutions;
  options.sliding = false;
  options.strategy = "step";
  options.solver = "rk4";
  options.fixed_step = 1e-3;
  options.min_step = 1e-3;
  const Model<double> model = cam_model<double>();
  RunResult<double> result;
  const auto run = testing::collect(model, options, false, &result);
  const auto events = events_after_start(run);
  const auto counts = per_revolution(events, kRevolutions);
  int impacts = 0;
  for (const auto& row : run.rows) impacts += row.to == kCamImpact ? 1 : 0;
  for (int c : counts) EXPECT_GT(c, 50);
  std::cout << "[cam-follower eps = 0, sliding off, step/rk4 h = 1 ms] events per revolution: " << counts_text(counts)
            << "; transitions (rows) per revolution: " << counts_text(rows_per_revolution(run, kRevolutions)) << " (" << run.rows.size() << " rows, " << impacts << " impacts, " << result.stats.steps_accepted
            << " steps)\n";
}

// (b) eps = 0.6: after the separation the follower lands at the closed-form time and
// bounces; the first 8 landings are within 1e-9 s of the closed form, the rebound keeps
// u+ = -eps u-, the bounces accumulate (Zeno) within 1e-9 s of the accumulation time that
// the closed form's last bounces predict (t_k + d_k r/(1 - r), d_k the last flight, r the
// last ratio of flights, both below 1e-5 s), the follower rides, and the next separation
// happens one revolution after the first, within 1e-9 s.
TEST(CamFollower, BouncesWithRestitution) {
  SimulationOptions options;
  options.t_end = 2;
  options.rtol = 1e-10;
  options.atol = 1e-12;
  options.event_limit = 1000;
  const Params params = {{"eps", "0.6"}};
  const Model<double> model = cam_model<double>(params);
  RunResult<double> result;
  const auto run = testing::collect(model, options, false, &result);
  const auto events = events_after_start(run);
  const Reference reference = cam_reference(options.t_end, params);
  ASSERT_GE(reference.events.size(), 9u);
  EXPECT_EQ(reference.events[0].guard, "lift");
  const long double dt = worst_time_error(events, reference, 9);
  EXPECT_LT(dt, 1e-9L);
  for (const auto& row : run.rows) {
    if (row.to == kCamImpact) {
      EXPECT_EQ(row.x_post[kCamU], -0.6 * row.x_pre[kCamU]);
    }
  }
  EXPECT_TRUE(result.zeno_detected);
  const auto& ref = reference.events;
  ASSERT_EQ(ref.back().guard, "touch");
  const std::size_t last = ref.size() - 1;
  const Real d = Real(ref[last].t) - Real(ref[last - 1].t), d_prev = Real(ref[last - 1].t) - Real(ref[last - 2].t);
  const Real r = d / d_prev;
  ASSERT_LT(d, Real("1e-5"));
  const double t_inf = static_cast<double>(Real(ref[last].t) + d * r / (1 - r));
  const Run::Row* zeno = nullptr;
  for (const auto& row : run.rows) {
    if (row.guard == "zeno" && zeno == nullptr) zeno = &row;
  }
  ASSERT_NE(zeno, nullptr);
  EXPECT_EQ(zeno->to, kCamContact);
  EXPECT_LT(std::fabs(zeno->t - t_inf), 1e-9);
  const double T = 1.0;
  const double t_lift = static_cast<double>(reference.events[0].t);
  int lifts = 0;
  for (const auto* e : events) {
    if (e->guard == "lift" && std::fabs(e->t - (t_lift + T)) < 1e-9) ++lifts;
  }
  EXPECT_EQ(lifts, 1) << "the second separation at " << t_lift + T;
  std::cout << "[cam-follower eps = 0.6] " << events.size() << " events, first 9 within " << static_cast<double>(dt)
            << " s of the closed form; first Zeno accumulation at t = " << format_scalar(zeno->t) << " (closed form "
            << format_scalar(t_inf) << ", |dt| = " << std::fabs(zeno->t - t_inf) << " s, flight ratio "
            << static_cast<double>(r) << "); " << result.message << "\n";
}

// The reference against the equations of motion, in 100 digits: N = 0 at each separation
// (N = F0 - (m Omega^2 - k) e sin(Omega t)); between a separation or rebound and the next
// landing the harmonic flight y = -F0/k + A cos(w tau) + B sin(w tau) meets the cam
// (|y - c| < 1e-60) with the recorded relative velocity, and stays above it at 1000 points.
TEST(CamFollower, ReferenceSatisfiesTheEquationsOfMotion) {
  for (const char* eps_text : {"0", "0.6"}) {
    const Reference reference = cam_reference(3, {{"eps", eps_text}});
    const Real m = 1, k = 10, F0("2.5"), e("0.1"), Omega = boost::math::constants::two_pi<Real>(), eps(eps_text);
    const Real w = sqrt(k / m);
    auto c = [&](const Real& t) { return e * sin(Omega * t); };
    auto dc = [&](const Real& t) { return e * Omega * cos(Omega * t); };
    Real t0 = 0, y0 = 0, v0 = 0;
    Real worst = 0;
    for (const ReferenceEvent& event : reference.events) {
      const Real t(event.t);
      if (event.guard == "lift") {
        const Real N = F0 - (m * Omega * Omega - k) * e * sin(Omega * t);
        EXPECT_LT(abs(N), Real("1e-30")) << "separation at " << static_cast<double>(t);
        t0 = t;
        y0 = c(t);
        v0 = dc(t);
        continue;
      }
      ASSERT_EQ(event.guard, "touch");
      const Real A = y0 + F0 / k, B = v0 / w;
      auto y = [&](const Real& tau) { return -F0 / k + A * cos(w * tau) + B * sin(w * tau); };
      const Real tau = t - t0;
      const Real gap = y(tau) - c(t);
      // float128 rounding of t: |gap| up to |u| ulp(t) ~ 1e-35.
      worst = std::max(worst, abs(gap));
      EXPECT_LT(abs(gap), Real("1e-32"));
      const Real u = -A * w * sin(w * tau) + B * w * cos(w * tau) - dc(t);
      EXPECT_LT(abs(u - Real(event.x[kCamU])), Real("1e-30"));
      for (int i = 1; i < 1000; ++i) {
        const Real s = tau * i / 1000;
        EXPECT_GT(y(s) - c(t0 + s), 0) << "the flight from " << static_cast<double>(t0) << " crosses the cam earlier";
      }
      t0 = t;
      y0 = c(t);
      v0 = dc(t) - eps * u;
    }
    std::cout << "[cam-follower reference eps = " << eps_text << "] " << reference.events.size()
              << " events in (0, 3]; max |gap| at the landings " << static_cast<double>(worst) << " m\n";
  }
}

}  // namespace
}  // namespace hysim
