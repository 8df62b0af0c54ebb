// Transition chains at one event time (events/chain.hpp: the recursion of Mosterman, Zhao and Biswas, Algorithm 1), run through
// Simulator<double> on small hand-built models. Every field is constant (mostly dx/dt = 1), so
// a guard x >= c in a mode entered at (t_0, x_0) fires at the closed-form time t_0 + (c - x_0).
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "hysim/core/errors.hpp"
#include "hysim/simulator.hpp"
#include "test_support.hpp"

namespace hysim {
namespace {

using testing::contains;

// dx/dt = rate (one state component).
FieldFunction<double> constant_rate(double rate) {
  return [rate](double, const double*, double* dxdt) {
    dxdt[0] = rate;
  };
}

// x[index] - c >= 0.
Guard<double> at_least(const char* name, double c, int index = 0) {
  return Guard<double>::atom(
      name, [c, index](double, const double* x) { return x[index] - c; }, Relation::kGreaterEqual);
}

// x[index] - c >= 0 that reads the a priori state across a jump: on the chain's first test
// (x, x+) it reads x, so it does not fire because of the reset; on the second, after x := x+
// is committed, it reads x+ (003, Table 2: a pinnacle).
Guard<double> prior_at_least(const char* name, double c, int index = 0) {
  return Guard<double>::atom(
      name, [c, index](double, const double* x) { return x[index] - c; }, Relation::kGreaterEqual, {},
      [c, index](double, const double* x_prior, const double*) { return x_prior[index] - c; });
}

// x[index] := x[index] + d.
ResetFunction<double> add(double d, int index = 0) {
  return [d, index](double, const double* x, double* x_plus) { x_plus[index] = x[index] + d; };
}

SimulationOptions options_to(double t_end, int chain_limit = 64) {
  SimulationOptions options;
  options.t_end = t_end;
  options.rtol = 1e-10;
  options.atol = 1e-12;
  options.chain_limit = chain_limit;
  return options;
}

// Runs the model, keeps the rows (also those recorded before a failure) and returns the
// failed run's message, or "" when the run completed.
std::string run_catching(const Model<double>& model, const SimulationOptions& options, testing::Collected<double>* out,
                         RunResult<double>* result = nullptr) {
  testing::Collector<double> collector(out, /*keep_samples=*/true);
  Simulator<double> simulator(model, options);
  RunResult<double> r = simulator.run(&collector);
  if (r.failed()) return r.message;
  if (result) *result = std::move(r);
  return "";
}

// The event time t_a of x' = 1 reaching c from x0 at t = 0 is the closed form c - x0, up to
// the rounding of the dense output (a few ulps), and x(t_a) lies strictly before the guard.
constexpr double kTimeSlack = 1e-15;

// a -> b -> c at one time: a's guard x >= 1 fires at t = 1 - 0.25 = 0.75; the reset of a -> b
// (x += 10) makes b's guard, which reads the a priori x, fire once x := x + 10 is committed,
// so b is a pinnacle (it existed at a point and changed the state); b -> c (x := x + 100,
// from b's committed state) arrives in c, whose guard does not fire: interior. Both rows
// share index 1 and t.
TEST(Chain, PinnacleThenInteriorAtOneTime) {
  Model<double> model;
  model.name = "abc";
  model.state_names = {"x"};
  model.x0 = {0.25};
  model.add_mode("a", constant_rate(1));
  model.add_mode("b", constant_rate(1));
  model.add_mode("c", constant_rate(1));
  model.add_transition("a", "b", "ab", at_least("x - 1", 1.0), add(10));
  model.add_transition("b", "c", "bc", prior_at_least("x - 5", 5.0), add(100));
  model.add_transition("c", "a", "ca", at_least("x - 1000", 1000.0));
  model.finalize();

  testing::Collected<double> out;
  RunResult<double> result;
  ASSERT_EQ(run_catching(model, options_to(2.0), &out, &result), "");
  ASSERT_EQ(out.rows.size(), 2u);
  const auto& ab = out.rows[0];
  const auto& bc = out.rows[1];
  EXPECT_EQ(ab.index, 1);
  EXPECT_EQ(bc.index, 1);
  EXPECT_EQ(ab.t, bc.t);
  EXPECT_NEAR(ab.t, 0.75, kTimeSlack);

  EXPECT_EQ(ab.from, model.find_mode("a"));
  EXPECT_EQ(ab.to, model.find_mode("b"));
  EXPECT_EQ(ab.kind, TransitionClass::kPinnacle);
  EXPECT_EQ(ab.guard, "ab");
  EXPECT_LT(ab.x_pre[0], 1.0);                      // one-sided: a's guard not fired at t_a
  EXPECT_NEAR(ab.x_pre[0], 1.0, kTimeSlack);
  EXPECT_EQ(ab.x_post[0], ab.x_pre[0] + 10);        // g_ab applied to x(t_a)

  EXPECT_EQ(bc.from, model.find_mode("b"));
  EXPECT_EQ(bc.to, model.find_mode("c"));
  EXPECT_EQ(bc.kind, TransitionClass::kInterior);
  EXPECT_EQ(bc.guard, "bc");
  EXPECT_EQ(bc.x_pre[0], ab.x_post[0]);              // the pinnacle's state was committed
  EXPECT_EQ(bc.x_post[0], ab.x_post[0] + 100);

  // One event time, two modes visited; the run ends in c with x = 111 + (2 - 0.75).
  EXPECT_EQ(result.stats.events, 1);
  EXPECT_EQ(result.stats.transitions, 2);
  EXPECT_EQ(result.mode, model.find_mode("c"));
  EXPECT_NEAR(result.x[0], 111.0 + 1.25, 1e-12);
}

// The same model with b's guard reading only the state (x >= 5): it fires on (x, x+) already,
// so b is mythical (003, Eq. 3: x+ lies beyond b's patch). Its reset leaves no trace: b -> c
// applies x + 100 to the original x(t_a), and the run ends in c with x = 1 + 100 + 1.25.
TEST(Chain, PlainGuardFiringOnTheResetStateIsMythical) {
  Model<double> model;
  model.name = "abc-plain";
  model.state_names = {"x"};
  model.x0 = {0.25};
  model.add_mode("a", constant_rate(1));
  model.add_mode("b", constant_rate(1));
  model.add_mode("c", constant_rate(1));
  model.add_transition("a", "b", "ab", at_least("x - 1", 1.0), add(10));
  model.add_transition("b", "c", "bc", at_least("x - 5", 5.0), add(100));
  model.add_transition("c", "a", "ca", at_least("x - 1000", 1000.0));
  model.finalize();

  testing::Collected<double> out;
  RunResult<double> result;
  ASSERT_EQ(run_catching(model, options_to(2.0), &out, &result), "");
  ASSERT_EQ(out.rows.size(), 2u);
  EXPECT_EQ(out.rows[0].kind, TransitionClass::kMythical);
  EXPECT_EQ(out.rows[0].x_post, out.rows[0].x_pre);
  EXPECT_EQ(out.rows[1].kind, TransitionClass::kInterior);
  EXPECT_EQ(out.rows[1].x_pre, out.rows[0].x_pre);
  EXPECT_EQ(out.rows[1].x_post[0], out.rows[0].x_pre[0] + 100);
  EXPECT_NEAR(result.x[0], 101.0 + 1.25, 1e-12);
}

// An algebraic mode (no field) whose reset changes the state is a pinnacle, and its plain
// guards read the committed state: a -> impact (x += 1, so x = 2) -> c through x >= 1.5.
TEST(Chain, AlgebraicModeWithAJumpIsAPinnacle) {
  Model<double> model;
  model.name = "algebraic";
  model.state_names = {"x"};
  model.x0 = {0.0};
  model.add_mode("a", constant_rate(1));
  model.add_mode("impact", FieldFunction<double>{});
  model.add_mode("c", constant_rate(1));
  model.add_transition("a", "impact", "hit", at_least("x - 1", 1.0), add(1));
  model.add_transition("impact", "c", "leave", at_least("x - 1.5", 1.5));
  model.finalize();
  testing::Collected<double> out;
  RunResult<double> result;
  ASSERT_EQ(run_catching(model, options_to(2.0), &out, &result), "");
  ASSERT_EQ(out.rows.size(), 2u);
  EXPECT_EQ(out.rows[0].kind, TransitionClass::kPinnacle);
  EXPECT_EQ(out.rows[1].kind, TransitionClass::kInterior);
  EXPECT_EQ(out.rows[1].x_pre, out.rows[0].x_post);
  EXPECT_NEAR(result.x[0], 3.0, 1e-12);
}

// An algebraic mode (no field) in which the chain would rest is an error naming it.
TEST(Chain, RestingInAnAlgebraicModeThrows) {
  Model<double> model;
  model.name = "algebraic";
  model.state_names = {"x"};
  model.x0 = {0.0};
  model.add_mode("a", constant_rate(1));
  model.add_mode("impact", FieldFunction<double>{});
  model.add_mode("c", constant_rate(1));
  model.add_transition("a", "impact", "hit", at_least("x - 1", 1.0), add(1));
  model.add_transition("impact", "c", "leave", prior_at_least("x - 5", 5.0));
  model.finalize();
  testing::Collected<double> out;
  const std::string message = run_catching(model, options_to(2.0), &out);
  EXPECT_TRUE(contains(message, "rests in the algebraic mode 'impact'")) << message;
}

// a -> m with the identity reset, where m's guard x >= 0.5 already holds on the unchanged
// state (and no atom sits on its surface): m is mythical. It leaves no trace: the reset of
// m -> c is applied to the ORIGINAL pre-jump state x(t_a) of a (invariance of state), and the
// mythical row's x+ equals its x-.
TEST(Chain, MythicalModeResetsFromTheOriginalState) {
  Model<double> model;
  model.name = "mythical";
  model.state_names = {"x"};
  model.x0 = {0.0};
  model.add_mode("a", constant_rate(1));
  model.add_mode("m", constant_rate(-1));
  model.add_mode("c", constant_rate(1));
  model.add_transition("a", "m", "am", at_least("x - 1", 1.0));
  model.add_transition("m", "c", "mc", at_least("x - 0.5", 0.5), add(100));
  model.finalize();

  testing::Collected<double> out;
  RunResult<double> result;
  ASSERT_EQ(run_catching(model, options_to(3.0), &out, &result), "");
  ASSERT_EQ(out.rows.size(), 2u);
  const auto& am = out.rows[0];
  const auto& mc = out.rows[1];
  EXPECT_EQ(am.index, 1);
  EXPECT_EQ(mc.index, 1);
  EXPECT_EQ(am.t, mc.t);
  EXPECT_NEAR(am.t, 1.0, kTimeSlack);

  EXPECT_EQ(am.kind, TransitionClass::kMythical);
  EXPECT_EQ(am.guard, "am");
  EXPECT_EQ(am.x_post, am.x_pre);
  EXPECT_LT(am.x_pre[0], 1.0);

  EXPECT_EQ(mc.kind, TransitionClass::kInterior);
  EXPECT_EQ(mc.from, model.find_mode("m"));
  EXPECT_EQ(mc.to, model.find_mode("c"));
  EXPECT_EQ(mc.x_pre, am.x_pre);                   // the original state, not a new one
  EXPECT_EQ(mc.x_post[0], am.x_pre[0] + 100);

  // m's field (dx/dt = -1) never acted: x(3) = x(1) + 100 + 2 in c.
  EXPECT_EQ(result.mode, model.find_mode("c"));
  EXPECT_NEAR(result.x[0], 103.0, 1e-12);
}

// A linear chain m0 -> m1 -> ... -> m5 at t = 1 where each of m1..m4 fires once its reset
// x += 1 is committed (its guard x >= i + 0.5 reads the a priori state: pinnacles; x(t_a) lies
// just below 1) and m5 is interior: it visits 5 modes, allowed by chain_limit = 5.
Model<double> linear_chain() {
  static const char* const kModes[] = {"m0", "m1", "m2", "m3", "m4", "m5"};
  static const char* const kGuards[] = {"g1", "g2", "g3", "g4", "g5"};
  Model<double> model;
  model.name = "linear";
  model.state_names = {"x"};
  model.x0 = {0.0};
  for (const char* mode : kModes) model.add_mode(mode, constant_rate(1));
  model.add_transition("m0", "m1", "g1", at_least("x - 1", 1.0), add(1));
  for (int i = 1; i < 5; ++i) {
    model.add_transition(kModes[i], kModes[i + 1], kGuards[i], prior_at_least("x - 0.5 - i", 0.5 + i), add(1));
  }
  model.finalize();
  return model;
}

// chain_limit counts the modes one event visits: a 5-mode chain runs at chain_limit = 5, with
// four pinnacles and an interior arrival whose state is x(t_a) + 5.
TEST(Chain, ChainOfExactlyChainLimitModesRuns) {
  const Model<double> model = linear_chain();
  testing::Collected<double> out;
  RunResult<double> result;
  ASSERT_EQ(run_catching(model, options_to(2.0, /*chain_limit=*/5), &out, &result), "");
  ASSERT_EQ(out.rows.size(), 5u);
  for (std::size_t i = 0; i < 5; ++i) {
    EXPECT_EQ(out.rows[i].index, 1);
    EXPECT_EQ(out.rows[i].t, out.rows[0].t);
    EXPECT_EQ(out.rows[i].from, static_cast<int>(i));
    EXPECT_EQ(out.rows[i].to, static_cast<int>(i) + 1);
    EXPECT_EQ(out.rows[i].guard, std::string(1, 'g') + static_cast<char>('1' + i));
    EXPECT_EQ(out.rows[i].kind, i < 4 ? TransitionClass::kPinnacle : TransitionClass::kInterior);
    EXPECT_EQ(out.rows[i].x_post[0], out.rows[0].x_pre[0] + static_cast<double>(i + 1));
  }
  EXPECT_NEAR(out.rows[0].t, 1.0, kTimeSlack);
  EXPECT_EQ(result.mode, 5);
}

// The same chain at chain_limit = 4 fails naming chain_limit and listing the
// chain with its guards; the four rows visited before the failure reached the observer.
TEST(Chain, ChainBeyondChainLimitThrows) {
  const Model<double> model = linear_chain();
  testing::Collected<double> out;
  const std::string message = run_catching(model, options_to(2.0, /*chain_limit=*/4), &out);
  ASSERT_NE(message, "") << "the run should have failed";
  EXPECT_TRUE(contains(message, "chain_limit"));
  EXPECT_TRUE(contains(message, "chain_limit = 4"));
  EXPECT_TRUE(contains(message, "model 'linear'"));
  EXPECT_TRUE(contains(message, "m0 -[g1]-> m1 -[g2]-> m2 -[g3]-> m3 -[g4]-> m4"));
  ASSERT_EQ(out.rows.size(), 4u);
  for (const auto& row : out.rows) EXPECT_EQ(row.kind, TransitionClass::kPinnacle);
}

// A chain that comes back to a (mode, state) it visited through pinnacle links: start -> ping
// negates y, ping -> pong (fires once the a priori y is negative) negates y again, pong -> ping
// (fires once it is positive) negates it once more, which is ping's state again.
// The failed run's message lists the chain with the guard names.
TEST(Chain, ReturningToAVisitedStateThrowsWithTheChain) {
  Model<double> model;
  model.name = "pingpong";
  model.state_names = {"x", "y"};
  model.x0 = {0.0, 1.0};
  const FieldFunction<double> field = [](double, const double*, double* dxdt) {
    dxdt[0] = 1;
    dxdt[1] = 0;
  };
  const ResetFunction<double> negate_y = [](double, const double* x, double* x_plus) { x_plus[1] = -x[1]; };
  model.add_mode("start", field);
  model.add_mode("ping", field);
  model.add_mode("pong", field);
  model.add_transition("start", "ping", "go", at_least("x - 1", 1.0), negate_y);
  const auto prior_y = [](Relation relation) {
    return Guard<double>::atom(
        "y", [](double, const double* x) { return x[1]; }, relation, {},
        [](double, const double* x_prior, const double*) { return x_prior[1]; });
  };
  model.add_transition("ping", "pong", "ping_to_pong", prior_y(Relation::kLess), negate_y);
  model.add_transition("pong", "ping", "pong_to_ping", prior_y(Relation::kGreater), negate_y);
  model.finalize();

  testing::Collected<double> out;
  const std::string message = run_catching(model, options_to(2.0), &out);
  ASSERT_NE(message, "") << "the run should have failed";
  EXPECT_TRUE(contains(message, "returns to mode 'ping' with the same state"));
  EXPECT_TRUE(contains(message, "start -[go]-> ping -[ping_to_pong]-> pong -[pong_to_ping]-> ping"));
  ASSERT_EQ(out.rows.size(), 2u);
  EXPECT_EQ(out.rows[0].kind, TransitionClass::kPinnacle);
  EXPECT_EQ(out.rows[1].kind, TransitionClass::kPinnacle);
  EXPECT_EQ(out.rows[1].x_post[1], 1.0);
}

// The same loop with identity resets: ping and pong are mythical (state unchanged, guard
// already true, no atom on its surface), and coming back to ping with the same state is an
// error too, not a sliding mode (sliding needs boundary links).
TEST(Chain, MythicalLoopThrowsWithTheChain) {
  Model<double> model;
  model.name = "myth-loop";
  model.state_names = {"x"};
  model.x0 = {0.0};
  model.add_mode("start", constant_rate(1));
  model.add_mode("ping", constant_rate(1));
  model.add_mode("pong", constant_rate(1));
  model.add_transition("start", "ping", "go", at_least("x - 1", 1.0));
  model.add_transition("ping", "pong", "ping_to_pong", at_least("x - 0.5", 0.5));
  model.add_transition("pong", "ping", "pong_to_ping", at_least("x - 0.5", 0.5));
  model.finalize();

  testing::Collected<double> out;
  const std::string message = run_catching(model, options_to(2.0), &out);
  ASSERT_NE(message, "") << "the run should have failed";
  EXPECT_TRUE(contains(message, "start -[go]-> ping -[ping_to_pong]-> pong -[pong_to_ping]-> ping"));
  ASSERT_EQ(out.rows.size(), 2u);
  EXPECT_EQ(out.rows[0].kind, TransitionClass::kMythical);
  EXPECT_EQ(out.rows[1].kind, TransitionClass::kMythical);
}

// A guard that already fires at t0 (x0 = 5 >= 1, with t0 = 2) starts a chain at t0: the event
// is at t = t0 exactly, with x- = x0, and the run goes on in the arrival mode from there
// (x' = -1 in b: x(3) = 5 - 1).
TEST(Chain, GuardFiringAtT0StartsAChainAtT0) {
  Model<double> model;
  model.name = "at-t0";
  model.state_names = {"x"};
  model.t0 = 2.0;
  model.x0 = {5.0};
  model.add_mode("a", constant_rate(1));
  model.add_mode("b", constant_rate(-1));
  model.add_transition("a", "b", "ab", at_least("x - 1", 1.0));
  model.finalize();

  testing::Collected<double> out;
  RunResult<double> result;
  ASSERT_EQ(run_catching(model, options_to(3.0), &out, &result), "");
  ASSERT_EQ(out.rows.size(), 1u);
  EXPECT_EQ(out.rows[0].index, 1);
  EXPECT_EQ(out.rows[0].t, 2.0);
  EXPECT_EQ(out.rows[0].from, 0);
  EXPECT_EQ(out.rows[0].to, 1);
  EXPECT_EQ(out.rows[0].kind, TransitionClass::kInterior);
  EXPECT_EQ(out.rows[0].x_pre, std::vector<double>{5.0});
  EXPECT_EQ(result.stats.events, 1);
  EXPECT_EQ(result.mode, 1);
  EXPECT_NEAR(result.x[0], 4.0, 1e-12);
  // The first sample is the initial point in a, the next one the arrival in b, both at t0.
  ASSERT_GE(out.samples.size(), 2u);
  EXPECT_EQ(out.samples[0].t, 2.0);
  EXPECT_EQ(out.samples[0].mode, 0);
  EXPECT_EQ(out.samples[1].t, 2.0);
  EXPECT_EQ(out.samples[1].mode, 1);
}

// A strict guard x > 1 exactly on its surface at t0 (x0 = 1) fires at t0 when the field
// drives it across (x' = +1), and does not fire when the field drives it away (x' = -1).
TEST(Chain, GuardOnItsSurfaceAtT0FiresOnlyWhenDrivenAcross) {
  for (const double rate : {1.0, -1.0}) {
    Model<double> model;
    model.name = "surface-at-t0";
    model.state_names = {"x"};
    model.x0 = {1.0};
    model.add_mode("a", constant_rate(rate));
    model.add_mode("b", constant_rate(0));
    model.add_transition("a", "b", "ab",
                         Guard<double>::atom(
                             "x - 1", [](double, const double* x) { return x[0] - 1.0; }, Relation::kGreater));
    model.finalize();

    testing::Collected<double> out;
    RunResult<double> result;
    ASSERT_EQ(run_catching(model, options_to(1.0), &out, &result), "");
    if (rate > 0) {
      ASSERT_EQ(out.rows.size(), 1u) << "rate " << rate;
      EXPECT_EQ(out.rows[0].t, 0.0);
      EXPECT_EQ(result.mode, 1);
      EXPECT_EQ(result.x[0], 1.0);  // b holds x still
    } else {
      EXPECT_TRUE(out.rows.empty()) << "rate " << rate;
      EXPECT_EQ(result.mode, 0);
      EXPECT_NEAR(result.x[0], 0.0, 1e-12);
    }
  }
}

// Successive events of a two-mode relay x' = +1 in up (until x >= 1) and x' = -1 in down
// (until x <= 0), from x0 = 0: events at t = 1, 2, 3 (closed form), one row each, indices 1..3;
// at t = 3.5 the relay is going down again, at x = 0.5.
TEST(Chain, SuccessiveEventsHaveIncreasingIndices) {
  Model<double> model;
  model.name = "relay";
  model.state_names = {"x"};
  model.x0 = {0.0};
  model.add_mode("up", constant_rate(1));
  model.add_mode("down", constant_rate(-1));
  model.add_transition("up", "down", "top", at_least("x - 1", 1.0));
  model.add_transition("down", "up", "bottom",
                       Guard<double>::atom(
                           "x", [](double, const double* x) { return x[0]; }, Relation::kLessEqual));
  model.finalize();

  testing::Collected<double> out;
  RunResult<double> result;
  ASSERT_EQ(run_catching(model, options_to(3.5), &out, &result), "");
  ASSERT_EQ(out.rows.size(), 3u);
  for (std::size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(out.rows[i].index, static_cast<std::int64_t>(i) + 1);
    EXPECT_NEAR(out.rows[i].t, static_cast<double>(i + 1), 1e-14);
    EXPECT_EQ(out.rows[i].kind, TransitionClass::kInterior);
    EXPECT_EQ(out.rows[i].guard, i % 2 == 0 ? "top" : "bottom");
  }
  EXPECT_EQ(result.stats.events, 3);
  EXPECT_EQ(result.mode, model.find_mode("down"));  // after the third event, at t = 3
  EXPECT_NEAR(result.x[0], 0.5, 1e-13);
}

}  // namespace
}  // namespace hysim
