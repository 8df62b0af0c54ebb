// A strategy's own options (events/strategy.hpp, StrategyOption): a strategy defined in this
// file declares an option of its own, with its check, registers itself, and runs with that
// option set through the Simulator, without a field in SimulationOptions. And the built-in
// strategies' tuning is checked only for the strategy chosen.
//
// "banded-bisection" is bisection that stops at a bracket of `band` seconds (its option,
// default 1e-6 s): each event lies at the pre-event end of a bracket at most `band` wide.
//
// `hysim compare` reads its options from the command line into SimulationOptions, which has
// no room for a registered strategy's own option: compare runs the strategy at its option's
// default (checked below); a value set per run goes through the Simulator.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "apps/commands.hpp"
#include "hysim/core/errors.hpp"
#include "hysim/events/engine.hpp"
#include "hysim/events/strategy.hpp"
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

// `hysim compare pwm-servo --strategies banded-bisection,bisection`, as a program that registers
// the strategy before parsing would run it: its row is there, one-sided, at the default band.
TEST(StrategyOptions, ComparedAtItsDefault) {
  register_banded_bisection();
  const std::filesystem::path out = std::filesystem::temp_directory_path() / "hysim_strategy_options_test";
  std::filesystem::remove_all(out);
  CLI::App app;
  int verbosity = 0;
  const app::Command compare = app::add_compare_command(app, &verbosity);
  const std::string out_text = out.string();
  std::vector<const char*> argv = {"hysim", "compare", "pwm-servo", "--t-end", "1", "--strategies",
                                   "banded-bisection,bisection", "--out", out_text.c_str()};
  app.parse(static_cast<int>(argv.size()), argv.data());
  ASSERT_EQ(compare.execute(), 0);
  std::ifstream csv(out / "compare.csv");
  std::string line;
  int rows = 0;
  while (std::getline(csv, line)) rows += line.find(",banded-bisection,") != std::string::npos ? 1 : 0;
  EXPECT_EQ(rows, 1);
  std::filesystem::remove_all(out);
}

}  // namespace
}  // namespace hysim
