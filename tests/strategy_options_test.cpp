// A strategy's own options (events/strategy.hpp, StrategyOption): a strategy defined in this
// file declares an option of its own, with its check, registers itself, and runs with that
// option set through the Simulator, without a field in SimulationOptions. And the built-in
// strategies' tuning is checked only for the strategy chosen.
//
// "banded-bisection" is bisection that stops at a bracket of `band` seconds (its option,
// default 1e-6 s): each event lies at the pre-event end of a bracket at most `band` wide.
//
// The library's compare (hysim/study/comparison.hpp) takes a registered strategy's own options
// by strategy name (CompareRequest::settings), checked below; the program's `hysim compare`
// reads SimulationOptions only, so it runs such a strategy at its options' defaults (the
// program's path for a registered strategy is tested in custom_strategy_test.cpp).
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "hysim/core/errors.hpp"
#include "hysim/events/engine.hpp"
#include "hysim/events/strategy.hpp"
#include "hysim/study/comparison.hpp"
#include "test_support.hpp"

namespace hysim {
namespace {

template <class S>
class BandedBisection final : public EventStrategy<S> {
 public:
  static std::vector<StrategyOption> options() {
    return {{"band", "s", "width of the final location bracket, > 0", Decimal(1e-6)}};
  }
  static void validate(const StrategyTuning& tuning) {
    const Decimal band = tuning.number("band");
    require_option(exact_value(band) > 0, "band", band, "band > 0");
  }

  explicit BandedBisection(const StrategyTuning& tuning) : band_(tuning.number("band").template to<S>("option band")) {}
  CrossingDecision<S> on_crossing(const CrossedStep<S>& /*step*/) const override {
    return CrossingDecision<S>::locate(Locator::kBisection, CrossingDecision<S>::Side::kPreEvent, band_);
  }

