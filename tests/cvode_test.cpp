// The CVODE peer (peers/cvode.hpp, strategy "cvode") against closed forms and the exact PWM
// servo reference: event times to a tolerance consistent with rtol, the same event
// sequence, honest one-sidedness, consistent counters and step log, and its failure modes.
#include <gtest/gtest.h>

#include <cmath>
#include <iostream>
#include <limits>
#include <string>
#include <vector>

#include "hysim/core/errors.hpp"
#include "hysim/lang/build.hpp"
#include "hysim/simulator.hpp"
#include "hysim/models/catalog.hpp"
#include "hysim/peers/cvode.hpp"
#include "source_dir.hpp"
#include "test_support.hpp"

namespace hysim {
namespace {

using testing::contains;

SimulationOptions cvode_options(double t_end, double rtol, double atol) {
  SimulationOptions options;
  options.strategy = "cvode";
  options.t_end = t_end;
  options.rtol = rtol;
  options.atol = atol;
  return options;
}

// Every event row with its one-sidedness, and the step log.
struct Recorder final : Observer<double> {
  struct Row {
    double t;
    int from, to;
    std::string guard;
    std::vector<double> x_pre;
    bool one_sided;
  };
  std::vector<Row> rows;
  void on_event(const EventRecord<double>& r) override {
    rows.push_back({r.t, r.from, r.to, std::string(r.guard), std::vector<double>(r.x_pre.begin(), r.x_pre.end()),
                    r.one_sided});
  }
};

// No guard of `mode` fires at (t, x): x satisfies the mode (the meaning of one-sided).
bool satisfies_mode(const Model<double>& model, int mode, double t, const std::vector<double>& x) {
  for (const auto& tr : model.modes[static_cast<std::size_t>(mode)].transitions) {
    const auto& atoms = tr.guard.atoms();
    if (tr.guard.evaluate([&](int i) {
          const auto& a = atoms[static_cast<std::size_t>(i)];
          return relation_holds(a.relation, a.e(t, x.data()));
        })) {
      return false;
    }
  }
  return true;
}

// The number printed right after `label` in `text` (NaN when absent).
double number_after(const std::string& text, const std::string& label) {
  const auto at = text.find(label);
  if (at == std::string::npos) return std::numeric_limits<double>::quiet_NaN();
  return std::stod(text.substr(at + label.size()));
}

// Keeps the step log besides the events.
struct StepLog final : Observer<double> {
  struct Step {
    double t, h;
    StepLimit limit;
  };
  std::vector<Step> steps;
  std::vector<EventRecord<double>> events;  // spans not kept: only scalar fields are read
  void on_step(double t, double h, StepLimit limit) override { steps.push_back({t, h, limit}); }
  void on_event(const EventRecord<double>& r) override {
    events.push_back(r);
    events.back().x_pre = {};
    events.back().x_post = {};
  }
};

// The bouncing ball's first 10 impacts (closed form t_{k+1} = t_k + 2 e^k v_1/g, see
// models/bouncing_ball.cpp) at rtol = 1e-10: relative time error below 1e-8, and every
// impact reported on the post-crossing side (y <= 0, not one-sided).
TEST(Cvode, BouncingBallImpactsMatchClosedForm) {
  const Model<double> model = testing::catalog_model<double>("bouncing-ball");
  RunResult<double> result;
  const auto run = testing::collect(model, cvode_options(12.0, 1e-10, 1e-12), false, &result);
  ASSERT_GE(run.rows.size(), 20u);

  const double g = 9.81, e = 0.8, y0 = 10.0;
  const double v1 = std::sqrt(2.0 * g * y0);
  double t_exact = v1 / g, speed = v1, worst = 0;
  for (std::size_t k = 0; k < 10; ++k) {
    const auto& row = run.rows[2 * k];  // flight -> impact (pinnacle) -> flight
    EXPECT_EQ(row.guard, "impact");
    EXPECT_EQ(row.kind, TransitionClass::kPinnacle);
    const double error = std::fabs(row.t - t_exact) / t_exact;
    worst = std::max(worst, error);
    EXPECT_LT(error, 1e-8) << "impact " << k + 1 << " at t = " << row.t << ", exact " << t_exact;
    EXPECT_LE(row.x_pre[0], 0.0) << "impact " << k + 1 << ": CVODE's root is past the floor";
    EXPECT_GT(row.x_post[1], 0.0);
    speed *= e;
    t_exact += 2.0 * speed / g;
  }
  EXPECT_EQ(result.stats.one_sided_events, 0);
  std::cout << "[cvode bouncing-ball rtol 1e-10] first 10 impacts: max relative time error " << worst << "\n";
}

// The exact PWM servo events (models/pwm_servo_exact.hpp via ModelEntry::reference) over
// [0, 1] s at rtol = 1e-8: no event missed or spurious, the same modes and guards, times
// within 1e-6 s. CVODE's root is the far end of its bracket, so the events are reported
// not one-sided; the flag is honest (it says whether x_pre satisfies the mode left), and the
// exception is a root that lands exactly on the zero of a strict atom (kp |x| - saw < 0 at
// the first p3, t = 0.045), where no guard fires literally and fired_after takes the
// transition the field drives into. The run goes to 1.01 s so that the saw reset at exactly
// t = 1 is an event like the others, not a tie with t_end.
TEST(Cvode, PwmServoMatchesExactReference) {
  const ModelEntry& entry = find_model("pwm-servo");
  const Model<double> model = testing::catalog_model<double>("pwm-servo");
  const double t_end = 1.01;
  const Reference exact = entry.reference(entry.default_values(), t_end);
  ASSERT_GT(exact.events.size(), 20u);
  Simulator<double> simulator(model, cvode_options(t_end, 1e-8, 1e-10));
  Recorder run;
  const RunResult<double> result = simulator.run(&run);
  ASSERT_EQ(run.rows.size(), exact.events.size()) << "missed or spurious events";
  double worst = 0;
  for (std::size_t i = 0; i < exact.events.size(); ++i) {
    const auto& row = run.rows[i];
    const auto& ref = exact.events[i];
    EXPECT_EQ(model.modes[static_cast<std::size_t>(row.from)].name, ref.from) << "event " << i + 1;
    EXPECT_EQ(model.modes[static_cast<std::size_t>(row.to)].name, ref.to) << "event " << i + 1;
    EXPECT_EQ(row.guard, ref.guard) << "event " << i + 1;
    const double dt = std::fabs(row.t - static_cast<double>(ref.t));
    worst = std::max(worst, dt);
    EXPECT_LE(dt, 1e-6) << "event " << i + 1 << " at t* = " << static_cast<double>(ref.t);
    EXPECT_EQ(row.one_sided, satisfies_mode(model, row.from, row.t, row.x_pre)) << "event " << i + 1;
  }
  EXPECT_EQ(result.stats.events, static_cast<std::int64_t>(exact.events.size()));
  EXPECT_LE(result.stats.one_sided_events * 10, result.stats.events) << "CVODE's roots lie past the crossing";
  std::cout << "[cvode pwm-servo 0..1.01 s rtol 1e-8] events " << exact.events.size() << " ("
            << result.stats.one_sided_events << " one-sided), max |t - t*| = " << worst << ", rhs evals "
            << result.stats.rhs_evals << " (" << static_cast<double>(result.stats.rhs_evals) / result.stats.events
            << " per event), steps " << result.stats.steps_accepted << " + " << result.stats.steps_rejected
            << " rejected, guard evals " << result.stats.guard_evals << ", root iterations "
            << result.stats.root_iterations << "\n";
}

// Over [0, 5] s (100 events) at rtol = 1e-10 the whole exact sequence is reproduced, times
// within 1e-9 s. From t = 2.9 s on, omega is small in mode s3 and x = u - k omega - phi is
// flat at exactly 0 over many ulps of t; CVODE's rootfinder lands on that plateau and, left
// alone, stops with "root found at and very near" (cvRcheck2): the peer restarts there.
TEST(Cvode, PwmServoMatchesExactReferenceOverFiveSeconds) {
  const ModelEntry& entry = find_model("pwm-servo");
  const Model<double> model = testing::catalog_model<double>("pwm-servo");
  const Reference exact = entry.reference(entry.default_values(), 5.01);
  ASSERT_EQ(exact.events.size(), 101u);
  RunResult<double> result;
  const auto run = testing::collect(model, cvode_options(5.01, 1e-10, 1e-12), false, &result);
  ASSERT_EQ(run.rows.size(), exact.events.size()) << "missed or spurious events";
  double worst = 0;
  for (std::size_t i = 0; i < exact.events.size(); ++i) {
    EXPECT_EQ(run.rows[i].guard, exact.events[i].guard) << "event " << i + 1;
    EXPECT_EQ(model.modes[static_cast<std::size_t>(run.rows[i].to)].name, exact.events[i].to) << "event " << i + 1;
    const double dt = std::fabs(run.rows[i].t - static_cast<double>(exact.events[i].t));
    worst = std::max(worst, dt);
    EXPECT_LE(dt, 1e-9) << "event " << i + 1;
  }
  std::cout << "[cvode pwm-servo 0..5.01 s rtol 1e-10] events " << run.rows.size() << ", max |t - t*| = " << worst
            << ", rhs evals " << result.stats.rhs_evals << " ("
            << static_cast<double>(result.stats.rhs_evals) / result.stats.events << " per event)\n";
}

// The event times converge with the tolerance: at rtol = 1e-10 the worst PWM event time
// error over [0, 1] s is smaller than at rtol = 1e-6, and below 1e-8 s.
TEST(Cvode, PwmServoEventTimesConvergeWithTolerance) {
  const ModelEntry& entry = find_model("pwm-servo");
  const Model<double> model = testing::catalog_model<double>("pwm-servo");
  const Reference exact = entry.reference(entry.default_values(), 1.01);
  auto worst_at = [&](double rtol) {
    const auto run = testing::collect(model, cvode_options(1.01, rtol, rtol * 1e-2));
    EXPECT_EQ(run.rows.size(), exact.events.size()) << "rtol " << rtol;
    double worst = 0;
    for (std::size_t i = 0; i < std::min(run.rows.size(), exact.events.size()); ++i) {
      worst = std::max(worst, std::fabs(run.rows[i].t - static_cast<double>(exact.events[i].t)));
    }
    return worst;
  };
  const double coarse = worst_at(1e-6);
  const double fine = worst_at(1e-10);
  std::cout << "[cvode pwm-servo 0..1.01 s] max |t - t*|: rtol 1e-6 " << coarse << ", rtol 1e-10 " << fine << "\n";
  EXPECT_LT(fine, coarse);
  EXPECT_LT(fine, 1e-8);
}

// Adams-Moulton with fixed-point iteration (CvodeMethod::kAdams) finds the same PWM events
// at rtol = 1e-8, times within 1e-6 s.
TEST(Cvode, AdamsMatchesExactReference) {
  const ModelEntry& entry = find_model("pwm-servo");
  const Model<double> model = testing::catalog_model<double>("pwm-servo");
  const Reference exact = entry.reference(entry.default_values(), 1.01);
  testing::Collected<double> run;
  testing::Collector<double> collector(&run);
  RunStatistics stats;
  const RunResult<double> result =
      run_cvode(model, cvode_options(1.01, 1e-8, 1e-10), &collector, &stats, CvodeMethod::kAdams);
  ASSERT_EQ(run.rows.size(), exact.events.size());
  double worst = 0;
  for (std::size_t i = 0; i < exact.events.size(); ++i) {
    EXPECT_EQ(run.rows[i].guard, exact.events[i].guard) << "event " << i + 1;
    worst = std::max(worst, std::fabs(run.rows[i].t - static_cast<double>(exact.events[i].t)));
  }
  EXPECT_LE(worst, 1e-6);
  EXPECT_EQ(result.stats.rhs_evals, stats.rhs_evals);
  std::cout << "[cvode adams pwm-servo 0..1.01 s rtol 1e-8] max |t - t*| = " << worst << ", rhs evals "
            << stats.rhs_evals << " (" << stats.rhs_evals / stats.events << " per event)\n";
}

// The counters are CVODE's and add up: more field evaluations than steps (Newton iterations
// and difference-quotient Jacobians), guard evaluations and root iterations, one row per
// transition, Simulator::statistics() equal to the result's. The step log covers [t0, t_end]
// without gaps, holds each accepted CVODE step once, cuts one step at each event and ends
// with kEnd.
TEST(Cvode, CountersAndStepLogAreConsistent) {
  const Model<double> model = testing::catalog_model<double>("pwm-servo");
  const SimulationOptions options = cvode_options(0.55, 1e-8, 1e-10);
  Simulator<double> simulator(model, options);
  StepLog log;
  const RunResult<double> result = simulator.run(&log);
  const RunStatistics& s = result.stats;
  EXPECT_GT(s.steps_accepted, 0);
  EXPECT_GT(s.rhs_evals, s.steps_accepted);
  EXPECT_GT(s.guard_evals, 0);
  EXPECT_GT(s.root_iterations, 0);
  EXPECT_GT(s.events, 5);
  EXPECT_EQ(s.transitions, static_cast<std::int64_t>(log.events.size()));
  EXPECT_EQ(s.events, s.transitions);  // PWM chains visit one mode each
  EXPECT_LT(s.one_sided_events, s.events);
  EXPECT_EQ(simulator.statistics().rhs_evals, s.rhs_evals);
  EXPECT_EQ(simulator.statistics().steps_accepted, s.steps_accepted);
  EXPECT_EQ(simulator.statistics().guard_evals, s.guard_evals);
  EXPECT_EQ(result.reason, RunReason::kReachedEnd);
  EXPECT_EQ(result.t, 0.55);

  ASSERT_EQ(static_cast<std::int64_t>(log.steps.size()), s.steps_accepted);
  double t = model.t0;
  std::int64_t cut = 0;
  for (const auto& step : log.steps) {
    EXPECT_EQ(step.t, t) << "gap in the step log";
    EXPECT_GE(step.h, 0.0);
    t = step.t + step.h;
    if (step.limit == StepLimit::kEvent) ++cut;
  }
  EXPECT_NEAR(t, 0.55, 1e-15);
  EXPECT_EQ(log.steps.back().limit, StepLimit::kEnd);
  EXPECT_EQ(cut, s.events);
}

// max_step bounds every step; steps that it limited are logged as kMaxStep.
TEST(Cvode, MaxStepBoundsTheSteps) {
  const Model<double> model = testing::catalog_model<double>("pwm-servo");
  SimulationOptions options = cvode_options(0.3, 1e-8, 1e-10);
  options.max_step = 0.004;
  Simulator<double> simulator(model, options);
  StepLog log;
  simulator.run(&log);
  ASSERT_FALSE(log.steps.empty());
  int at_max = 0;
  for (const auto& step : log.steps) {
    EXPECT_LE(step.h, 0.004 * (1 + 1e-12)) << "step at t = " << step.t;
    if (step.limit == StepLimit::kMaxStep) ++at_max;
  }
  EXPECT_GT(at_max, 10);
}

// A guard that already fires at t0 starts a chain at t0, as in the engine: x >= 0 holds at
// x0 = 1, so the run enters "b" at once (not one-sided: x0 does not satisfy "a"), then
// dx/dt = -1 takes x to 0.5 at t = 0.5, where "c" begins.
TEST(Cvode, GuardFiringAtStartIsAnEventAtT0) {
  Model<double> model;
  model.name = "start";
  model.state_names = {"x"};
  model.x0 = {1.0};
  model.add_mode("a", [](double, const double*, double* dxdt) { dxdt[0] = 1.0; });
  model.add_mode("b", [](double, const double*, double* dxdt) { dxdt[0] = -1.0; });
  model.add_mode("c", [](double, const double*, double* dxdt) { dxdt[0] = 0.0; });
  model.add_transition("a", "b", "at_once",
                       Guard<double>::atom("x", [](double, const double* x) { return x[0]; }, Relation::kGreaterEqual));
  model.add_transition("b", "c", "half",
                       Guard<double>::atom("x - 0.5", [](double, const double* x) { return x[0] - 0.5; },
                                           Relation::kLessEqual));
  model.finalize();
  RunResult<double> result;
  const auto run = testing::collect(model, cvode_options(1.0, 1e-10, 1e-12), false, &result);
  ASSERT_EQ(run.rows.size(), 2u);
  EXPECT_EQ(run.rows[0].t, 0.0);
  EXPECT_EQ(run.rows[0].guard, "at_once");
  EXPECT_EQ(run.rows[1].guard, "half");
  EXPECT_NEAR(run.rows[1].t, 0.5, 1e-9);
  EXPECT_EQ(result.mode, model.find_mode("c"));
  EXPECT_NEAR(result.x[0], 0.5, 1e-9);
  EXPECT_EQ(result.stats.one_sided_events, 0);
}

// A strict guard t - 1 > 0 on a time-linear event function: CVODE's secant iteration may land
// exactly on the zero, where the relation is still false; the event must not be lost.
TEST(Cvode, StrictGuardReachedExactlyStillFires) {
  Model<double> model;
  model.name = "strict";
  model.state_names = {"x"};
  model.x0 = {0.0};
  model.add_mode("a", [](double, const double*, double* dxdt) { dxdt[0] = 1.0; });
  model.add_mode("b", [](double, const double*, double* dxdt) { dxdt[0] = -1.0; });
  model.add_transition(
      "a", "b", "late", Guard<double>::atom("t - 1", [](double t, const double*) { return t - 1.0; }, Relation::kGreater));
  model.finalize();
  RunResult<double> result;
  const auto run = testing::collect(model, cvode_options(2.0, 1e-8, 1e-10), false, &result);
  ASSERT_EQ(run.rows.size(), 1u);
  EXPECT_EQ(run.rows[0].guard, "late");
  EXPECT_NEAR(run.rows[0].t, 1.0, 1e-12);
  EXPECT_NEAR(result.x[0], 2.0 * run.rows[0].t - 2.0, 1e-8);  // up until the event, down after it
  std::cout << "[cvode strict guard] event at t - 1 = " << run.rows[0].t - 1.0
            << (result.stats.one_sided_events ? " (exact zero, read by the field's direction)" : " (past the zero)")
            << "\n";
}

// CVODE sets aside a root function that is exactly 0 where it (re)starts and stays so (y in
// mode b, identically 0), and keeps that mark through a CVodeRootInit with as many functions.
// The engine restarts after each event; here mode c has as many root functions as b, and its
// first, x - 1.0010001, crosses 1e-7 after the restart at x = 1.001, within CVODE's first
// step there: kept inactive from b, that crossing would be lost (and was, when tried).
// Closed form: events at t = 1, 1.001, 1.0010001.
TEST(Cvode, RootFunctionZeroAtARestartDoesNotBlindTheNextMode) {
  Model<double> model;
  model.name = "inactive-root";
  model.state_names = {"x", "y"};
  model.x0 = {0.0, 0.0};
  const auto rising = [](double, const double*, double* dxdt) {
    dxdt[0] = 1.0;
    dxdt[1] = 0.0;
  };
  for (const char* mode : {"a", "b", "c", "d"}) model.add_mode(mode, rising);
  const auto x_at = [](const char* name, double level) {
    return Guard<double>::atom(name, [level](double, const double* x) { return x[0] - level; }, Relation::kGreaterEqual);
  };
  model.add_transition("a", "b", "x = 1", x_at("x - 1", 1.0));
  model.add_transition("a", "d", "far", x_at("x - 100", 100.0));
  model.add_transition("b", "d", "y > 0", Guard<double>::atom("y", [](double, const double* x) { return x[1]; }, Relation::kGreater));
  model.add_transition("b", "c", "x = 1.001", x_at("x - 1.001", 1.001));
  model.add_transition("c", "d", "x = 1.0010001", x_at("x - 1.0010001", 1.0010001));
  model.add_transition("c", "d", "far", x_at("x - 100", 100.0));
  model.finalize();
  for (const char* strategy : {"cvode", "cvode-adams"}) {
    SimulationOptions options = cvode_options(3.0, 1e-10, 1e-12);
    options.strategy = strategy;
    RunResult<double> result;
    const auto run = testing::collect(model, options, false, &result);
    ASSERT_EQ(run.rows.size(), 3u) << strategy;
    EXPECT_EQ(run.rows[2].guard, "x = 1.0010001") << strategy;
    const double expected[] = {1.0, 1.001, 1.0010001};
    for (std::size_t i = 0; i < 3; ++i) EXPECT_NEAR(run.rows[i].t, expected[i], 1e-9) << strategy << " event " << i;
    EXPECT_EQ(result.mode, model.find_mode("d")) << strategy;
  }
}

// CVODE is built with double realtype: strategy cvode in long double is refused before it runs.
TEST(Cvode, LongDoubleIsRefused) {
  const Model<long double> model = testing::catalog_model<long double>("bouncing-ball");
  try {
    Simulator<long double> simulator(model, cvode_options(1.0, 1e-8, 1e-10));
    simulator.run();
    FAIL() << "no InvalidArgument";
  } catch (const InvalidArgument& e) {
    EXPECT_TRUE(contains(e.what(), "cvode"));
    EXPECT_TRUE(contains(e.what(), "double"));
  }
}

// dx/dt = 1 until t = 0.5, then NaN: the run fails (RunReason::kFailed) with a message that names the
// model, the mode, the time the run reached, the component and the time at which the field
// returned NaN (a trial point of CVODE's step, in [0.5, 1]); the counters up to there remain.
TEST(Cvode, NonFiniteFieldNamesModeAndTime) {
  Model<double> model;
  model.name = "poisoned";
  model.state_names = {"x"};
  model.x0 = {0.0};
  model.add_mode("rising", [](double t, const double*, double* dxdt) {
    dxdt[0] = t < 0.5 ? 1.0 : std::numeric_limits<double>::quiet_NaN();
  });
  model.add_mode("other", [](double, const double*, double* dxdt) { dxdt[0] = 0.0; });
  model.add_transition("rising", "other", "never",
                       Guard<double>::atom("x - 10", [](double, const double* x) { return x[0] - 10.0; },
                                           Relation::kGreaterEqual));
  model.finalize();
  Simulator<double> simulator(model, cvode_options(1.0, 1e-8, 1e-10));
  const std::string message = simulator.run().message;
  ASSERT_TRUE(contains(message, "CV_RHSFUNC_FAIL")) << "the run did not fail: " << message;
  EXPECT_TRUE(contains(message, "model 'poisoned'"));
  EXPECT_TRUE(contains(message, "mode 'rising'"));
  EXPECT_TRUE(contains(message, "CV_RHSFUNC_FAIL"));
  EXPECT_TRUE(contains(message, "dx/dt = nan at t = "));
  // Where the run stood (before the poisoned region) and the trial time of the NaN (in it).
  EXPECT_LT(number_after(message, "', t = "), 0.5);
  EXPECT_GE(number_after(message, "nan at t = "), 0.5);
  EXPECT_LE(number_after(message, "nan at t = "), 1.0);
  EXPECT_GT(simulator.statistics().rhs_evals, 0);
  std::cout << "[cvode NaN field] " << message << "\n";
}

// A field that is NaN from the start fails at t0, before CVODE is created.
TEST(Cvode, NonFiniteFieldAtStartNamesModeAndTime) {
  Model<double> model;
  model.name = "poisoned";
  model.state_names = {"x"};
  model.x0 = {1.0};
  model.add_mode("sick",
                 [](double, const double*, double* dxdt) { dxdt[0] = std::numeric_limits<double>::quiet_NaN(); });
  model.add_mode("other", [](double, const double*, double* dxdt) { dxdt[0] = 0.0; });
  model.add_transition("sick", "other", "never",
                       Guard<double>::atom("x - 10", [](double, const double* x) { return x[0] - 10.0; },
                                           Relation::kGreaterEqual));
  model.finalize();
  Simulator<double> simulator(model, cvode_options(1.0, 1e-8, 1e-10));
  {
    const RunResult<double> result = simulator.run();
    ASSERT_TRUE(result.failed()) << "the run did not fail";
    EXPECT_TRUE(contains(result.message, "mode 'sick'"));
    EXPECT_TRUE(contains(result.message, "t = 0"));
    EXPECT_TRUE(contains(result.message, "nan"));
  }
}

// CVODE cannot follow a sliding motion: the stick-slip oscillator sticks (the belt drags the
// mass along, the friction's two sides drive into the surface of zero relative velocity) and
// the run is refused with a line that names the two modes and what to run instead, where the
// engine's own loop slides on (its reference run reaches t_end).
TEST(Cvode, SlidingModelIsRefused) {
  const Model<double> model = testing::catalog_model<double>("stick-slip");
  try {
    Simulator<double> simulator(model, cvode_options(1.0, 1e-8, 1e-10));
    simulator.run();
    FAIL() << "no UnsupportedModel";
  } catch (const UnsupportedModel& e) {
    std::cout << "[cvode sliding] " << e.what() << "\n";
    EXPECT_TRUE(contains(e.what(), "model 'stick-slip'"));
    EXPECT_TRUE(contains(e.what(), "slides on a surface between modes"));
    EXPECT_TRUE(contains(e.what(), "gamma-refine"));
    EXPECT_LT(number_after(e.what(), "', t = "), 0.2);  // where sticking begins (t = 0.1278)
  }
  SimulationOptions own = cvode_options(1.0, 1e-8, 1e-10);
  own.strategy = "gamma-refine";
  Simulator<double> simulator(model, own);
  const RunResult<double> result = simulator.run();
  EXPECT_EQ(result.reason, RunReason::kReachedEnd) << result.message;
  EXPECT_EQ(result.t, 1.0);
}

// Modelica by Example's chatter model, der(x) = 1 - 2 sign(x) from x = 1 written as two modes
// with one-sided guards: x reaches 0 at t = 1 and then both fields drive into x = 0. The chain
// classes the arrival sliding or CVODE crosses back and forth: either way, refused near t = 1.
TEST(Cvode, ChatterAcrossASurfaceIsRefused) {
  Model<double> model;
  model.name = "chatter";
  model.state_names = {"x"};
  model.x0 = {1.0};
  model.add_mode("above", [](double, const double*, double* dxdt) { dxdt[0] = -1.0; });
  model.add_mode("below", [](double, const double*, double* dxdt) { dxdt[0] = 3.0; });
  model.add_transition("above", "below", "x <= 0",
                       Guard<double>::atom("x", [](double, const double* x) { return x[0]; }, Relation::kLessEqual));
  model.add_transition("below", "above", "x > 0",
                       Guard<double>::atom("x", [](double, const double* x) { return x[0]; }, Relation::kGreater));
  model.finalize();
  Simulator<double> simulator(model, cvode_options(5.0, 1e-8, 1e-10));
  try {
    simulator.run();
    FAIL() << "no UnsupportedModel";
  } catch (const UnsupportedModel& e) {
    EXPECT_TRUE(contains(e.what(), "'above' and 'below'") || contains(e.what(), "'below' and 'above'")) << e.what();
    EXPECT_NEAR(number_after(e.what(), "', t = "), 1.0, 1e-6);
  }
}

// The event limit stops the run with reason kEventLimit after exactly that many events.
TEST(Cvode, EventLimitStopsTheRun) {
  const Model<double> model = testing::catalog_model<double>("pwm-servo");
  SimulationOptions options = cvode_options(1.0, 1e-8, 1e-10);
  options.event_limit = 7;
  RunResult<double> result;
  const auto run = testing::collect(model, options, false, &result);
  EXPECT_EQ(result.reason, RunReason::kEventLimit);
  EXPECT_EQ(result.stats.events, 7);
  EXPECT_EQ(run.rows.size(), 7u);
  EXPECT_LT(result.t, 1.0);
}

// Robertson's kinetics with the roots of SUNDIALS's cvRoberts_dns (models/robertson.hym) to
// t = 4e10: CVODE BDF at rtol 1e-12 finds both roots at the times tests/robertson_test.cpp takes
// as references (computed there by ndf and rosenbrock4 in float128): a different code in double
// confirms them, to 1e-10 (y3 = 0.01 at t = 0.26401907818763) and 5e-9 (y1 = 1e-4 at
// t = 20795496.883027); measured 1.3e-11 and 1.8e-9.
TEST(Cvode, RobertsonRootsMatchTheBinary128References) {
  const ModelEntry entry = lang::load_model_file(testing::source_dir() + "/models/robertson.hym");
  const Model<double> model = entry.make<double>(entry.default_values());
  RunResult<double> result;
  const auto run = testing::collect(model, cvode_options(4e10, 1e-12, 1e-14), false, &result);
  ASSERT_EQ(result.reason, RunReason::kReachedEnd) << result.message;
  ASSERT_EQ(run.rows.size(), 2u);
  EXPECT_EQ(run.rows[0].guard, "g2");
  EXPECT_EQ(run.rows[1].guard, "g1");
  EXPECT_LT(std::fabs(run.rows[0].t - 0.26401907818763) / 0.26401907818763, 1e-10) << run.rows[0].t;
  EXPECT_LT(std::fabs(run.rows[1].t - 20795496.883027) / 20795496.883027, 5e-9) << run.rows[1].t;
  std::cout << "[cvode robertson rtol 1e-12] roots at " << run.rows[0].t << " and " << run.rows[1].t << "; "
            << result.stats.steps_accepted << " steps, " << result.stats.rhs_evals << " field evaluations\n";
}

}  // namespace
}  // namespace hysim
