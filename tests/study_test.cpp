// The study layer (src/hysim/study) as a C++ user calls it: models from their names, typed
// sweep rows, compare and workprecision returning data.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "hysim/core/errors.hpp"
#include "hysim/study/comparison.hpp"
#include "hysim/study/model.hpp"
#include "hysim/study/sweep.hpp"
#include "hysim/study/workprecision.hpp"
#include "source_dir.hpp"

namespace hysim::study {
namespace {

TEST(ResolveModel, CatalogFileAndRuleTable) {
  const ResolvedModel catalog = resolve_model("bouncing-ball");
  EXPECT_EQ(catalog.entry->name, "bouncing-ball");
  EXPECT_EQ(catalog.entry.get(), &find_model("bouncing-ball"));  // the catalog's own entry
  const ResolvedModel file = resolve_model(testing::source_dir() + "/examples/thermostat.hym");
  EXPECT_EQ(file.entry->name, "thermostat");
  EXPECT_FALSE(file.backend.empty());
  const ResolvedModel table = resolve_model(testing::source_dir() + "/models/rules/exponential.rules.tsv");
  EXPECT_FALSE(table.entry->name.empty());
  EXPECT_THROW(resolve_model("no-such-model"), InvalidArgument);
}

// The thermostat with T_low on a grid: each row typed, its first event at the closed form.
TEST(Sweep, TypedRowsInTheOrderOfTheRuns) {
  SweepRequest request;
  request.choice.model = testing::source_dir() + "/examples/thermostat.hym";
  request.choice.params = {"T_low=18:19.5:4", "q=3"};
  request.options.t_end = 3;
  request.options.rtol = 1e-12;
  request.options.atol = 1e-12;
  request.jobs = 2;
  SweepColumns columns;
  std::vector<SweepRow> rows;
  const SweepSummary summary = run_sweep(
      request, [&](const SweepColumns& c) { columns = c; }, [&](SweepRow&& row) { rows.push_back(std::move(row)); });
  EXPECT_EQ(columns.swept, std::vector<std::string>{"T_low"});
  EXPECT_EQ(columns.states, std::vector<std::string>{"T"});
  EXPECT_EQ(columns.names().size(), 1u + 1 + 5 + 3 + 1 + 5);
  ASSERT_EQ(rows.size(), 4u);
  EXPECT_EQ(summary.runs, 4);
  EXPECT_EQ(summary.failed, 0);
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const SweepRow& row = rows[i];
    EXPECT_EQ(row.run, static_cast<std::int64_t>(i));
    EXPECT_DOUBLE_EQ(row.swept[0].value, 18 + 0.5 * static_cast<double>(i));
    EXPECT_EQ(row.reason, "reached t_end");
    EXPECT_EQ(row.t.value, 3);
    ASSERT_TRUE(row.ran());
    ASSERT_EQ(row.event_times.size(), 3u);
    const double t1 = std::log(15 / (row.swept[0].value - 5)) / 0.1;
    EXPECT_NEAR(row.event_times[0].value, t1, 1e-9);
    EXPECT_EQ(row.state.size(), 1u);
    EXPECT_GT(*row.steps, 0);
  }
}

// A run whose values the model rejects is a row "failed" with every later field unknown.
TEST(Sweep, RejectedValuesAreAFailedRow) {
  SweepRequest request;
  request.choice.model = testing::source_dir() + "/examples/thermostat.hym";
  request.choice.params = {"T_low=19,22"};  // 22 breaks T_low < T_high
  request.options.t_end = 1;
  std::vector<SweepRow> rows;
  const SweepSummary summary =
      run_sweep(request, [](const SweepColumns&) {}, [&](SweepRow&& row) { rows.push_back(std::move(row)); });
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(summary.failed, 1);
  EXPECT_EQ(rows[1].reason, "failed");
  EXPECT_FALSE(rows[1].message.empty());
  EXPECT_FALSE(rows[1].ran());
  EXPECT_FALSE(rows[1].t.known());
  EXPECT_TRUE(std::isnan(rows[1].t.value));
  EXPECT_EQ(rows[1].state.size(), 1u);
  EXPECT_FALSE(rows[1].state[0].known());
}

// float128 runs write their own digits; the value is the double that text reads as.
TEST(Sweep, TheTextIsInTheRunsScalarType) {
  SweepRequest request;
  request.choice.model = "bouncing-ball";
  request.choice.scalar = "float128";
  request.choice.params = {"e=0.5,0.7"};
  request.options.t_end = 5;
  std::vector<SweepRow> rows;
  run_sweep(request, [](const SweepColumns&) {}, [&](SweepRow&& row) { rows.push_back(std::move(row)); });
  ASSERT_EQ(rows.size(), 2u);
  ASSERT_TRUE(rows[0].event_times[0].known());
  const SweepReal& t1 = rows[0].event_times[0];
  EXPECT_EQ(t1.value, std::stod(t1.text));
}

TEST(Sweep, BadInputThrowsBeforeAnyRow) {
  SweepRequest request;
  request.choice.model = "bouncing-ball";
  EXPECT_THROW(request.validate(), InvalidArgument);  // nothing swept
  int calls = 0;
  request.choice.params = {"no_such_parameter=1:2:3"};
  EXPECT_THROW(run_sweep(request, [&](const SweepColumns&) { ++calls; }, [&](SweepRow&&) { ++calls; }),
               InvalidArgument);
  EXPECT_EQ(calls, 0);
}

TEST(Compare, EveryCombinationAgainstTheReference) {
  CompareRequest request;
  request.choice.model = "bouncing-ball";
  request.options.t_end = 2;
  request.strategies = {"bisection", "gamma"};
  const Comparison comparison = compare_runs(request);
  ASSERT_TRUE(comparison.reference.has_value());
  ASSERT_EQ(comparison.runs.size(), 2u);
  for (const Evaluation& run : comparison.runs) {
    ASSERT_TRUE(run.match.has_value());
    EXPECT_EQ(run.match->missed, 0u);
    EXPECT_EQ(run.match->spurious, 0u);
  }
  EXPECT_EQ(comparison.json()["runs"].size(), 2u);
}

TEST(WorkPrecision, OnePointPerTolerance) {
  WorkPrecisionRequest request;
  request.choice.model = "bouncing-ball";
  request.options.t_end = 2;
  request.solvers = {"dopri5"};
  request.strategies = {"bisection"};
  request.rtol_from = 1e-4;
  request.rtol_to = 1e-6;
  const WorkPrecision study = work_precision(request);
  EXPECT_EQ(study.rtols, (std::vector<double>{1e-4, 1e-5, 1e-6}));
  ASSERT_EQ(study.runs.size(), 3u);
  EXPECT_DOUBLE_EQ(study.runs[2].options.atol, 1e-9);
  request.per_decade = 0;
  EXPECT_THROW(request.validate(), InvalidArgument);
}

// Tolerance proportionality on the drag ball (gamma-refine, rtol 1e-6 to 1e-12, atol 1e-3 rtol):
// dopri5's error falls with the tolerance (error/rtol from 0.63 to 0.56, no reversal); ndf's,
// the error per step control of a method of order at most 5, goes as about rtol^(5/6), so
// its error/rtol grows from 9.4 at 1e-6 to 154 at 1e-12 and is flagged once it has grown
// more than tenfold (from 1e-10 on). Measured, not copied: the errors come from the reference.
TEST(WorkPrecision, ProportionalityFlagsTheErrorThatFallsSlowerThanTheTolerance) {
  WorkPrecisionRequest request;
  request.choice.model = "drag-ball";
  request.options.t_end = 6.9;
  request.solvers = {"dopri5", "ndf"};
  request.strategies = {"gamma-refine"};
  request.rtol_from = 1e-6;
  request.rtol_to = 1e-12;
  const WorkPrecision study = work_precision(request);
  const std::vector<Proportionality> measures = proportionality(study);
  ASSERT_EQ(measures.size(), 14u);
  EXPECT_FALSE(measures[0].reversal == measures[0].reversal);  // nothing looser to compare with
  for (std::size_t i = 0; i < 7; ++i) {
    SCOPED_TRACE("dopri5, rtol " + std::to_string(study.runs[i].options.rtol));
    EXPECT_EQ(study.runs[i].options.solver, "dopri5");
    EXPECT_FALSE(measures[i].flagged) << measures[i].why;
    EXPECT_LT(measures[i].error_per_rtol, 2.0);
    if (i > 0) {
      EXPECT_LT(measures[i].reversal, 1.0);
    }
  }
  int flagged = 0;
  for (std::size_t i = 7; i < 14; ++i) {
    EXPECT_EQ(study.runs[i].options.solver, "ndf");
    if (i > 7) {
      EXPECT_LT(measures[i].reversal, 1.0);  // monotone: the error still falls
    }
    flagged += measures[i].flagged ? 1 : 0;
  }
  EXPECT_GT(measures[13].error_per_rtol, 10 * measures[7].error_per_rtol);
  EXPECT_TRUE(measures[13].flagged);
  EXPECT_NE(measures[13].why.find("error/rtol"), std::string::npos) << measures[13].why;
  EXPECT_GE(flagged, 1);
}

}  // namespace
}  // namespace hysim::study
