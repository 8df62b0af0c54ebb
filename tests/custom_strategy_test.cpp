// A strategy written outside the engine: defined in this file, registered in the catalog, run
// by name through the Simulator and through `hysim compare`, and compared with the built-in
// bisection on the PWM servo's exact reference (20 events over [0, 1] s).
//
// "coarse-bisection" is bisection that stops at a bracket of 1e-6 s: each event lies at the
// pre-event end of a bracket at most 1e-6 s wide, so it stays one-sided, needs ~20 trial points
// per event instead of ~50, and its time errors are far above bisection's rounding level.
// (Over [0, 5] s those errors grow past 1e-6 s and the converged tail gains spurious events.)
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "apps/commands.hpp"
#include "hysim/core/errors.hpp"
#include "hysim/events/strategy.hpp"
#include "test_support.hpp"

namespace hysim {
namespace {

template <class S>
class CoarseBisection final : public EventStrategy<S> {
 public:
  explicit CoarseBisection(const SimulationOptions& /*options*/) {}
  CrossingDecision<S> on_crossing(const CrossedStep<S>& /*step*/) const override {
    return CrossingDecision<S>::locate(Locator::kBisection, CrossingDecision<S>::Side::kPreEvent, S(1e-6));
  }
};

void register_coarse_bisection() {
  static const bool registered = [] {
    register_strategy(strategy_entry<CoarseBisection>("coarse-bisection", "bisection to a 1e-6 s bracket",
                                                      "custom_strategy_test.cpp"));
    return true;
  }();
  (void)registered;
}

TEST(CustomStrategy, RegisteredByNameAndRefusedTwice) {
  register_coarse_bisection();
  const StrategyInfo& info = find_strategy("coarse-bisection");
  EXPECT_FALSE(info.is_driver());
  EXPECT_EQ(strategy_catalog().back().name, "coarse-bisection");
  EXPECT_THROW(register_strategy(strategy_entry<CoarseBisection>("coarse-bisection", "again", "")), InvalidArgument);
  EXPECT_THROW(register_strategy(StrategyInfo{}), InvalidArgument);
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

// Runs in each scalar type through the Simulator: the brackets are 1e-6 s wide, not one ulp.
TEST(CustomStrategy, RunsInEveryScalarType) {
  register_coarse_bisection();
  const auto widest_bracket = [](auto scalar) {
    using S = decltype(scalar);
    const Model<S> model = testing::catalog_model<S>("pwm-servo");
    SimulationOptions options;
    options.strategy = "coarse-bisection";
    options.t_end = 1.0;
    WidestBracket<S> observer;
    const RunResult<S> result = Simulator<S>(model, options).run(&observer);
    EXPECT_EQ(result.reason, RunReason::kReachedEnd) << result.message;
    EXPECT_EQ(result.stats.one_sided_events, result.stats.events);
    return observer.widest;
  };
  for (const double widest : {widest_bracket(0.0), widest_bracket(0.0L), widest_bracket(float128(0))}) {
    EXPECT_LE(widest, 1e-6);
    EXPECT_GT(widest, 1e-9);
  }
}

// A failed run is a result: reason kFailed, the error as its message, the counters so far,
// and report() on one line ending with the message. The strategy here takes part only as the
// policy of a run whose field turns NaN at t = 0.5.
TEST(CustomStrategy, FailedRunIsAResult) {
  register_coarse_bisection();
  Model<double> model;
  model.name = "poisoned";
  model.state_names = {"x"};
  model.x0 = {0.0};
  model.add_mode("rising", [](double t, const double*, double* dxdt) { dxdt[0] = t < 0.5 ? 1.0 : std::nan(""); });
  model.add_mode("high", [](double, const double*, double* dxdt) { dxdt[0] = 0.0; });
  model.add_transition("rising", "high", "top",
                       Guard<double>::atom("x - 10", [](double, const double* x) { return x[0] - 10.0; },
                                           Relation::kGreaterEqual));
  model.finalize();
  SimulationOptions options;
  options.strategy = "coarse-bisection";
  const RunResult<double> result = Simulator<double>(model, options).run();
  ASSERT_TRUE(result.failed());
  EXPECT_TRUE(testing::contains(result.message, "mode 'rising'")) << result.message;
  EXPECT_GT(result.stats.rhs_evals, 0);
  EXPECT_LE(result.t, 0.5);  // the last point passed on lies before the poisoned region
  const std::string report = result.report();
  EXPECT_EQ(report.rfind("failed: ", 0), 0u) << report;
  EXPECT_EQ(report.find('\n'), std::string::npos);
  EXPECT_NE(report.find(result.message), std::string::npos);
  std::cout << "[failed run] " << report << "\n";
}

std::vector<std::string> split_csv_line(const std::string& line) {
  std::vector<std::string> cells;
  std::string cell;
  for (char c : line) {
    if (c == ',') {
      cells.push_back(cell);
      cell.clear();
    } else {
      cell += c;
    }
  }
  cells.push_back(cell);
  return cells;
}

// `hysim compare pwm-servo --strategies coarse-bisection,bisection`, as a program that
// registers the strategy before parsing would run it.
TEST(CustomStrategy, ComparedWithBisection) {
  register_coarse_bisection();
  const std::filesystem::path out = std::filesystem::temp_directory_path() / "hysim_custom_strategy_test";
  std::filesystem::remove_all(out);
  CLI::App app;
  int verbosity = 0;
  const app::Command compare = app::add_compare_command(app, &verbosity);
  const std::string out_text = out.string();
  std::vector<const char*> argv = {"hysim", "compare", "pwm-servo", "--t-end", "1", "--strategies",
                                   "coarse-bisection,bisection", "--out", out_text.c_str()};
  app.parse(static_cast<int>(argv.size()), argv.data());
  ASSERT_EQ(compare.execute(), 0);

  std::ifstream csv(out / "compare.csv");
  std::string line;
  ASSERT_TRUE(std::getline(csv, line));
  const std::vector<std::string> header = split_csv_line(line);
  std::map<std::string, std::map<std::string, std::string>> rows;  // strategy -> column -> cell
  while (std::getline(csv, line)) {
    const auto cells = split_csv_line(line);
    for (std::size_t c = 0; c < header.size() && c < cells.size(); ++c) rows[cells[1]][header[c]] = cells[c];
  }
  ASSERT_EQ(rows.count("coarse-bisection"), 1u);
  ASSERT_EQ(rows.count("bisection"), 1u);
  const auto number = [&](const char* strategy, const char* column) { return std::stod(rows[strategy][column]); };
  for (const char* strategy : {"coarse-bisection", "bisection"}) {
    EXPECT_EQ(number(strategy, "missed"), 0) << strategy;
    EXPECT_EQ(number(strategy, "spurious"), 0) << strategy;
    EXPECT_EQ(number(strategy, "one_sided"), 1.0) << strategy;
  }
  // The first event is located to its bracket; later ones inherit the state errors that the
  // earlier switch times left (omega moves at kw = 100 rad/s^2), so they stay well below the
  // pulse lengths but above the bracket.
  EXPECT_LE(std::abs(number("coarse-bisection", "dt1")), 1e-6);
  EXPECT_GT(number("coarse-bisection", "max_abs_dt"), 1e-9);
  EXPECT_LT(number("coarse-bisection", "max_abs_dt"), 1e-4);
  EXPECT_LT(number("bisection", "max_abs_dt"), 1e-13);
  EXPECT_LT(number("coarse-bisection", "root_iterations"), 0.6 * number("bisection", "root_iterations"));
  std::cout << "[custom strategy] max |dt| coarse-bisection " << rows["coarse-bisection"]["max_abs_dt"]
            << " s, bisection " << rows["bisection"]["max_abs_dt"] << " s; root iterations "
            << rows["coarse-bisection"]["root_iterations"] << " against " << rows["bisection"]["root_iterations"]
            << "\n";
  std::filesystem::remove_all(out);
}

}  // namespace
}  // namespace hysim
