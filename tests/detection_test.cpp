// Detection's bookkeeping (events/detection.hpp) seen from a run: atoms made from one shared
// event are evaluated once per point for all of them (Atom::shared), and a jump form that
// reads e(t, x) when nothing jumps is not called at a non-jumping entry
// (Atom::continuous_jump). Neither may change an event; both must lower the evaluations.
#include <gtest/gtest.h>

#include <memory>
#include <vector>

#include "hysim/simulator.hpp"
#include "test_support.hpp"

namespace hysim {
namespace {

// A relay: x rises in `up` (dx/dt = 1) and falls in `down` (dx/dt = -1). From `up` two
// transitions read the same event e = x - 1 (the second also needs x - 2 >= 0, so the first
// always fires first); from `down` two read e = x + 1 likewise. `shared`: both atoms of each
// pair come from one Event. calls counts the evaluations of the two events.
Model<double> relay(bool shared, long* calls) {
  Model<double> m;
  m.name = "relay";
  m.state_names = {"x"};
  m.x0 = {0.0};
  m.add_mode("up", [](double, const double*, double* dx) { dx[0] = 1; });
  m.add_mode("down", [](double, const double*, double* dx) { dx[0] = -1; });
  const auto event = [calls](const char* name, double c) {
    return std::make_shared<const Event<double>>(Event<double>{
        name, [calls, c](double, const double* x) { ++*calls; return x[0] - c; },
        [](double, const double*, const double* f) { return f[0]; }});
  };
  const auto top = event("x - 1", 1), bottom = event("x + 1", -1);
  const auto atom = [&](const std::shared_ptr<const Event<double>>& e, Relation r) {
    return shared ? Guard<double>::atom(e, r) : Guard<double>::atom(e->name, e->e, r, e->rate);
  };
  const auto beyond = [](double c, Relation r) {
    return Guard<double>::atom("x - c", [c](double, const double* x) { return x[0] - c; }, r);
  };
  m.add_transition("up", "down", "high", atom(top, Relation::kGreaterEqual));
  m.add_transition("up", "down", "higher", atom(top, Relation::kGreaterEqual) && beyond(2, Relation::kGreaterEqual));
  m.add_transition("down", "up", "low", atom(bottom, Relation::kLessEqual));
  m.add_transition("down", "up", "lower", atom(bottom, Relation::kLessEqual) && beyond(-2, Relation::kLessEqual));
  m.initial_mode = 0;
  m.finalize();
  return m;
}

RunResult<double> run(const Model<double>& model, testing::Collected<double>* out) {
  SimulationOptions options;
  options.t_end = 20;
  testing::Collector<double> collector(out);
  Simulator<double> simulator(model, options);
  return simulator.run(&collector);
}

TEST(Detection, SharedEventsGiveTheSameEventsForFewerEvaluations) {
  long calls_separate = 0, calls_shared = 0;
  testing::Collected<double> separate, shared;
  const RunResult<double> a = run(relay(false, &calls_separate), &separate);
  const RunResult<double> b = run(relay(true, &calls_shared), &shared);
  ASSERT_FALSE(a.failed()) << a.message;
  ASSERT_FALSE(b.failed()) << b.message;
  // x reaches 1 at t = 1, then turns every 2 s: 10 events in [0, 20].
  ASSERT_EQ(separate.rows.size(), 10u);
  ASSERT_EQ(shared.rows.size(), separate.rows.size());
  for (std::size_t i = 0; i < shared.rows.size(); ++i) {
    EXPECT_EQ(shared.rows[i].t, separate.rows[i].t) << "event " << i;
    EXPECT_EQ(shared.rows[i].guard, separate.rows[i].guard) << "event " << i;
  }
  EXPECT_EQ(shared.rows.front().guard, "high");
  EXPECT_LT(calls_shared, calls_separate);
  EXPECT_LT(b.stats.guard_evals, a.stats.guard_evals);
  std::cout << "relay over [0, 20] s: shared events " << calls_shared << " calls (" << b.stats.guard_evals
            << " guard evaluations), separate atoms " << calls_separate << " (" << a.stats.guard_evals << ")\n";
}

// A mode entered without a jump (identity reset): `wait -> armed` at x >= 1. armed's guard
// x - 3 >= 0 has a jump form that counts its calls and reads the continuous value when
// nothing jumps. Declared continuous, the chain reads the value it computed at the entry
// point instead.
Model<double> arming(bool continuous, long* jump_calls) {
  Model<double> m;
  m.name = "arming";
  m.state_names = {"x"};
  m.x0 = {0.0};
  m.add_mode("wait", [](double, const double*, double* dx) { dx[0] = 1; });
  m.add_mode("armed", [](double, const double*, double* dx) { dx[0] = 1; });
  m.add_mode("done", [](double, const double*, double* dx) { dx[0] = 0; });
  m.add_transition("wait", "armed", "arm",
                   Guard<double>::atom("x - 1", [](double, const double* x) { return x[0] - 1; },
                                       Relation::kGreaterEqual));
  Guard<double> fire = Guard<double>::atom(
      "x - 3", [](double, const double* x) { return x[0] - 3; }, Relation::kGreaterEqual, {},
      [jump_calls](double, const double* x_prior, const double* x) {
        ++*jump_calls;
        return x_prior[0] == x[0] ? x[0] - 3 : -1.0;  // across a jump: does not hold
      });
  m.add_transition("armed", "done", "fire", continuous ? std::move(fire).with_continuous_jump() : std::move(fire));
  m.initial_mode = 0;
  m.finalize();
  return m;
}

TEST(Detection, AContinuousJumpFormIsNotCalledWhereNothingJumps) {
  long calls_plain = 0, calls_continuous = 0;
  testing::Collected<double> plain, continuous;
  ASSERT_FALSE(run(arming(false, &calls_plain), &plain).failed());
  ASSERT_FALSE(run(arming(true, &calls_continuous), &continuous).failed());
  ASSERT_EQ(plain.rows.size(), 2u);  // arm at t = 1, fire at t = 3
  ASSERT_EQ(continuous.rows.size(), 2u);
  for (std::size_t i = 0; i < 2; ++i) {
    EXPECT_EQ(continuous.rows[i].t, plain.rows[i].t);
    EXPECT_EQ(continuous.rows[i].guard, plain.rows[i].guard);
  }
  EXPECT_GT(calls_plain, 0);  // the chain read it at the entry into armed, on both sides of the bracket
  EXPECT_EQ(calls_continuous, 0);
}

}  // namespace
}  // namespace hysim
