// The certified strategy (events/certifier.hpp, docs/certified.md) against closed forms on
// adversarial guards that defeat sampling: a fast ripple on a slow approach, the narrow crests
// of a fast oscillator, a window of 2e-5 s; the proof's failure where a guard touches 0
// without crossing; a deliberately widened enclosure subdivided; the enclosure of every
// solver's dense output holding the dense output itself; the PWM servo's file twin giving the
// default strategy's events with every step proved.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <memory>
#include <numbers>
#include <random>
#include <string>
#include <vector>

#include "hysim/lang/build.hpp"
#include "hysim/lang/compiler.hpp"
#include "hysim/solvers/dense_enclosure.hpp"
#include "hysim/solvers/stepper.hpp"
#include "model_text.hpp"
#include "source_dir.hpp"
#include "test_support.hpp"

namespace hysim {
namespace {

Model<double> from_text(const std::string& text) { return testing::model_from_text("certified.hym", text); }

SimulationOptions with(const std::string& strategy, double t_end) {
  return testing::tight_options(strategy, t_end);
}

// The first t > t_from where g changes sign from negative, by a scan at `step` and bisection,
// in long double: an independent reference for the closed forms below.
long double first_root(const std::function<long double(long double)>& g, long double t_from, long double step) {
  long double t = t_from;
  while (g(t + step) < 0) t += step;
  long double a = t, b = t + step;
  for (int i = 0; i < 200; ++i) {
    const long double m = (a + b) / 2;
    (g(m) < 0 ? a : b) = m;
  }
  return a;
}

// A slow approach with a fast ripple written in the guard: x = t / 100 meets 1 - 0.05 sin(50 t)
// first near t = 95.03, on a crest of the ripple that lasts 0.02 s, long before the slow part
// alone would (t = 100).
const char* const kRipple = R"(model ripple
parameter rate = 0.01, a = 0.05, w = 50
state x = 0
mode approach { der(x) = rate }
mode past { der(x) = rate }
initial approach
approach -> past hit [x + a*sin(w*t) >= 1]
)";

TEST(Certified, FindsTheFirstCrossingOfAFastRippleThatSamplingMisses) {
  const Model<double> model = from_text(kRipple);
  const long double exact =
      first_root([](long double t) { return 0.01L * t + 0.05L * std::sin(50 * t) - 1; }, 0, 1e-4L);
  ASSERT_NEAR(static_cast<double>(exact), 95.0309512670143, 1e-9);
  RunResult<double> result;
  const auto run = testing::collect(model, with("certified", 120), false, &result);
  ASSERT_EQ(result.reason, RunReason::kReachedEnd) << result.message;
  ASSERT_EQ(run.rows.size(), 1u);
  EXPECT_NEAR(run.rows[0].t, static_cast<double>(exact), 1e-9);
  const CertifiedStatistics& c = result.stats.certified;
  EXPECT_EQ(c.level, 1);
  EXPECT_EQ(c.steps_unproved, 0);
  EXPECT_EQ(c.events_unique, 1);
  EXPECT_GT(c.subdivisions, 0) << "the step across the crest must be split";
  // The crest lies between the default strategy's samples: it reports a later crossing.
  const auto sampled = testing::collect(model, with("gamma-refine", 120));
  ASSERT_EQ(sampled.rows.size(), 1u);
  EXPECT_GT(sampled.rows[0].t, static_cast<double>(exact) + 0.5);
}

// The crests of a fast oscillator above 1 - 1e-8, each for 2.8e-5 s: x = t exactly, the
// guard sin(10 x) >= 1 - 1e-8, entered at (pi/2 + 2 pi k - d) / 10 and left at
// (pi/2 + 2 pi k + d) / 10, d = acos(1 - 1e-8).
TEST(Certified, FindsEveryNarrowCrestOfAFastOscillator) {
  const Model<double> model = from_text(R"(model crests
parameter w = 10, c = 0.99999999
state x = 0
mode low { der(x) = 1 }
mode high { der(x) = 1 }
initial low
low -> high up [sin(w*x) >= c]
high -> low down [sin(w*x) < c]
)");
  RunResult<double> result;
  const auto run = testing::collect(model, with("certified", 3), false, &result);
  ASSERT_EQ(result.reason, RunReason::kReachedEnd) << result.message;
  const long double d = std::acos(0.99999999L), pi = std::numbers::pi_v<long double>;
  ASSERT_EQ(run.rows.size(), 10u) << "five crests in [0, 3], two crossings each";
  for (std::size_t j = 0; j < run.rows.size(); ++j) {
    const long double crest = (pi / 2 + 2 * pi * static_cast<long double>(j / 2)) / 10;
    const long double exact = j % 2 == 0 ? crest - d / 10 : crest + d / 10;
    EXPECT_NEAR(run.rows[j].t, static_cast<double>(exact), 1e-9) << "crossing " << j;
  }
  EXPECT_EQ(result.stats.certified.steps_unproved, 0);
  const auto sampled = testing::collect(model, with("gamma-refine", 3));
  EXPECT_LT(sampled.rows.size(), run.rows.size()) << "the default strategy steps over some crests";
}

// A window of 2e-5 s around t = 3.3: (x - 3.3)^2 < 1e-10 with x = t.
const char* const kWindow = R"(model window
state x = 0
mode out { der(x) = 1 }
mode inside { der(x) = 1 }
initial out
out -> inside enter [(x - 3.3)^2 < 1e-10]
inside -> out leave [(x - 3.3)^2 >= 1e-10]
)";

