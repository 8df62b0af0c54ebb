// Components (core/components.hpp): parallel parts with their own modes, guards and resets,
// whose global mode is never enumerated, against closed forms.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <exception>
#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "hysim/core/components.hpp"
#include "hysim/core/model.hpp"
#include "hysim/lang/build.hpp"
#include "hysim/lang/native.hpp"
#include "hysim/lang/spec.hpp"
#include "hysim/lang/syntax.hpp"
#include "hysim/peers/peers.hpp"
#include "hysim/simulator.hpp"

namespace hysim {
namespace {

// Room i: T_i' = -k_i T_i + 30 k_i q_i (outside at 0; heating to an equilibrium of 30 when
// on), thermostat with hysteresis: off -> on at T <= 18, on -> off at T >= 22. From T = 20,
// off: it reaches 18 at ln(20/18)/k, then heats for ln(12/8)/k, cools for ln(22/18)/k, ...
constexpr double kLow = 18, kHigh = 22, kHeat = 30;

Model<double> rooms(const std::vector<double>& k, bool counted) {
  Model<double> model;
  model.name = "rooms";
  const std::size_t n = k.size();
  for (std::size_t i = 0; i < n; ++i) {
    model.state_names.push_back("T" + std::to_string(i));
    model.x0.push_back(20.0);
  }
  if (counted) {
    model.state_names.push_back("switched_on");
    model.x0.push_back(0.0);
  }
  const std::size_t q = model.state_names.size();  // the components' states follow
  model.add_mode("building", [k, n, q](double, const double* x, double* dxdt) {
    for (std::size_t i = 0; i < n; ++i) dxdt[i] = -k[i] * x[i] + kHeat * k[i] * x[q + i];
    if (q > n) dxdt[n] = 0;
  });
  std::vector<Component<double>> thermostats;
  for (std::size_t i = 0; i < n; ++i) {
    Component<double> c;
    c.name = "room" + std::to_string(i);
    c.modes = {"off", "on"};
    ComponentTransition<double> on{"heat_on", "off", "on",
                                   Guard<double>::atom("T - 18", [i](double, const double* x) { return x[i] - kLow; },
                                                       Relation::kLessEqual,
                                                       [i](double, const double*, const double* f) { return f[i]; }),
                                   {}};
    if (counted) on.reset = [n](double, const double* x, double* x_plus) { x_plus[n] = x[n] + 1; };
    ComponentTransition<double> off{"heat_off", "on", "off",
                                    Guard<double>::atom("T - 22", [i](double, const double* x) { return x[i] - kHigh; },
                                                        Relation::kGreaterEqual,
                                                        [i](double, const double*, const double* f) { return f[i]; }),
                                    {}};
    c.transitions = {on, off};
    thermostats.push_back(std::move(c));
  }
  EXPECT_EQ(add_components(model, std::move(thermostats)), q);
  model.finalize();
  return model;
}

// The switching times of a room of rate k up to t_end.
std::vector<long double> switchings(double k, double t_end) {
  std::vector<long double> times;
  long double t = std::log(20.0L / 18.0L) / k;
  const long double heating = std::log(12.0L / 8.0L) / k, cooling = std::log(22.0L / 18.0L) / k;
  for (bool on = true; t <= t_end; on = !on) {
    times.push_back(t);
    t += on ? heating : cooling;
  }
  return times;
}

struct Records final : public Observer<double> {
  struct Row {
    double t;
    std::string guard;
    std::vector<double> post;
  };
  std::vector<Row> rows;
  void on_event(const EventRecord<double>& r) override {
    rows.push_back({r.t, std::string(r.guard), {r.x_post.begin(), r.x_post.end()}});
  }
};

RunResult<double> run(const Model<double>& model, double t_end, Records* records, const std::string& strategy = {}) {
  SimulationOptions options;
  if (!strategy.empty()) options.strategy = strategy;
  options.t_end = t_end;
  options.rtol = 1e-11;
  options.atol = 1e-11;
  Simulator<double> simulator(model, options);
  return simulator.run(records);
}

void expect_thermostats(const std::string& strategy, double tolerance) {
  constexpr std::size_t n = 40;
  std::vector<double> k(n);
  for (std::size_t i = 0; i < n; ++i) k[i] = 0.5 + std::fmod(0.6180339887 * double(i + 1), 1.0);
  const Model<double> model = rooms(k, true);
  ASSERT_EQ(model.modes.size(), 1u);  // 2^40 global modes, none enumerated
  constexpr double t_end = 6;
  Records records;
  const RunResult<double> result = run(model, t_end, &records, strategy);
  ASSERT_EQ(result.reason, RunReason::kReachedEnd) << result.message;
  std::vector<std::vector<double>> seen(n);
  std::size_t switched_on = 0;
  for (const auto& row : records.rows) {
    const std::size_t dot = row.guard.find('.');
    const std::size_t i = std::stoul(row.guard.substr(4, dot - 4));
    const bool on = row.guard.substr(dot + 1) == "heat_on";
    switched_on += on;
    EXPECT_EQ(row.post[n + 1 + i], on ? 1.0 : 0.0) << row.guard;
    seen[i].push_back(row.t);
  }
  std::size_t expected_on = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const auto exact = switchings(k[i], t_end);
    ASSERT_EQ(seen[i].size(), exact.size()) << "room " << i;
    for (std::size_t e = 0; e < exact.size(); ++e) {
      EXPECT_NEAR(seen[i][e], static_cast<double>(exact[e]), tolerance) << "room " << i << " switch " << e;
      expected_on += e % 2 == 0;
    }
  }
  EXPECT_EQ(switched_on, expected_on);
  EXPECT_EQ(result.x[n], static_cast<double>(expected_on));  // the counter, reset by every heat_on
}

TEST(Components, FortyThermostatsSwitchAtTheirClosedFormTimes) { expect_thermostats("", 1e-9); }

// Without the gamma rule the steps are longer and the integrator's global error larger: 1.04e-9
// s at room 20's 28th switch (measured), 3e-9 allowed.
TEST(Components, ThermostatsUnderTheBisectionStrategy) { expect_thermostats("bisection", 3e-9); }

#if HYSIM_HAVE_CVODE
// CVODE locates each root to its own tolerance.
TEST(Components, ThermostatsUnderCvode) {
  register_peers();
  expect_thermostats("cvode", 1e-7);
}
#endif

// Two identical rooms switch at the same instants: both transitions are taken at each, one
// after the other within the event, and each is recorded.
TEST(Components, TwoComponentsSwitchingTogetherBothSwitch) {
  const Model<double> model = rooms({1.0, 1.0}, false);
  Records records;
  const RunResult<double> result = run(model, 1.0, &records);
  ASSERT_EQ(result.reason, RunReason::kReachedEnd) << result.message;
  const auto exact = switchings(1.0, 1.0);  // on, off, on
  ASSERT_EQ(exact.size(), 3u);
  ASSERT_EQ(records.rows.size(), 6u);
  for (std::size_t e = 0; e < 6; ++e) {
    const auto& row = records.rows[e];
    EXPECT_NEAR(row.t, static_cast<double>(exact[e / 2]), 1e-9) << row.guard;
    EXPECT_EQ(row.guard, std::string(e % 2 == 0 ? "room0." : "room1.") + (e / 2 == 1 ? "heat_off" : "heat_on"));
  }
  EXPECT_EQ(records.rows[0].t, records.rows[1].t);  // one instant, both components
  EXPECT_EQ(result.x[2], 1.0);
  EXPECT_EQ(result.x[3], 1.0);
}

// The rooms as a model file: a component block per room, native code and the tape.
std::string rooms_file(const std::vector<double>& k) {
  std::string text = "model rooms\nstate switched_on = 0\n";
  for (std::size_t i = 0; i < k.size(); ++i) {
    char rate[64];
    std::snprintf(rate, sizeof rate, "%.17g", k[i]);
    const std::string t = "T" + std::to_string(i), ki = std::string("(") + rate + ")";
    text += "state " + t + " = 20\n";
    text += "component room" + std::to_string(i) + " {\n  mode off { der(" + t + ") = -" + ki + "*" + t + " }\n" +
            "  mode on { der(" + t + ") = -" + ki + "*" + t + " + 30*" + ki + " }\n" +
            "  off -> on heat_on [" + t + " <= 18] { switched_on := switched_on + 1 }\n" +
            "  on -> off heat_off [" + t + " >= 22]\n}\n";
  }
  return text + "mode building { der(switched_on) = 0 }\n";
}

TEST(Components, ComponentBlocksOfAModelFileSwitchAtTheClosedFormTimes) {
  constexpr std::size_t n = 12;
  std::vector<double> k(n);
  for (std::size_t i = 0; i < n; ++i) k[i] = 0.5 + std::fmod(0.6180339887 * double(i + 1), 1.0);
  const std::string text = rooms_file(k);
  const auto spec = std::make_shared<const lang::ModelSpec>(lang::compile_text("rooms.hym", text));
  ASSERT_EQ(spec->modes.size(), 1u);
  ASSERT_EQ(spec->states.size(), 1 + 2 * n);  // switched_on, T_i, then the components' modes
  EXPECT_EQ(spec->transitions.size(), 2 * n);
  // Printed and read again, the file gives the same model.
  const lang::ModelSpec again = lang::compile_text("printed.hym", lang::print(lang::parse(lang::SourceText("rooms.hym", text))));
  EXPECT_EQ(again.graph.size(), spec->graph.size());
  EXPECT_EQ(again.transitions.size(), spec->transitions.size());
  constexpr double t_end = 6;
  for (const auto backend : {lang::NativeOptions::Backend::kNative, lang::NativeOptions::Backend::kTape}) {
    lang::NativeOptions options = lang::NativeOptions::from_environment();
    options.backend = backend;
    std::string used;
    const ModelEntry entry = lang::model_entry(spec, options, &used);
    const Model<double> model = entry.make<double>(entry.default_values());
    Records records;
    const RunResult<double> result = run(model, t_end, &records);
    ASSERT_EQ(result.reason, RunReason::kReachedEnd) << result.message;
    std::vector<std::vector<double>> seen(n);
    for (const auto& row : records.rows) seen[std::stoul(row.guard.substr(4, row.guard.find('.') - 4))].push_back(row.t);
    std::size_t on = 0;
    for (std::size_t i = 0; i < n; ++i) {
      const auto exact = switchings(k[i], t_end);
      ASSERT_EQ(seen[i].size(), exact.size()) << used << " room " << i;
      for (std::size_t e = 0; e < exact.size(); ++e) {
        EXPECT_NEAR(seen[i][e], static_cast<double>(exact[e]), 1e-9) << used << " room " << i << " switch " << e;
        on += e % 2 == 0;
      }
      EXPECT_EQ(result.x[1 + n + i], exact.size() % 2 == 1 ? 1.0 : 0.0) << used << " room " << i << " at the end";
    }
    EXPECT_EQ(result.x[0], static_cast<double>(on)) << used;
  }
}

std::string compile_error(const std::string& text);

// A bouncing ball (e = 1/2, from h = 1) and a thermostat, two components: the ball's impacts
// accumulate at t_inf = t_1 (1 + e)/(1 - e), t_1 = sqrt(2/g), among the room's switches
// (at 0.105, 0.51, 0.71, 1.12 and 1.32 h, the last 0.03 before t_inf); the ball's own Zeno
// watch sees it, the ball rests from t_inf on, and the room switches on at its closed-form
// times.
TEST(Components, OneComponentsZenoAmongAnothersEventsContinuesIt) {
  constexpr double g = 9.81, e = 0.5;
  Model<double> model;
  model.name = "ball-and-room";
  model.state_names = {"h", "v", "T"};
  model.x0 = {1.0, 0.0, 20.0};
  model.add_mode("world", [](double, const double* x, double* dxdt) {
    const bool flying = x[3] == 0, heating = x[4] == 1;
    dxdt[0] = flying ? x[1] : 0;
    dxdt[1] = flying ? -g : 0;
    dxdt[2] = -x[2] + (heating ? kHeat : 0);
  });
  Component<double> ball;
  ball.name = "ball";
  ball.modes = {"flight", "rest"};
  ball.transitions.push_back(
      {"bounce", "flight", "flight",
       Guard<double>::atom("h", [](double, const double* x) { return x[0]; }, Relation::kLessEqual,
                           [](double, const double*, const double* f) { return f[0]; }) &&
           Guard<double>::atom("v", [](double, const double* x) { return x[1]; }, Relation::kLess,
                               [](double, const double*, const double* f) { return f[1]; }),
       [](double, const double* x, double* x_plus) { x_plus[1] = -e * x[1]; }});
  ball.zeno_mode = "rest";
  ball.zeno_reset = [](double, const double*, double* x_plus) { x_plus[0] = x_plus[1] = 0; };
  Component<double> room;
  room.name = "room";
  room.modes = {"off", "on"};
  room.transitions.push_back({"heat_on", "off", "on", Guard<double>::atom("T", [](double, const double* x) { return x[2] - kLow; },
                                                                          Relation::kLessEqual), {}});
  room.transitions.push_back({"heat_off", "on", "off", Guard<double>::atom("T", [](double, const double* x) { return x[2] - kHigh; },
                                                                           Relation::kGreaterEqual), {}});
  add_components(model, {ball, room});
  model.finalize();
  Records records;
  const RunResult<double> result = run(model, 3.0, &records);
  ASSERT_EQ(result.reason, RunReason::kReachedEnd) << result.message;
  const double t_inf = std::sqrt(2 / g) * (1 + e) / (1 - e);
  std::vector<double> room_times;
  std::size_t rests = 0;
  for (const auto& row : records.rows) {
    if (row.guard == "ball.zeno") {
      ++rests;
      EXPECT_NEAR(row.t, t_inf, 1e-8);
      EXPECT_EQ(row.post[3], 1.0);  // at rest
    }
    if (row.guard.rfind("room.", 0) == 0) room_times.push_back(row.t);
  }
  EXPECT_EQ(rests, 1u);
  EXPECT_TRUE(result.zeno_detected);
  EXPECT_EQ(result.x[0], 0.0);
  const auto exact = switchings(1.0, 3.0);
  ASSERT_EQ(room_times.size(), exact.size());
  for (std::size_t k = 0; k < exact.size(); ++k) EXPECT_NEAR(room_times[k], static_cast<double>(exact[k]), 1e-9) << k;
}

// The same as a model file: the ball's `zeno -> rest { ... }` in its component block.
TEST(Components, AComponentBlocksZenoContinuation) {
  const std::string text =
      "model ball_and_room\nstate h = 1, v = 0, T = 20\nmode world { der(T) = 0 }\n"
      "component ball {\n  mode flight { der(h) = v; der(v) = -9.81 }\n  mode rest { der(h) = 0; der(v) = 0 }\n"
      "  flight -> flight bounce [h <= 0 && v < 0] { v := -0.5*v }\n  zeno -> rest { h := 0; v := 0 }\n}\n"
      "component room {\n  mode off { der(T) = -T }\n  mode on { der(T) = -T + 30 }\n"
      "  off -> on heat_on [T <= 18]\n  on -> off heat_off [T >= 22]\n}\n";
  // der(T) is the room's: the model's own mode may not give it.
  EXPECT_NE(compile_error(text).find("takes its derivative from component 'room'"), std::string::npos);
  std::string fixed = text;
  fixed.replace(fixed.find("mode world { der(T) = 0 }"), 25, "mode world { }");
  const auto spec = std::make_shared<const lang::ModelSpec>(lang::compile_text("ball.hym", fixed));
  const lang::ModelSpec again = lang::compile_text("printed.hym", lang::print(lang::parse(lang::SourceText("ball.hym", fixed))));
  EXPECT_EQ(again.graph.size(), spec->graph.size());
  const ModelEntry entry = lang::model_entry(spec);
  const Model<double> model = entry.make<double>(entry.default_values());
  Records records;
  const RunResult<double> result = run(model, 3.0, &records);
  ASSERT_EQ(result.reason, RunReason::kReachedEnd) << result.message;
  const double t_inf = std::sqrt(2 / 9.81) * 3;
  std::size_t rests = 0, room_switches = 0;
  for (const auto& row : records.rows) {
    if (row.guard == "ball.zeno") {
      ++rests;
      EXPECT_NEAR(row.t, t_inf, 1e-8);
    }
    room_switches += row.guard.rfind("room.", 0) == 0;
  }
  EXPECT_EQ(rests, 1u);
  EXPECT_EQ(room_switches, switchings(1.0, 3.0).size());
  EXPECT_EQ(result.x[3], 1.0);  // the ball at rest
  EXPECT_EQ(result.x[0], 0.0);
}

// The message of the error compiling `text` gives ("" when it compiles).
std::string compile_error(const std::string& text) {
  try {
    (void)lang::compile_text("bad.hym", text);
  } catch (const std::exception& e) {
    return e.what();
  }
  return "";
}

TEST(Components, MistakesInAComponentAreErrorsAtTheirPlace) {
  const std::string head = "model m\nstate x = 1, y = 1\nmode g { der(y) = 0 }\n";
  EXPECT_NE(compile_error(head + "component c {\n  mode a { der(x) = 1 }\n  mode b { der(x) = -1 }\n  a -> z go [x > 2]\n}\n")
                .find("bad.hym:7:8: error: component 'c' has no mode 'z'"), std::string::npos);
  EXPECT_NE(compile_error(head + "component c {\n  mode a { der(x) = 1 }\n  mode b { der(y) = -1 }\n}\n")
                .find("gives no derivative for state 'x'"), std::string::npos);
  EXPECT_NE(compile_error("model m\nstate x = 1\nmode g { der(x) = 0 }\ncomponent c {\n  mode a { der(x) = 1 }\n}\n")
                .find("state 'x' takes its derivative from component 'c'"), std::string::npos);
  EXPECT_NE(compile_error(head + "component c {\n  mode a { der(x) = 1 }\n}\ncomponent d {\n  mode a { der(x) = 2 }\n}\n")
                .find("which component 'c' gives"), std::string::npos);
  EXPECT_NE(compile_error(head + "component c {\n  mode a { der(x) = 1 }\n  a -> a go [x > 2] { c := 0 }\n}\n")
                .find("the mode of its component"), std::string::npos);
  EXPECT_NE(compile_error(head + "component x {\n  mode a { der(y) = 1 }\n}\n").find("'x'"), std::string::npos);
  EXPECT_NE(compile_error(head + "component c {\n  mode a { der(x) = 1 }\n  initial b\n}\n")
                .find("component 'c' has no mode 'b'"), std::string::npos);
  EXPECT_NE(compile_error(head + "component c {\n  mode a { der(x) = 1 }\n  state z = 1\n}\n")
                .find("expected, in component c"), std::string::npos);
  std::string many = head + "component c {\n";  // the choice among its modes is bounded as expressions are
  for (int m = 0; m < 4100; ++m) many += "  mode m" + std::to_string(m) + " { der(x) = 1 }\n";
  EXPECT_NE(compile_error(many + "}\n").find("among too many modes"), std::string::npos);
}

TEST(Components, BadComponentsAreModelErrors) {
  Model<double> model;
  model.name = "bad";
  model.state_names = {"x"};
  model.x0 = {1.0};
  model.add_mode("m", [](double, const double*, double* dxdt) { dxdt[0] = 0; });
  Component<double> c;
  c.name = "c";
  c.modes = {"a", "b"};
  c.transitions.push_back({"go", "a", "nowhere", Guard<double>::atom("x", [](double, const double* x) { return x[0]; },
                                                                     Relation::kLess), {}});
  try {
    add_components(model, {c});
    FAIL() << "no error";
  } catch (const ModelError& e) {
    EXPECT_NE(std::string(e.what()).find("'nowhere' is none of its modes"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace hysim
