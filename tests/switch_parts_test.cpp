// Switch parts (core/switch_parts.hpp): each part switches, slides and leaves its surface on
// its own, against closed forms, with its modes never enumerated.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <memory>
#include <cstddef>
#include <string>
#include <vector>

#include "../bench/many_relays.hpp"
#include "hysim/core/model.hpp"
#include "hysim/core/switch_parts.hpp"
#include "hysim/lang/build.hpp"
#include "hysim/lang/native.hpp"
#include "hysim/lang/spec.hpp"
#include "hysim/lang/syntax.hpp"
#include "hysim/peers/peers.hpp"
#include "hysim/simulator.hpp"

namespace hysim {
namespace {

struct Events final : public Observer<double> {
  struct Row {
    double t;
    std::string guard;
    std::vector<double> pre, post;
  };
  std::vector<Row> rows;
  void on_event(const EventRecord<double>& r) override {
    rows.push_back({r.t, std::string(r.guard), {r.x_pre.begin(), r.x_pre.end()}, {r.x_post.begin(), r.x_post.end()}});
  }
};

RunResult<double> run(const Model<double>& model, double t_end, Events* events, const std::string& strategy = {}) {
  SimulationOptions options;
  options.t_end = t_end;
  options.rtol = 1e-10;
  options.atol = 1e-12;
  if (!strategy.empty()) options.strategy = strategy;
  Simulator<double> simulator(model, options);
  return simulator.run(events);
}

// Every relay arrives at the closed-form time, once, and slides on x_i = c to the end.
void expect_relays(std::size_t n, const std::string& strategy = {}) {
  const auto x0 = many_relays::initial_states(n);
  const Model<double> model = many_relays::model(x0);
  Events events;
  const RunResult<double> result = run(model, 1.5, &events, strategy);
  ASSERT_EQ(result.reason, RunReason::kReachedEnd) << result.message;
  ASSERT_EQ(events.rows.size(), n);  // one event per relay: no chattering
  std::vector<int> seen(n, 0);
  for (const auto& row : events.rows) {
    const std::size_t i = std::stoul(row.guard.substr(5));
    ++seen[i];
    EXPECT_EQ(row.pre[n + i], 1.0) << row.guard;
    EXPECT_EQ(row.post[n + i], 0.0) << row.guard << ": slides";
    EXPECT_NEAR(row.t, static_cast<double>(many_relays::arrival(x0[i], i)), 1e-9) << row.guard;
  }
  for (std::size_t i = 0; i < n; ++i) {
    EXPECT_EQ(seen[i], 1) << i;
    EXPECT_EQ(result.x[n + i], 0.0) << "relay " << i << " slides at the end";
    EXPECT_NEAR(result.x[i], many_relays::kLevel, 1e-9) << "relay " << i;
  }
}

TEST(SwitchParts, TwentyRelaysArriveAtTheirRootsAndSlide) { expect_relays(20); }

TEST(SwitchParts, RelaysUnderTheBisectionStrategy) { expect_relays(20, "bisection"); }

// Two identical relays x_j' = -sign(x_j - 0.05) + 0.1 sin(t) arrive at one instant: both
// slide, one after the other in the chain.
TEST(SwitchParts, TwoPartsArrivingTogetherBothSlide) {
  Model<double> model;
  model.name = "twins";
  model.state_names = {"x0", "x1"};
  model.x0 = {0.5, 0.5};
  model.add_mode("m", [](double t, const double* x, double* dxdt) {
    for (int j = 0; j < 2; ++j) dxdt[j] = -x[2 + j] + many_relays::kAmplitude * std::sin(t);
  });
  std::vector<SwitchPart<double>> parts(2);
  for (std::size_t j = 0; j < 2; ++j) {
    parts[j].name = j == 0 ? "a" : "b";
    parts[j].surface = [j](double, const double* x) { return x[j] - many_relays::kLevel; };
    parts[j].rate = [](double t, const double*, double sigma) { return -sigma + many_relays::kAmplitude * std::sin(t); };
  }
  add_switch_parts(model, std::move(parts));
  model.finalize();
  Events events;
  const RunResult<double> result = run(model, 1.0, &events);
  ASSERT_EQ(result.reason, RunReason::kReachedEnd) << result.message;
  ASSERT_EQ(events.rows.size(), 2u);
  EXPECT_EQ(events.rows[0].t, events.rows[1].t);
  EXPECT_NEAR(events.rows[0].t, static_cast<double>(many_relays::arrival(0.5, 0)), 1e-9);
  EXPECT_EQ(result.x[2], 0.0);
  EXPECT_EQ(result.x[3], 0.0);
}

#if HYSIM_HAVE_CVODE
// Under the CVODE peer the parts are root functions: every relay arrives once and slides. CVODE
// locates a root to its own tolerance (measured: 2e-9 s at rtol 1e-10).
TEST(SwitchParts, RelaysUnderCvode) {
  register_peers();
  constexpr std::size_t n = 20;
  const auto x0 = many_relays::initial_states(n);
  const Model<double> model = many_relays::model(x0);
  Events events;
  const RunResult<double> result = run(model, 1.5, &events, "cvode");
  ASSERT_EQ(result.reason, RunReason::kReachedEnd) << result.message;
  ASSERT_EQ(events.rows.size(), n);
  for (const auto& row : events.rows) {
    const std::size_t i = std::stoul(row.guard.substr(5));
    EXPECT_EQ(row.post[n + i], 0.0) << row.guard;
    EXPECT_NEAR(row.t, static_cast<double>(many_relays::arrival(x0[i], i)), 1e-7) << row.guard;
  }
}
#endif

// x' = -sign(x) + 1.5 sin(t) from x(0) = 0.2: the relay falls to 0 at t_1, where
// 0.2 - t + 1.5 (1 - cos t) = 0, slides while |1.5 sin t| <= 1 (sigma_eq = 1.5 sin t), and
// leaves up at t_2 = asin(2/3), where the upper side's field turns out of the surface. Then
// it rises (x' = -1 + 1.5 sin t > 0) to the end, t = 2 < pi - asin(2/3).
TEST(SwitchParts, ASlidingPartLeavesWhereItsEquivalentValueReachesOne) {
  Model<double> model;
  model.name = "leaving-relay";
  model.state_names = {"x"};
  model.x0 = {0.2};
  model.add_mode("m", [](double t, const double* x, double* dxdt) { dxdt[0] = -x[1] + 1.5 * std::sin(t); });
  SwitchPart<double> part;
  part.name = "relay";
  part.surface = [](double, const double* x) { return x[0]; };
  part.rate = [](double t, const double*, double sigma) { return -sigma + 1.5 * std::sin(t); };
  part.reads = {0};
  EXPECT_EQ(add_switch_parts(model, {part}), 1u);
  model.finalize();
  Events events;
  const RunResult<double> result = run(model, 2.0, &events);
  ASSERT_EQ(result.reason, RunReason::kReachedEnd) << result.message;
  ASSERT_EQ(events.rows.size(), 2u);
  // Arrival: 0.2 - t + 1.5 (1 - cos t) = 0 (bisection in long double).
  long double lo = 0, hi = 1;
  for (int k = 0; k < 200; ++k) {
    const long double mid = (lo + hi) / 2;
    (0.2L - mid + 1.5L * (1 - std::cos(mid)) > 0 ? lo : hi) = mid;
  }
  EXPECT_NEAR(events.rows[0].t, static_cast<double>(lo), 1e-9);
  EXPECT_EQ(events.rows[0].post[1], 0.0);
  // sin(t_1) < 2/3: it slides, and leaves up where sin t = 2/3.
  ASSERT_LT(std::sin(events.rows[0].t), 2.0 / 3.0);
  EXPECT_NEAR(events.rows[1].t, std::asin(2.0 / 3.0), 1e-9);
  EXPECT_EQ(events.rows[1].pre[1], 0.0);
  EXPECT_EQ(events.rows[1].post[1], 1.0);
  EXPECT_NEAR(events.rows[1].pre[0], 0.0, 1e-10);  // on the surface, to the arrival's bracket times its rate
}

// A part whose other side drives on crosses instead of sliding: x' = -sign(x - 1) - 2 from
// x(0) = 2 falls at 3 above 1 (to t = 1/3) and at 1 below it; p goes +1 -> -1.
TEST(SwitchParts, APartCrossesWhereTheOtherSideDrivesOn) {
  Model<double> model;
  model.name = "crossing-part";
  model.state_names = {"x"};
  model.x0 = {2.0};
  model.add_mode("m", [](double, const double* x, double* dxdt) { dxdt[0] = -x[1] - 2; });
  SwitchPart<double> part;
  part.name = "level";
  part.surface = [](double, const double* x) { return x[0] - 1; };
  part.rate = [](double, const double*, double sigma) { return -sigma - 2; };
  add_switch_parts(model, {part});
  model.finalize();
  Events events;
  const RunResult<double> result = run(model, 1.0, &events);
  ASSERT_EQ(result.reason, RunReason::kReachedEnd) << result.message;
  ASSERT_EQ(events.rows.size(), 1u);
  EXPECT_NEAR(events.rows[0].t, 1.0 / 3.0, 1e-12);
  EXPECT_EQ(events.rows[0].post[1], -1.0);
  EXPECT_NEAR(result.x[0], 1.0 - (1.0 - 1.0 / 3.0), 1e-9);  // x' = -1 after t = 1/3
}

// The relays as a model file: one mode whose field switches on 40 conditions, more than the
// compiler splits into modes, so each becomes a switch part (lang/split.cpp); native code and
// the tape give every arrival at its root and every relay sliding.
TEST(SwitchParts, AModelFileOfManyConditionsMakesParts) {
  constexpr std::size_t n = 40;
  const auto x0 = many_relays::initial_states(n);
  std::string text = "model relays\n";
  for (std::size_t i = 0; i < n; ++i) {
    char value[64];
    std::snprintf(value, sizeof value, "%.17g", x0[i]);
    text += "state x" + std::to_string(i) + " = " + value + "\n";
  }
  text += "mode m {\n";
  for (std::size_t i = 0; i < n; ++i) {
    text += "  der(x" + std::to_string(i) + ") = -sign(x" + std::to_string(i) + " - 0.05) + 0.1*sin(" +
            std::to_string(i + 1) + "*t)\n";
  }
  text += "}\n";
  const auto spec = std::make_shared<const lang::ModelSpec>(lang::compile_text("relays.hym", text));
  ASSERT_EQ(spec->parts.size(), n);
  EXPECT_TRUE(spec->warnings.empty());
  for (const auto backend : {lang::NativeOptions::Backend::kNative, lang::NativeOptions::Backend::kTape}) {
    lang::NativeOptions options = lang::NativeOptions::from_environment();
    options.backend = backend;
    std::string used;
    const ModelEntry entry = lang::model_entry(spec, options, &used);
    const Model<double> model = entry.make<double>(entry.default_values());
    ASSERT_EQ(model.modes.size(), 1u);
    ASSERT_EQ(model.state_size(), 2 * n);
    Events events;
    const RunResult<double> result = run(model, 1.5, &events);
    ASSERT_EQ(result.reason, RunReason::kReachedEnd) << result.message;
    ASSERT_EQ(events.rows.size(), n) << used;
    for (const auto& row : events.rows) {
      const std::size_t i = std::stoul(row.guard.substr(6)) - 1;  // switch1 is x0's
      EXPECT_EQ(row.post[n + i], 0.0) << used << " " << row.guard;
      EXPECT_NEAR(row.t, static_cast<double>(many_relays::arrival(x0[i], i)), 1e-9) << used << " " << row.guard;
    }
    for (std::size_t i = 0; i < n; ++i) EXPECT_EQ(result.x[n + i], 0.0) << used << " relay " << i;
  }
}

// Three relays in a mode `a` of a model file, from x_i(0) = 0.3, 0.45, 0.7.
const std::string kThreeRelays =
    "state x0 = 0.3, x1 = 0.45, x2 = 0.7\nmode a {\n"
    "  der(x0) = -sign(x0 - 0.05) + 0.1*sin(1*t)\n  der(x1) = -sign(x1 - 0.05) + 0.1*sin(2*t)\n"
    "  der(x2) = -sign(x2 - 0.05) + 0.1*sin(3*t)\n}\n";

Model<double> built(const std::shared_ptr<const lang::ModelSpec>& spec) {
  const ModelEntry entry = lang::model_entry(spec);
  return entry.make<double>(entry.default_values());
}

// Three relays in one mode: split into 8 modes, two of them sliding at once sent the run back
// and forth between modes without end (10,000 events at one t); as parts each slides alone.
TEST(SwitchParts, ThreeRelaysOfAModelFileSlideEachOnItsOwn) {
  const std::vector<double> x0 = {0.3, 0.45, 0.7};
  const auto spec = std::make_shared<const lang::ModelSpec>(lang::compile_text("three.hym", "model three\n" + kThreeRelays));
  ASSERT_EQ(spec->parts.size(), 3u);
  ASSERT_EQ(spec->modes.size(), 1u);
  const Model<double> model = built(spec);
  Events events;
  const RunResult<double> result = run(model, 2.0, &events);
  ASSERT_EQ(result.reason, RunReason::kReachedEnd) << result.message;
  ASSERT_EQ(events.rows.size(), 3u);
  for (std::size_t e = 0; e < 3; ++e) {
    EXPECT_EQ(events.rows[e].guard, "switch" + std::to_string(e + 1));
    EXPECT_NEAR(events.rows[e].t, static_cast<double>(many_relays::arrival(x0[e], e)), 1e-9);
    EXPECT_EQ(result.x[3 + e], 0.0);
  }
}

// Parts of one mode of several: their crossings act there, and entering the mode sets each part
// to the side of the state entered with. Three relays arrive and slide, the model pauses in b
// at t = 1 (the relays frozen) and resumes in a at t = 1.5 with the relays put back to their
// start: each arrives again at the root of x_i(0) - (t - 1.5) + 0.1 (cos(k 1.5) - cos(k t))/k
// = 0.05, k = i + 1.
TEST(SwitchParts, PartsOfOneModeOfSeveralStartAgainOnEntry) {
  const std::vector<double> x0 = {0.3, 0.45, 0.7};
  const auto spec = std::make_shared<const lang::ModelSpec>(lang::compile_text("paused.hym",
      "model paused\n" + kThreeRelays + "mode b { der(x0) = 0; der(x1) = 0; der(x2) = 0 }\n"
      "a -> b pause [t >= 1 && t <= 1.2]\nb -> a resume [t >= 1.5] { x0 := 0.3; x1 := 0.45; x2 := 0.7 }\n"));
  ASSERT_EQ(spec->parts.size(), 3u);
  ASSERT_EQ(spec->modes.size(), 2u);
  const Model<double> model = built(spec);
  Events events;
  const RunResult<double> result = run(model, 3.0, &events);
  ASSERT_EQ(result.reason, RunReason::kReachedEnd) << result.message;
  ASSERT_EQ(events.rows.size(), 8u);
  EXPECT_EQ(events.rows[3].guard, "pause");
  EXPECT_EQ(events.rows[4].guard, "resume");
  for (std::size_t i = 0; i < 3; ++i) EXPECT_EQ(events.rows[4].post[3 + i], 1.0) << "relay " << i << " above again";
  for (std::size_t e = 0; e < 3; ++e) {
    EXPECT_NEAR(events.rows[e].t, static_cast<double>(many_relays::arrival(x0[e], e)), 1e-9);
    const long double k = static_cast<long double>(e + 1);
    const auto g = [&](long double t) {
      return static_cast<long double>(x0[e]) - (t - 1.5L) + 0.1L * (std::cos(k * 1.5L) - std::cos(k * t)) / k - 0.05L;
    };
    long double lo = 1.5L, hi = 3.0L;
    for (int iteration = 0; iteration < 200; ++iteration) (g((lo + hi) / 2) > 0 ? lo : hi) = (lo + hi) / 2;
    EXPECT_EQ(events.rows[5 + e].guard, "switch" + std::to_string(e + 1));
    EXPECT_NEAR(events.rows[5 + e].t, static_cast<double>(lo), 1e-9);
    EXPECT_EQ(result.x[3 + e], 0.0) << "relay " << e << " slides at the end";
  }
}

// A condition on t alone keeps the modes: their guard has the exact root of a time event.
TEST(SwitchParts, AConditionOnTimeKeepsTheModes) {
  const lang::ModelSpec spec = lang::compile_text("timed.hym",
      "model timed\nstate x = 0\nmode m {\n  der(x) = (if t >= 1 then 1 else 2) - sign(x - 3)\n}\n");
  EXPECT_TRUE(spec.parts.empty());
  EXPECT_EQ(spec.modes.size(), 4u);
}

// Six conditions whose surfaces' rates each read all six branches (coupled): no parts, and
// more than the split makes into modes, so they are stepped across with a warning.
TEST(SwitchParts, ManyCoupledConditionsAreSteppedAcross) {
  std::string text = "model two\nstate x = 1, y = 1\nmode a {\n  der(x) = sign(x - 0.1) + sign(x - 0.2) + sign(x - 0.3) + "
                     "sign(x - 0.4) + sign(x - 0.5) + sign(x - 0.6)\n  der(y) = -1\n}\nmode b {\n  der(x) = 0\n  der(y) = 0\n}\n"
                     "a -> b stop_a [y <= 0]\n";
  const lang::ModelSpec spec = lang::compile_text("two.hym", text);
  EXPECT_TRUE(spec.parts.empty());
  ASSERT_EQ(spec.warnings.size(), 1u);
  EXPECT_NE(spec.warnings[0].message.find("stepped across"), std::string::npos);
}

TEST(SwitchParts, BadPartsAreModelErrors) {
  Model<double> model;
  model.name = "bad";
  model.state_names = {"x"};
  model.x0 = {1.0};
  model.add_mode("m", [](double, const double*, double* dxdt) { dxdt[0] = 0; });
  SwitchPart<double> unnamed;
  EXPECT_THROW(add_switch_parts(model, {unnamed}), ModelError);
  SwitchPart<double> far;
  far.name = "far";
  far.surface = [](double, const double* x) { return x[0]; };
  far.rate = [](double, const double*, double) { return 0.0; };
  far.reads = {7};
  EXPECT_THROW(add_switch_parts(model, {far}), ModelError);
}

}  // namespace
}  // namespace hysim