TEST(Certified, FindsANarrowWindowAroundAPoint) {
  const Model<double> model = from_text(kWindow);
  RunResult<double> result;
  const auto run = testing::collect(model, with("certified", 10), false, &result);
  ASSERT_EQ(result.reason, RunReason::kReachedEnd) << result.message;
  ASSERT_EQ(run.rows.size(), 2u);
  EXPECT_NEAR(run.rows[0].t, 3.3 - 1e-5, 1e-9);
  EXPECT_NEAR(run.rows[1].t, 3.3 + 1e-5, 1e-9);
}

// -(x - 1/3)^2 >= 0 touches its surface at x = 1/3 without crossing: no enclosure decides it
// there. Strict, the run fails and says where; not strict, it warns, counts and goes on.
TEST(Certified, SaysSoWhereNoProofIsPossible) {
  const Model<double> model = from_text(R"(model touch
state x = 0
mode a { der(x) = 1 }
mode b { der(x) = 1 }
initial a
a -> b top [-(x - 1/3)^2 >= 0]
)");
  RunResult<double> strict;
  (void)testing::collect(model, with("certified", 1), false, &strict);
  ASSERT_TRUE(strict.failed());
  EXPECT_TRUE(testing::contains(strict.message, "could not prove")) << strict.message;
  EXPECT_TRUE(testing::contains(strict.message, "of mode 'a'")) << strict.message;
  SimulationOptions lenient = with("certified", 1);
  lenient.certified_strict = false;
  RunResult<double> result;
  (void)testing::collect(model, lenient, false, &result);
  EXPECT_EQ(result.reason, RunReason::kReachedEnd) << result.message;
  EXPECT_GE(result.stats.certified.steps_unproved, 1);
  ASSERT_EQ(result.warnings.size(), 1u);
  EXPECT_TRUE(testing::contains(result.warnings[0], "could not prove"));
}

// A model's enclosures of its atoms and their rates widened by their own width on each side
// (three times as wide), plus 1e-12: still correct, so the same events, but only after more
// subdivisions.
class Widened final : public GuardEnclosure {
 public:
  explicit Widened(std::unique_ptr<GuardEnclosure> inner) : inner_(std::move(inner)) {}
  void set_box(Interval t, const Interval* x, const Interval* dxdt) override { inner_->set_box(t, x, dxdt); }
  Interval value(int mode, int k, int i) override { return wider(inner_->value(mode, k, i)); }
  Interval rate(int mode, int k, int i) override { return wider(inner_->rate(mode, k, i)); }
  int function_id(int mode, int k, int i) const override { return inner_->function_id(mode, k, i); }

 private:
  static Interval wider(Interval v) {
    const double w = v.hi - v.lo + 1e-12;
    return {v.lo - w, v.hi + w};
  }
  std::unique_ptr<GuardEnclosure> inner_;
};

