// The Jacobian pattern and the sparse iteration matrices of the implicit solvers: the pattern's
// structure and column groups, the pattern a model file gives, and the heat rod of
// bench/heat_rod.hpp (a stiff, tridiagonal model of hundreds of states) under ndf, rosenbrock4
// and CVODE, sparse and dense, against the exact event times of its cosine modes.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "../bench/heat_rod.hpp"
#include "hysim/core/errors.hpp"
#include "hysim/core/jacobian_pattern.hpp"
#include "hysim/peers/peers.hpp"
#include "hysim/simulator.hpp"
#include "hysim/solvers/iteration_matrix.hpp"
#include "model_text.hpp"

namespace hysim {
namespace {

using testing::model_from_text;

std::vector<std::size_t> column(const JacobianPattern& p, std::size_t j) {
  return {p.rows.begin() + static_cast<std::ptrdiff_t>(p.column_start[j]),
          p.rows.begin() + static_cast<std::ptrdiff_t>(p.column_start[j + 1])};
}

TEST(JacobianPattern, FromReadsAddsTheDiagonalAndSortsTheRows) {
  // f0 reads x2, x2 again; f1 reads nothing; f2 reads x0 and x1.
  const JacobianPattern p = JacobianPattern::from_reads({{2, 2}, {}, {1, 0}});
  EXPECT_EQ(p.n, 3u);
  EXPECT_EQ(column(p, 0), (std::vector<std::size_t>{0, 2}));
  EXPECT_EQ(column(p, 1), (std::vector<std::size_t>{1, 2}));
  EXPECT_EQ(column(p, 2), (std::vector<std::size_t>{0, 2}));
  EXPECT_EQ(p.nonzeros(), 6u);
  EXPECT_EQ(p.lower_bandwidth(), 2u);
  EXPECT_EQ(p.upper_bandwidth(), 2u);
  EXPECT_NO_THROW(p.validate(3, "test"));
  EXPECT_THROW(p.validate(4, "test"), InvalidArgument);
  EXPECT_THROW((void)JacobianPattern::from_reads({{0}, {5}}), InvalidArgument);
}

TEST(JacobianPattern, ColumnGroupsShareNoRow) {
  // Tridiagonal: 3 groups (l + u + 1); a band of half-width 2: 5; dense: n; diagonal: 1.
  const std::size_t n = 50;
  for (std::size_t half : {0u, 1u, 2u}) {
    std::vector<std::vector<std::size_t>> reads(n);
    for (std::size_t i = 0; i < n; ++i) {
      for (std::size_t j = i >= half ? i - half : 0; j <= std::min(n - 1, i + half); ++j) reads[i].push_back(j);
    }
    const JacobianPattern p = JacobianPattern::from_reads(reads);
    std::size_t groups = 0;
    const std::vector<std::size_t> colour = p.colour_columns(&groups);
    EXPECT_EQ(groups, 2 * half + 1);
    EXPECT_EQ(p.lower_bandwidth(), half);
    // No two columns of a group share a row.
    for (std::size_t i = 0; i < n; ++i) {
      std::vector<std::size_t> seen;
      for (std::size_t j = 0; j < n; ++j) {
        const auto rows = column(p, j);
        if (std::find(rows.begin(), rows.end(), i) == rows.end()) continue;
        EXPECT_EQ(std::count(seen.begin(), seen.end(), colour[j]), 0) << "row " << i << " column " << j;
        seen.push_back(colour[j]);
      }
    }
  }
  std::size_t groups = 0;
  (void)JacobianPattern::dense(7).colour_columns(&groups);
  EXPECT_EQ(groups, 7u);
}

TEST(JacobianPattern, AModelFileGivesWhatEachComponentReads) {
  // y reads x through a let; z reads prior(y) in a guard only (not in a field); the second mode
  // makes x read z.
  const Model<double> model = model_from_text("pattern.hym", R"(
model pattern
parameter k = 2
state x = 1, y = 0, z = 0
let s = k*x
flow { der(x) = -x; der(y) = s; der(z) = 1 }
mode one {}
mode two { der(x) = z }
initial one
one -> two go [y >= 1 && prior(y) == y]
)");
  ASSERT_TRUE(model.jacobian_pattern);
  const JacobianPattern& p = *model.jacobian_pattern;
  EXPECT_EQ(column(p, 0), (std::vector<std::size_t>{0, 1}));  // x: read by f_x (one) and f_y
  EXPECT_EQ(column(p, 1), (std::vector<std::size_t>{1}));     // y: only the diagonal
  EXPECT_EQ(column(p, 2), (std::vector<std::size_t>{0, 2}));  // z: read by f_x in mode two
}

TEST(JacobianPattern, AWrongPatternOfACppModelIsAModelError) {
  Model<double> model;
  model.name = "two";
  model.state_names = {"x", "y"};
  model.x0 = {1, 1};
  model.add_mode("m", [](double, const double* x, double* dx) {
    dx[0] = -x[0];
    dx[1] = -x[1];
  });
  model.jacobian_pattern = std::make_shared<const JacobianPattern>(JacobianPattern::dense(3));
  EXPECT_THROW(model.finalize(), ModelError);
}

// Column j of J on a three-point stencil from 3 evaluations, equal to the dense quotient's.
TEST(IterationMatrix, GroupedColumnsGiveTheDenseQuotient) {
  const std::size_t n = 80;
  std::vector<std::vector<std::size_t>> reads(n);
  for (std::size_t i = 0; i < n; ++i) reads[i] = {i == 0 ? 0 : i - 1, std::min(n - 1, i + 1)};
  auto pattern = std::make_shared<const JacobianPattern>(JacobianPattern::from_reads(reads));
  const std::function<void(double, const double*, double*)> field = [n](double, const double* x, double* dx) {
    for (std::size_t i = 0; i < n; ++i) {
      const double left = x[i == 0 ? 0 : i - 1], right = x[std::min(n - 1, i + 1)];
      dx[i] = left * left - 2 * std::sin(x[i]) + right * x[i];
    }
  };
  std::int64_t evaluations = 0;
  const Rhs<double> rhs{&field, &evaluations};
  std::vector<double> x(n), f0(n), xs(n), fs(n), v(n), jv_sparse(n), jv_dense(n);
  for (std::size_t i = 0; i < n; ++i) {
    x[i] = 0.3 + 0.01 * double(i);
    v[i] = std::cos(double(i));
  }
  field(0.0, x.data(), f0.data());
  const StepperTolerances<double> tolerances{1e-6, 1e-9, {}};
  solvers::IterationMatrix<double> sparse(n), dense(n);
  sparse.use_pattern(pattern, LinearSolver::kAuto);
  EXPECT_TRUE(sparse.is_sparse());
  EXPECT_EQ(sparse.evaluations_per_jacobian(), 3u);
  EXPECT_FALSE(dense.is_sparse());
  EXPECT_EQ(dense.evaluations_per_jacobian(), n);
  ASSERT_TRUE(sparse.differentiate(rhs, 0.0, x.data(), f0.data(), tolerances, 1e-3, xs.data(), fs.data()));
  EXPECT_EQ(evaluations, 3);
  ASSERT_TRUE(dense.differentiate(rhs, 0.0, x.data(), f0.data(), tolerances, 1e-3, xs.data(), fs.data()));
  EXPECT_EQ(evaluations, 3 + static_cast<std::int64_t>(n));
  sparse.multiply(v.data(), jv_sparse.data());
  dense.multiply(v.data(), jv_dense.data());
  for (std::size_t i = 0; i < n; ++i) EXPECT_EQ(jv_sparse[i], jv_dense[i]) << i;  // the same quotients
  // M = 2 I - 0.1 J solved both ways: the same solution to rounding, and M x = b holds.
  ASSERT_TRUE(sparse.factor(2.0, 0.1));
  ASSERT_TRUE(dense.factor(2.0, 0.1));
  std::vector<double> b_sparse = v, b_dense = v, check(n);
  sparse.solve(b_sparse.data());
  dense.solve(b_dense.data());
  sparse.multiply(b_sparse.data(), check.data());
  for (std::size_t i = 0; i < n; ++i) {
    EXPECT_NEAR(b_sparse[i], b_dense[i], 1e-14) << i;
    EXPECT_NEAR(2.0 * b_sparse[i] - 0.1 * check[i], v[i], 1e-14) << i;
  }
  // A singular M is refused: 0 I - 0 J; solving with it gives NaN, not the old factors.
  EXPECT_FALSE(sparse.factor(0.0, 0.0));
  EXPECT_FALSE(dense.factor(0.0, 0.0));
  std::vector<double> b = v;
  sparse.solve(b.data());
  EXPECT_TRUE(std::isnan(b[0]));
  b = v;
  dense.solve(b.data());
  EXPECT_TRUE(std::isnan(b[n - 1]));
}

// The heat rod of 200 cells: every solver finds the 8 exact events of [0, 100] s within a
// bound that follows its tolerance, sparse and dense alike; the sparse Jacobian costs 3
// evaluations, the dense one 200.
struct RodRun {
  std::vector<double> events;
  RunStatistics stats;
};

class Events final : public Observer<double> {
 public:
  explicit Events(std::vector<double>* t, std::vector<TransitionClass>* kinds = nullptr) : t_(t), kinds_(kinds) {}
  void on_event(const EventRecord<double>& record) override {
    t_->push_back(record.t);
    if (kinds_ != nullptr) kinds_->push_back(record.kind);
  }