 private:
  S band_;
};

void register_banded_bisection() {
  static const bool registered = [] {
    register_strategy(strategy_entry<BandedBisection>("banded-bisection", "bisection to a bracket of `band` s",
                                                      "strategy_options_test.cpp", BandedBisection<double>::options(),
                                                      &BandedBisection<double>::validate));
    return true;
  }();
  (void)registered;
}

// The widest location bracket [t, t_bracket] of a run's events.
template <class S>
class WidestBracket final : public Observer<S> {
 public:
  void on_event(const EventRecord<S>& record) override {
    widest = std::max(widest, static_cast<double>(record.t_bracket - record.t));
  }
  double widest = 0;
};

template <class S>
double widest_bracket(const StrategySettings& settings) {
  const Model<S> model = testing::catalog_model<S>("pwm-servo");
  SimulationOptions options;
  options.strategy = "banded-bisection";
  options.t_end = 1.0;
  WidestBracket<S> observer;
  const RunResult<S> result = Simulator<S>(model, options, settings).run(&observer);
  EXPECT_EQ(result.reason, RunReason::kReachedEnd) << result.message;
  EXPECT_GE(result.stats.events, 19);  // the 20th switch lies at t_end: within a wide band or not
  EXPECT_LE(result.stats.events, 20);
  EXPECT_EQ(result.stats.one_sided_events, result.stats.events);
  return observer.widest;
}

TEST(StrategyOptions, TheEntryCarriesItsOwnOption) {
  register_banded_bisection();
  const StrategyInfo& info = find_strategy("banded-bisection");
  ASSERT_EQ(info.options.size(), 1u);
  EXPECT_EQ(info.options[0].name, "band");
  EXPECT_EQ(info.options[0].unit, "s");
  EXPECT_FALSE(info.is_driver());
  // A policy of the simulator's own loop, the engine "hysim" (in the catalog once a simulator ran).
  EXPECT_EQ(info.engine, "hysim");
  (void)widest_bracket<double>({});
  EXPECT_EQ(find_engine(info.engine).name, "hysim");
}

// The option set per run reaches the policy, in every scalar type; unset, its default holds.
TEST(StrategyOptions, SetThroughTheSimulator) {
  register_banded_bisection();
  const double by_default = widest_bracket<double>({});
  EXPECT_LE(by_default, 1e-6);
  EXPECT_GT(by_default, 1e-7);
  const StrategySettings wide{{"band", Decimal(1e-4)}};
  for (const double widest : {widest_bracket<double>(wide), widest_bracket<long double>(wide),
                              widest_bracket<float128>(wide)}) {
    EXPECT_LE(widest, 1e-4);
    EXPECT_GT(widest, 1e-6);
  }
  const StrategySettings as_text{{"band", Decimal("1e-5")}};
  const double widest = widest_bracket<double>(as_text);
  EXPECT_LE(widest, 1e-5);
  EXPECT_GT(widest, 1e-6);
}

// Its check, and its name: a bad value or an option it does not have is refused by name.
TEST(StrategyOptions, RefusedByName) {
  register_banded_bisection();
  const Model<double> model = testing::catalog_model<double>("pwm-servo");
  SimulationOptions options;
  options.strategy = "banded-bisection";
  const auto message = [&](const StrategySettings& settings) {
    try {
      Simulator<double> simulator(model, options, settings);
    } catch (const InvalidArgument& error) {
      return std::string(error.what());
    }
    return std::string();
  };
  EXPECT_TRUE(testing::contains(message({{"band", Decimal(-1.0)}}), "option band = -1 violates band > 0"))
      << message({{"band", Decimal(-1.0)}});
  EXPECT_TRUE(testing::contains(message({{"width", Decimal(1.0)}}), "strategy banded-bisection has no option width"))
      << message({{"width", Decimal(1.0)}});
  options.strategy = "gamma";  // its options are fields of SimulationOptions, set there
  EXPECT_TRUE(testing::contains(message({{"gamma", Decimal(0.5)}}), "is a field of SimulationOptions"))
      << message({{"gamma", Decimal(0.5)}});
  options.strategy = "bisection";  // the built-in ones take no settings of this kind
  EXPECT_TRUE(testing::contains(message({{"band", Decimal(1.0)}}), "its options: none")) << message({{"band", Decimal(1.0)}});
}

// Only the chosen strategy's tuning is checked: a gamma out of range stops gamma, not bisection;
// and gamma's least step h_min is held against the horizon under gamma only.
TEST(StrategyOptions, OnlyTheChosenStrategyIsChecked) {
  const Model<double> model = testing::catalog_model<double>("bouncing-ball");
  SimulationOptions options;
  options.gamma = 2.0;
  options.refine_gamma = 5.0;
  options.samples = 0;
  options.strategy = "bisection";
  EXPECT_NO_THROW(Simulator<double>(model, options));
  options.strategy = "gamma";
  EXPECT_THROW(Simulator<double>(model, options), InvalidArgument);
  options.strategy = "gamma-refine";
  EXPECT_THROW(Simulator<double>(model, options), InvalidArgument);
  options.strategy = "sampled";
  EXPECT_THROW(Simulator<double>(model, options), InvalidArgument);

  SimulationOptions horizon;
  horizon.t_end = 1e9;
  horizon.strategy = "bisection";
  EXPECT_NO_THROW(Simulator<double>(model, horizon));
  horizon.strategy = "gamma";
  EXPECT_THROW(Simulator<double>(model, horizon), InvalidArgument);
}

// compare_runs with the option set: against the PWM servo's exact events, the default band
// places every event within 1e-6 s of its switch; with a band of 1e-4 s the first event lies
// before its switch by at most the band (the pre-event end of the bracket), and the run's
// largest error exceeds 1e-6 s (a switch taken early moves the ones after it too).
TEST(StrategyOptions, SetThroughCompare) {
  register_banded_bisection();
  study::CompareRequest request;
  request.choice.model = "pwm-servo";
  request.options.t_end = 1.0;
  request.strategies = {"banded-bisection", "bisection"};
  double first_error = 0;  // t~ - t* of banded-bisection's first event
  const auto widest_error = [&](const study::SettingsByStrategy& settings) {
    request.settings = settings;
    const study::Comparison comparison = study::compare_runs(request);
    EXPECT_TRUE(comparison.reference.has_value());
    std::vector<double> errors;
    for (const study::Evaluation& run : comparison.runs) {
      EXPECT_EQ(run.outcome, study::Outcome::kCompleted) << run.note;
      EXPECT_TRUE(run.match.has_value());
      EXPECT_EQ(run.match->missed, 0u);
      EXPECT_EQ(run.match->spurious, 0u);
      EXPECT_EQ(run.stats.one_sided_events, run.stats.events);
      errors.push_back(study::max_time_error(*run.match, run.events, comparison.reference->events).value_or(-1));
    }
    const auto first = study::event_error(*comparison.runs.front().match, comparison.runs.front().events,
                                          comparison.reference->events, 1);
    EXPECT_TRUE(first.has_value());
    first_error = first ? first->t : 1.0;
    return errors;  // banded-bisection, then bisection
  };
  const std::vector<double> by_default = widest_error({});
  ASSERT_EQ(by_default.size(), 2u);
  EXPECT_LE(by_default[0], 1e-6);
  const std::vector<double> wide = widest_error({{"banded-bisection", {{"band", Decimal(1e-4)}}}});
  ASSERT_EQ(wide.size(), 2u);
  EXPECT_GT(wide[0], 1e-6);
  EXPECT_LE(first_error, 0.0);
  EXPECT_GE(first_error, -1e-4);
  EXPECT_EQ(wide[1], by_default[1]);  // bisection's runs take no settings: the same numbers
  // A bad value, or settings for a strategy not run, are refused before any run.
  request.settings = {{"banded-bisection", {{"band", Decimal(-1.0)}}}};
  EXPECT_THROW(study::compare_runs(request), InvalidArgument);
  request.settings = {{"gamma", {{"band", Decimal(1.0)}}}};
  EXPECT_THROW(study::compare_runs(request), InvalidArgument);
}

}  // namespace
}  // namespace hysim