TEST(Certified, AWidenedEnclosureIsSubdividedFurther) {
  const Model<double> plain = from_text(kWindow);
  Model<double> widened = from_text(kWindow);
  widened.guard_enclosure = [inner = plain.guard_enclosure] { return std::make_unique<Widened>(inner()); };
  RunResult<double> a, b;
  const auto run_a = testing::collect(plain, with("certified", 10), false, &a);
  const auto run_b = testing::collect(widened, with("certified", 10), false, &b);
  ASSERT_EQ(b.reason, RunReason::kReachedEnd) << b.message;
  ASSERT_EQ(run_a.rows.size(), 2u);
  ASSERT_EQ(run_b.rows.size(), 2u);
  for (std::size_t j = 0; j < 2; ++j) EXPECT_EQ(run_b.rows[j].t, run_a.rows[j].t);
  EXPECT_GT(b.stats.certified.subdivisions, a.stats.certified.subdivisions);
  EXPECT_GT(b.stats.certified.enclosures, a.stats.certified.enclosures);
}

// The refusals: a built-in C++ model (no interval guards), a run in long double.
TEST(Certified, RefusesModelsWithoutIntervalGuardsAndOtherScalars) {
  const auto message_of = [](auto&& run) -> std::string {
    try {
      run();
    } catch (const Error& e) {
      return e.what();
    }
    return "";
  };
  const Model<double> builtin = testing::catalog_model<double>("pwm-servo");
  std::string message = message_of([&] {
    RunResult<double> r;
    (void)testing::collect(builtin, with("certified", 1), false, &r);
    if (r.failed()) throw InvalidArgument(r.message);
  });
  EXPECT_TRUE(testing::contains(message, "models/pwm-servo.hym")) << message;
  const auto spec = std::make_shared<const lang::ModelSpec>(lang::compile_text("r.hym", kRipple));
  const ModelEntry entry = lang::model_entry(spec);
  const Model<long double> wide = entry.make<long double>(entry.default_values());
  message = message_of([&] {
    RunResult<long double> r;
    (void)testing::collect(wide, with("certified", 1), false, &r);
    if (r.failed()) throw InvalidArgument(r.message);
  });
  EXPECT_TRUE(testing::contains(message, "double only")) << message;
}

// Every solver's dense output lies inside its enclosure, at points and over parts of the step:
// the degree each solver declares is that of its interpolant.
TEST(Certified, TheEnclosureOfEverySolversDenseOutputHoldsIt) {
  const std::function<void(double, const double*, double*)> field = [](double t, const double* x, double* dxdt) {
    dxdt[0] = x[1];
    dxdt[1] = 2 * (1 - x[0] * x[0]) * x[1] - x[0] + std::sin(t);  // forced van der Pol
  };
  std::mt19937_64 random(5);
  for (const SolverInfo& info : solver_catalog()) {
    SCOPED_TRACE(info.name);
    StepperTolerances<double> tolerances;
    tolerances.rtol = 1e-6;
    auto stepper = make_stepper<double>(info.name, 2, tolerances);
    std::int64_t evaluations = 0;
    const double x0[2] = {1.5, -0.3};
    stepper->restart(Rhs<double>{&field, &evaluations}, 0.2, x0, nullptr);
    DenseEnclosure dense(2);
    for (int step = 0; step < 6; ++step) {
      for (double h = 0.05;;) {  // a rejected attempt is retried with the solver's proposal
        const StepOutcome<double> outcome = stepper->try_step(h);
        if (outcome.status == StepStatus::kAccepted) break;
        h = outcome.h_next;
      }
      if (stepper->dense_degree() < 0) break;
      ASSERT_EQ(dense.fit(*stepper), DenseEnclosure::Fit::kFitted);
      const double t0 = stepper->t_previous(), t1 = stepper->t_current();
      std::uniform_real_distribution<double> within(t0, t1);
      for (int k = 0; k < 40; ++k) {
        double a = within(random), b = within(random);
        if (a > b) std::swap(a, b);
        const double t = a + (b - a) * 0.37;
        double x[2];
        stepper->interpolate(t, x);
        Interval at[2], over[2], slope[2];
        dense.enclose(t, t, at, nullptr);
        dense.enclose(a, b, over, slope);
        for (int i = 0; i < 2; ++i) {
          EXPECT_TRUE(at[i].contains(x[i])) << "x" << i << "(" << t << ") = " << x[i] << " outside [" << at[i].lo
                                            << ", " << at[i].hi << "]";
          EXPECT_TRUE(over[i].contains(x[i]));
          EXPECT_LT(at[i].width(), 1e-10 * (1 + std::fabs(x[i])));
        }
      }
    }
  }
}

