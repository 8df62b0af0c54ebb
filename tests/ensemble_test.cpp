// The ensemble runner (hysim/ensemble/ensemble.hpp): results reach the sink in index order
// whatever the number of threads, memory stays within the window, a failing job stops the
// ensemble after the results before it, and runs of the simulator in parallel give the same
// numbers as one after another.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <thread>
#include <vector>

#include "hysim/ensemble/ensemble.hpp"
#include "test_support.hpp"

namespace hysim {
namespace {

TEST(Ensemble, ResultsArriveInIndexOrderForAnyNumberOfThreads) {
  for (const int jobs : {1, 2, 3, 8}) {
    EnsembleOptions options;
    options.jobs = jobs;
    std::vector<std::int64_t> seen;
    run_ensemble<std::int64_t>(
        500, options,
        [](std::int64_t i) {
          // Uneven work, so that threads finish out of order.
          if (i % 7 == 0) std::this_thread::sleep_for(std::chrono::microseconds(200));
          return i * i;
        },
        [&](std::int64_t i, std::int64_t&& square) {
          EXPECT_EQ(square, i * i);
          seen.push_back(i);
        });
    ASSERT_EQ(seen.size(), 500u) << jobs;
    for (std::size_t i = 0; i < seen.size(); ++i) ASSERT_EQ(seen[i], static_cast<std::int64_t>(i)) << jobs;
  }
}

TEST(Ensemble, HoldsAtMostTheWindowOfResults) {
  EnsembleOptions options;
  options.jobs = 4;
  options.window = 8;
  std::atomic<std::int64_t> started{0};
  std::int64_t worst_ahead = 0, sunk = 0;
  run_ensemble<int>(
      2000, options,
      [&](std::int64_t) {
        ++started;
        return 1;
      },
      [&](std::int64_t, int&&) {
        ++sunk;
        if (sunk % 100 == 0) std::this_thread::sleep_for(std::chrono::milliseconds(1));  // a slow sink
        worst_ahead = std::max(worst_ahead, started.load() - sunk);
      });
  EXPECT_EQ(sunk, 2000);
  EXPECT_LE(worst_ahead, 8);
}

TEST(Ensemble, AFailingJobStopsItAfterTheResultsBeforeIt) {
  EnsembleOptions options;
  options.jobs = 3;
  std::vector<std::int64_t> seen;
  try {
    run_ensemble<int>(
        1000, options,
        [](std::int64_t i) {
          if (i == 37 || i == 400) throw std::runtime_error("job " + std::to_string(i) + " failed");
          return 0;
        },
        [&](std::int64_t i, int&&) { seen.push_back(i); });
    ADD_FAILURE() << "no exception";
  } catch (const std::runtime_error& e) {
    EXPECT_STREQ(e.what(), "job 37 failed");
  }
  ASSERT_EQ(seen.size(), 37u);
  EXPECT_EQ(seen.back(), 36);
  EnsembleOptions bad;
  bad.jobs = -1;
  EXPECT_THROW(run_ensemble<int>(1, bad, [](std::int64_t) { return 0; }, [](std::int64_t, int&&) {}), InvalidArgument);
}

// --jobs 50000 is capped at 4 threads per hardware thread, and the runs still all arrive.
TEST(Ensemble, ThreadsAreCappedPerCore) {
  const int cores = std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
  EnsembleOptions options;
  options.jobs = 50000;
  EXPECT_EQ(options.threads(), EnsembleOptions::kMaxJobsPerCore * cores);
  options.jobs = 1;
  EXPECT_EQ(options.threads(), 1);
  options.jobs = 0;
  EXPECT_EQ(options.threads(), cores);
  options.jobs = 50000;
  std::vector<std::int64_t> seen;
  run_ensemble<std::int64_t>(1000, options, [](std::int64_t i) { return i; },
                             [&](std::int64_t, std::int64_t value) { seen.push_back(value); });
  ASSERT_EQ(seen.size(), 1000u);
  for (std::int64_t i = 0; i < 1000; ++i) EXPECT_EQ(seen[static_cast<std::size_t>(i)], i);
}

TEST(Ensemble, SeedsOfNeighbouringRunsDiffer) {
  EXPECT_NE(sweep_seed(1, 0), sweep_seed(1, 1));
  EXPECT_NE(sweep_seed(1, 0), sweep_seed(2, 0));
  EXPECT_EQ(sweep_seed(7, 12345), sweep_seed(7, 12345));
}

// 200 bouncing balls of different restitutions on 2 threads: each run's numbers are those of
// the same run alone (no shared mutable state between simulators).
TEST(Ensemble, ParallelSimulatorsGiveTheSerialNumbers) {
  const auto run = [](std::int64_t i) {
    const double e = 0.5 + 0.002 * static_cast<double>(i);
    const Model<double> model = testing::catalog_model<double>("bouncing-ball", {{"e", std::to_string(e)}});
    SimulationOptions options;
    options.t_end = 2;
    const RunResult<double> result = Simulator<double>(model, options).run();
    return std::vector<double>{result.x[0], result.x[1], static_cast<double>(result.stats.events)};
  };
  EnsembleOptions options;
  options.jobs = 2;
  run_ensemble<std::vector<double>>(200, options, run, [&](std::int64_t i, std::vector<double>&& parallel) {
    EXPECT_EQ(parallel, run(i)) << i;
  });
}

}  // namespace
}  // namespace hysim
