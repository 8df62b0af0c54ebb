// The user examples (examples/*.hym) against their closed forms, computed here independently
// of the engine: the thermostat's exponential relaxations, the relay loop's linear flows
// (switching times by bracketed Newton in binary128), the two tanks' linear levels.
#include <gtest/gtest.h>

#include <boost/multiprecision/float128.hpp>
#include <cmath>
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

}  // namespace
}  // namespace hysim