// Runs `model` to t_end under the default strategy and under certified (rtol 1e-6, atol 1e-9):
// whether certified reaches the end with the default's events to the last bit (its result in
// *result, its event times in *times unless null).
::testing::AssertionResult gives_the_default_events(const Model<double>& model, double t_end, RunResult<double>* result,
                                                    std::vector<double>* times = nullptr) {
  SimulationOptions options = with("gamma-refine", t_end);
  options.rtol = 1e-6;
  options.atol = 1e-9;
  const auto reference = testing::collect(model, options);
  options.strategy = "certified";
  const auto run = testing::collect(model, options, false, result);
  if (result->reason != RunReason::kReachedEnd) return ::testing::AssertionFailure() << result->message;
  if (run.rows.size() != reference.rows.size()) {
    return ::testing::AssertionFailure() << run.rows.size() << " events, the default " << reference.rows.size();
  }
  for (std::size_t j = 0; j < run.rows.size(); ++j) {
    if (run.rows[j].t != reference.rows[j].t || run.rows[j].to != reference.rows[j].to) {
      return ::testing::AssertionFailure() << "event " << j << " at " << run.rows[j].t << ", the default's at "
                                           << reference.rows[j].t;
    }
    if (times != nullptr) times->push_back(run.rows[j].t);
  }
  return ::testing::AssertionSuccess();
}

// The PWM servo's file twin, tracking u(t) = sin t: the default strategy's events, every step
// proved, every event but the one at t0 in a part where one monotone function changes sign.
TEST(Certified, PwmServoTwinGivesTheDefaultEventsWithEveryStepProved) {
  const ModelEntry entry = lang::load_model_file(testing::source_dir() + "/models/pwm-servo.hym");
  ParameterValues values = entry.default_values();
  for (const auto& [key, value] : std::vector<std::pair<std::string, std::string>>{
           {"u", "0"}, {"u_amp", "1"}, {"u_freq", "1"}}) {
    values.set(key, value);
  }
  const Model<double> model = entry.make<double>(values);
  RunResult<double> result;
  ASSERT_TRUE(gives_the_default_events(model, 20, &result));
  const CertifiedStatistics& c = result.stats.certified;
  EXPECT_EQ(c.steps_unproved, 0);
  EXPECT_EQ(c.steps_proved, result.stats.steps_accepted);
  EXPECT_EQ(c.events_bracketed, 0);
  EXPECT_EQ(c.events_unique + 1, result.stats.events);
}

// The PWM servo's default preset settles: its control error x sits at rounding level, of no
// sign the enclosure can tell, when the saw resets at 7.7 s. The reset's two guards,
// `saw >= saw_max && x >= 0` and `saw >= saw_max && x < 0`, change only where the saw crosses
// saw_max, whatever x's sign: the part is decided by one point there, not halved to the depth
// limit (where the strict run failed before the rule that reads them together).
TEST(Certified, ComplementaryGuardsOnAMonotoneConditionChangeAtItsRoot) {
  const ModelEntry entry = lang::load_model_file(testing::source_dir() + "/models/pwm-servo.hym");
  const Model<double> model = entry.make<double>(entry.default_values());
  RunResult<double> result;
  std::vector<double> times;
  ASSERT_TRUE(gives_the_default_events(model, 8.5, &result, &times));
  EXPECT_TRUE(std::any_of(times.begin(), times.end(), [](double t) { return std::fabs(t - 7.7) < 1e-9; }));
  const CertifiedStatistics& c = result.stats.certified;
  EXPECT_EQ(c.steps_unproved, 0);
  EXPECT_LT(c.max_depth, 40) << "no part halved to the depth limit";
}

}  // namespace
}  // namespace hysim
