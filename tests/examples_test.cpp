// The user examples (examples/*.hym) against their closed forms, computed here independently
// of the engine: the thermostat's exponential relaxations, the relay loop's linear flows
// (switching times by bracketed Newton in binary128), the two tanks' linear levels.
#include <gtest/gtest.h>

#include <boost/multiprecision/float128.hpp>
#include <cmath>
#include <numbers>
#include <string>
#include <vector>

#include "hysim/lang/build.hpp"
#include "test_support.hpp"
#include "source_dir.hpp"

namespace hysim {
namespace {

using boost::multiprecision::exp;
using boost::multiprecision::log;

std::string example(const std::string& name) { return testing::source_dir() + "/examples/" + name; }

// The event times and the mode entered at each, from a run of the file in double with tight
// tolerances.
struct ExampleRun {
  std::vector<double> t;
  std::vector<std::string> to;
  std::vector<std::vector<double>> x;
};

ExampleRun run(const std::string& file, double t_end, const std::vector<std::pair<std::string, std::string>>& params = {}) {
  const ModelEntry entry = lang::load_model_file(example(file));
  ParameterValues values = entry.default_values();
  for (const auto& [k, v] : params) values.set(k, v);
  const Model<double> model = entry.make<double>(values);
  SimulationOptions options;
  options.t_end = t_end;
  options.rtol = 1e-12;
  options.atol = 1e-12;
  const auto collected = testing::collect(model, options);
  ExampleRun out;
  for (const auto& row : collected.rows) {
    out.t.push_back(row.t);
    out.to.push_back(model.modes[static_cast<std::size_t>(row.to)].name);
    out.x.push_back(row.x_pre);
  }
  return out;
}

TEST(Examples, ThermostatSwitchesAtItsClosedFormTimes) {
  const float128 k = float128("0.1"), T_a = 5, q = 3, T_low = 19, T_high = 21;
  const float128 T_on = T_a + q / k;  // equilibrium with the heater on
  // From T0 = 20 (off): cool to T_low, then heat to T_high and cool to T_low, periodically.
  const float128 first = log((float128(20) - T_a) / (T_low - T_a)) / k;
  const float128 heat = log((T_low - T_on) / (T_high - T_on)) / k;
  const float128 cool = log((T_high - T_a) / (T_low - T_a)) / k;
  const ExampleRun r = run("thermostat.hym", 60.0);
  ASSERT_GE(r.t.size(), 40u);
  float128 t = first;
  for (std::size_t i = 0; i < r.t.size(); ++i) {
    EXPECT_NEAR(r.t[i], static_cast<double>(t), 1e-9) << "event " << i + 1;
    EXPECT_EQ(r.to[i], i % 2 == 0 ? "on" : "off");
    EXPECT_NEAR(r.x[i][0], i % 2 == 0 ? 19.0 : 21.0, 1e-9);
    t += i % 2 == 0 ? heat : cool;
  }
}

// y(t) = u + ((y0 - u) + (z0 - u) t) e^-t, z(t) = u + (z0 - u) e^-t in a mode with input u.
struct Lag {
  float128 y0, z0, u;
  float128 y(const float128& t) const { return u + ((y0 - u) + (z0 - u) * t) * exp(-t); }
  float128 dy(const float128& t) const { return ((z0 - u) - ((y0 - u) + (z0 - u) * t)) * exp(-t); }
  float128 z(const float128& t) const { return u + (z0 - u) * exp(-t); }
};

// The first t > 0 with y(t) = level, crossing in the direction `rising`: a scan brackets it,
// then Newton with bisection safeguards converges in binary128.
float128 first_crossing(const Lag& lag, const float128& level, bool rising) {
  float128 a = 0;
  const float128 h = float128("0.001");
  while ((lag.y(a + h) - level) * (rising ? 1 : -1) < 0) a += h;
  float128 b = a + h;
  float128 t = (a + b) / 2;
  for (int i = 0; i < 200; ++i) {
    const float128 f = lag.y(t) - level;
    if ((f < 0) == rising) a = t; else b = t;
    float128 next = t - f / lag.dy(t);
    if (!(next > a && next < b)) next = (a + b) / 2;
    if (next == t) break;
    t = next;
  }
  return t;
}

TEST(Examples, RelayFeedbackSwitchesAtTheRootsOfItsClosedForm) {
  const float128 d = 1, eps = float128("0.1");
  const ExampleRun r = run("relay-feedback.hym", 30.0);
  ASSERT_GE(r.t.size(), 10u);
  Lag lag{0, 0, d};
  float128 t0 = 0;
  for (std::size_t i = 0; i < r.t.size(); ++i) {
    const bool rising = lag.u > 0;  // +d drives y up to +eps, -d down to -eps
    const float128 dt = first_crossing(lag, rising ? eps : -eps, rising);
    EXPECT_NEAR(r.t[i], static_cast<double>(t0 + dt), 1e-9) << "event " << i + 1;
    EXPECT_EQ(r.to[i], rising ? "minus" : "plus");
    lag = Lag{lag.y(dt), lag.z(dt), -lag.u};
    t0 += dt;
  }
}

TEST(Examples, TwoTankIntervalsGrowByRho) {
  const float128 w = float128("2.5"), v1 = 1, v2 = 1, r1 = 1, r2 = 1;
  const ExampleRun r = run("two-tank.hym", 60.0);
  ASSERT_GE(r.t.size(), 5u);
  // Exact piecewise-linear levels, switched at the thresholds.
  float128 t = 0, x1 = 2, x2 = float128("1.5");
  bool fill1 = true;
  for (std::size_t i = 0; i < r.t.size(); ++i) {
    const float128 dt = fill1 ? (x2 - r2) / v2 : (x1 - r1) / v1;
    x1 += (fill1 ? w - v1 : -v1) * dt;
    x2 += (fill1 ? -v2 : w - v2) * dt;
    t += dt;
    EXPECT_NEAR(r.t[i], static_cast<double>(t), 1e-9 * static_cast<double>(t)) << "event " << i + 1;
    EXPECT_EQ(r.to[i], fill1 ? "fill2" : "fill1");
    fill1 = !fill1;
  }
}

TEST(Examples, TwoTankRefusesTheZenoCaseItCannotRun) {
  const ModelEntry entry = lang::load_model_file(example("two-tank.hym"));
  ParameterValues values = entry.default_values();
  values.set("w", "1.5");  // rho = 0.25
  EXPECT_THROW((void)entry.make<double>(values), InvalidArgument);
}

// Two coupled relays slide on y = 0 and then on the corner x = y = 0 (codimension 2), under
// every strategy of the engine's loop: the corner is reached at t2 = t1 + (x0 - (1 - a) t1)/(1 -
// a b), t1 = y0/(1 - b), and z, whose rate is 2, then 1 + b, then 1 with Dieci and Lopez's
// bilinear weights (alpha = beta = 1/2), ends at z(3) = 2 t1 + (1 + b)(t2 - t1) + (3 - t2)
// = 27/7. It stalled at t2 ("10001 events in a row") before the corner slid.
TEST(Examples, TwoRelaysSlideOnTheCornerOfTheirSurfaces) {
  const double a = 0.5, b = 0.25, x0 = 1, y0 = 0.5;
  const double t1 = y0 / (1 - b), t2 = t1 + (x0 - (1 - a) * t1) / (1 - a * b);
  const double z3 = 2 * t1 + (1 + b) * (t2 - t1) + (3 - t2);
  EXPECT_NEAR(z3, 27.0 / 7.0, 1e-15);
  const ModelEntry entry = lang::load_model_file(example("two-relays.hym"));
  const Model<double> model = entry.make<double>(entry.default_values());
  for (const std::string strategy : {"gamma-refine", "bisection", "illinois", "itp", "gamma", "double-sided", "sampled"}) {
    SimulationOptions options;
    options.t_end = 3;
    options.strategy = strategy;
    RunResult<double> result;
    const auto run = testing::collect(model, options, false, &result);
    EXPECT_EQ(result.reason, RunReason::kReachedEnd) << strategy << ": " << result.report();
    EXPECT_LE(result.stats.events, 5) << strategy;
    ASSERT_FALSE(run.rows.empty()) << strategy;
    const double tolerance = strategy == "gamma" ? 1e-5 : 1e-12;  // gamma: h_min
    EXPECT_NEAR(run.rows.front().t, t1, tolerance) << strategy;
    EXPECT_NEAR(run.rows.back().t, t2, tolerance) << strategy;
    EXPECT_NEAR(result.x[2], z3, tolerance) << strategy;
    EXPECT_EQ(result.x[0], 0.0) << strategy;
    EXPECT_EQ(result.x[1], 0.0) << strategy;
  }
}

// A forcing u = u_amp sin(2 t) on x moves the bilinear weights: E[sign x] = u/(1 - a b) on the
// corner, which is left where |u| rises through 1 - a b, at t = (asin((1 - a b)/u_amp) + k pi)/2,
// into sliding on y = 0, and found again later. Over [0, 10] s, each exit of the corner is at
// such an instant, to 1e-9 s.
TEST(Examples, TwoRelaysLeaveTheCornerWhereTheWeightsLeaveTheSquare) {
  const double a = 0.5, b = 0.25, u_amp = 0.95;
  const double first = std::asin((1 - a * b) / u_amp) / 2;
  const ModelEntry entry = lang::load_model_file(example("two-relays.hym"));
  ParameterValues values = entry.default_values();
  values.set("u_amp", "0.95");
  const Model<double> model = entry.make<double>(values);
  SimulationOptions options;
  options.t_end = 10;
  options.rtol = 1e-10;
  options.atol = 1e-14;
  RunResult<double> result;
  const auto run = testing::collect(model, options, false, &result);
  EXPECT_EQ(result.reason, RunReason::kReachedEnd) << result.report();
  EXPECT_LT(result.stats.events, 100);
  std::vector<double> exits;
  for (const auto& row : run.rows) {
    const bool corner = std::fabs(row.x_pre[0]) < 1e-9 && std::fabs(row.x_pre[1]) < 1e-9;
    if (row.guard == "end_of_sliding" && corner && (exits.empty() || row.t > exits.back())) exits.push_back(row.t);
  }
  ASSERT_EQ(exits.size(), 4u);
  for (std::size_t k = 0; k < exits.size(); ++k) {
    const double expected = first + static_cast<double>(k + 2) * std::numbers::pi / 2;
    EXPECT_NEAR(exits[k], expected, 1e-9) << k;
  }
}

// Three thermostats as components: each room switches at its closed-form times (binary128),
// whatever the others do, and `starts` counts every heating start.
TEST(Examples, RoomsSwitchEachAtItsClosedFormTimes) {
  const float128 k[3] = {float128(1), float128("0.7"), float128("0.45")};
  constexpr double t_end = 10;
  const ModelEntry entry = lang::load_model_file(example("rooms.hym"));
  const Model<double> model = entry.make<double>(entry.default_values());
  ASSERT_EQ(model.modes.size(), 1u);
  const auto collected = testing::collect(model, [] {
    SimulationOptions options;
    options.t_end = t_end;
    options.rtol = 1e-12;
    options.atol = 1e-12;
    return options;
  }());
  std::size_t starts = 0;
  for (int i = 0; i < 3; ++i) {
    const std::string name = "room" + std::to_string(i + 1) + ".";
    std::vector<double> times;
    for (const auto& row : collected.rows) {
      if (row.guard.rfind(name, 0) == 0) times.push_back(row.t);
    }
    float128 t = log(float128(20) / 18) / k[i];
    const float128 heat = log(float128(12) / 8) / k[i], cool = log(float128(22) / 18) / k[i];
    std::size_t e = 0;
    for (bool on = true; t <= t_end; on = !on, ++e) {
      ASSERT_LT(e, times.size()) << name;
      EXPECT_NEAR(times[e], static_cast<double>(t), 1e-9) << name << e;
      starts += on;
      t += on ? heat : cool;
    }
    EXPECT_EQ(times.size(), e) << name;
  }
  ASSERT_FALSE(collected.rows.empty());
  EXPECT_EQ(collected.rows.back().x_post[3], static_cast<double>(starts));
}

}  // namespace
}  // namespace hysim