 private:
  std::vector<double>* t_;
  std::vector<TransitionClass>* kinds_;
};

RodRun run_rod(const Model<double>& model, const std::string& solver, const std::string& strategy,
               const std::string& linear_solver, double rtol) {
  SimulationOptions options;
  options.t_end = 100.0;
  options.rtol = rtol;
  options.atol = rtol * 1e-2;
  options.solver = solver;
  options.strategy = strategy;
  options.linear_solver = linear_solver;
  RodRun run;
  Events events(&run.events);
  Simulator<double> simulator(model, options);
  const RunResult<double> result = simulator.run(&events);
  EXPECT_EQ(result.reason, RunReason::kReachedEnd) << result.message;
  run.stats = result.stats;
  return run;
}

double worst_error(const std::vector<double>& events, const std::vector<long double>& exact) {
  EXPECT_EQ(events.size(), exact.size());
  long double worst = 0;
  for (std::size_t i = 0; i < std::min(events.size(), exact.size()); ++i) {
    worst = std::max(worst, std::fabs(events[i] - exact[i]));
  }
  return static_cast<double>(worst);
}

TEST(HeatRod, EverySolverFindsTheExactEventsSparseOrDense) {
  register_peers();
  const std::size_t n = 200;
  const std::vector<long double> exact = heat_rod::exact_events(n, 100.0);
  ASSERT_EQ(exact.size(), 8u);
  const Model<double> model = model_from_text("heat-rod.hym", heat_rod::model_text(n));
  ASSERT_TRUE(model.jacobian_pattern);
  EXPECT_EQ(model.jacobian_pattern->nonzeros(), 3 * n - 2);
  for (const double rtol : {1e-6, 1e-9}) {
    // The event times' error is the sensor's global error over its slope at the thresholds.
    // Measured, worst over the 8 events at rtol 1e-6 / 1e-9 (atol rtol / 100): ndf 4.0e-4
    // (dense LU 7.8e-4) / 3.4e-6, rosenbrock4 1.3e-4 / 1.0e-7, CVODE BDF 4.1e-4 / 2.5e-6.
    const double bound = 5000 * rtol;
    for (const std::string solver : {"ndf", "rosenbrock4"}) {
      const RodRun sparse = run_rod(model, solver, "gamma-refine", "auto", rtol);
      const RodRun dense = run_rod(model, solver, "gamma-refine", "dense", rtol);
      std::cout << solver << " at rtol " << rtol << ": sparse " << worst_error(sparse.events, exact) << " s, dense "
                << worst_error(dense.events, exact) << " s\n";
      EXPECT_LE(worst_error(sparse.events, exact), bound) << solver << " sparse at rtol " << rtol;
      EXPECT_LE(worst_error(dense.events, exact), bound) << solver << " dense at rtol " << rtol;
    }
#if HYSIM_HAVE_CVODE
    const RodRun cvode = run_rod(model, "dopri5", "cvode", "auto", rtol);
    std::cout << "cvode at rtol " << rtol << ": " << worst_error(cvode.events, exact) << " s\n";
    EXPECT_LE(worst_error(cvode.events, exact), bound) << "cvode at rtol " << rtol;
#endif
  }
}

// The same rod with its states declared in a shuffled order: the pattern is no band, ndf's
// sparse LU orders it (COLAMD), CVODE takes KLU with grouped quotients; the events are the
// same exact ones.
TEST(HeatRod, AShuffledRodIsNoBandAndGivesTheSameEvents) {
  register_peers();
  const std::size_t n = 200;
  const std::vector<long double> exact = heat_rod::exact_events(n, 100.0);
  const Model<double> model = model_from_text("heat-rod.hym", heat_rod::model_text(n, true));
  ASSERT_TRUE(model.jacobian_pattern);
  EXPECT_GT(model.jacobian_pattern->lower_bandwidth(), n / 2);
  EXPECT_EQ(model.jacobian_pattern->nonzeros(), 3 * n - 2);
  const double rtol = 1e-9, bound = 5000 * rtol;
  const RodRun ndf = run_rod(model, "ndf", "gamma-refine", "auto", rtol);
  EXPECT_LE(worst_error(ndf.events, exact), bound);
#if HYSIM_HAVE_CVODE
  const RodRun klu = run_rod(model, "dopri5", "cvode", "auto", rtol);
  const RodRun dense = run_rod(model, "dopri5", "cvode", "dense", rtol);
  std::cout << "shuffled rod at rtol 1e-9: ndf " << worst_error(ndf.events, exact) << " s, cvode KLU "
            << worst_error(klu.events, exact) << " s (" << klu.stats.rhs_evals << " field evaluations), cvode dense "
            << worst_error(dense.events, exact) << " s (" << dense.stats.rhs_evals << ")\n";
  EXPECT_LE(worst_error(klu.events, exact), bound);
  // The grouped quotients cost a few evaluations per Jacobian, the dense ones 200.
  EXPECT_LT(klu.stats.rhs_evals * 2, dense.stats.rhs_evals);
#endif
}

// A sliding motion leaves the model's pattern (the equivalent field reads the surface's
// states in every component): forced sparse, the run reaches the surface at the closed form's
// time and slides on it.
TEST(HeatRod, SlidingUnderTheSparseSolver) {
  const Model<double> model = model_from_text("slide.hym", R"(
model slide
state x = 1, y = 0.5, z = 0
flow { der(y) = -y; der(z) = x - y }
mode up   { der(x) = -1 + 0.5*y }
mode down { der(x) = 1 + 0.5*y }
initial up
up -> down below [x <= 0]
down -> up above [x >= 0]
)");
  // x = 1 - t + 0.25 (1 - e^-t) reaches 0 at the root found by bisection in long double.
  long double lo = 0, hi = 3;
  for (int i = 0; i < 200; ++i) {
    const long double mid = (lo + hi) / 2;
    (1 - mid + 0.25L * (1 - std::exp(-mid)) > 0 ? lo : hi) = mid;
  }
  for (const std::string solver : {"ndf", "rosenbrock4"}) {
    SimulationOptions options;
    options.t_end = 3.0;
    options.rtol = 1e-9;
    options.atol = 1e-12;
    options.solver = solver;
    options.linear_solver = "sparse";
    std::vector<double> times;
    std::vector<TransitionClass> kinds;
    Events events(&times, &kinds);
    Simulator<double> simulator(model, options);
    const RunResult<double> result = simulator.run(&events);
    EXPECT_EQ(result.reason, RunReason::kReachedEnd) << result.message;
    ASSERT_FALSE(times.empty()) << solver;
    EXPECT_NEAR(times[0], static_cast<double>(lo), 1e-8) << solver;
    EXPECT_NE(std::find(kinds.begin(), kinds.end(), TransitionClass::kSliding), kinds.end()) << solver;
    EXPECT_LE(std::fabs(result.x[0]), 1e-8) << solver << ": the equivalent dynamics keep x on the surface";
  }
}

TEST(HeatRod, AnUnknownLinearSolverIsRefused) {
  SimulationOptions options;
  options.linear_solver = "klu";
  try {
    options.validate();
    FAIL() << "linear_solver = klu was accepted";
  } catch (const InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find("linear_solver"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace hysim
