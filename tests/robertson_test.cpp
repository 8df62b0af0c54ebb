// Robertson's chemical kinetics with the two root functions of SUNDIALS's example cvRoberts_dns
// (models/robertson.hym) to t = 4e10, with the stiff solvers rosenbrock4 and ndf: the two roots
// against references computed in binary128 by two methods (and confirmed by CVODE in
// cvode_test.cpp), the states at the roots against the values the example prints, and the work of
// rosenbrock4 against ndf's (rosenbrock4's finite-difference Jacobian once perturbed y2, which
// falls to 1e-14, by more than its value, and took 55 times ndf's steps at rtol 1e-8).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <string>

#include "hysim/lang/build.hpp"
#include "source_dir.hpp"
#include "test_support.hpp"

namespace hysim {
namespace {

using testing::Collected;

constexpr double kTEnd = 4e10;  // as cvRoberts_dns
constexpr double kAtol = 1e-14;  // the example's smallest (that of y2), for every component

// The root times. References: ndf at rtol 1e-18, atol 1e-26 and rosenbrock4 at rtol 1e-14,
// atol 1e-22, both in float128 (two different methods; they agree to 1e-15 in both times), and
// CVODE BDF in double at rtol 1e-12 (a different code; cvode_test.cpp: within 2e-9).
constexpr double kRootY3 = 0.26401907818763;  // g2 = y3 - 0.01 = 0
constexpr double kRootY1 = 20795496.883027;   // g1 = y1 - 1e-4 = 0

// cvRoberts_dns.out, the example's published output (CVODE BDF at rtol 1e-4, atol (1e-8, 1e-14,
// 1e-6)): the states at its two roots, to the 7 digits printed. Its root times, printed as
// 2.6391e-01 and 2.0790e+07, carry its rtol 1e-4 (the same example's output of other SUNDIALS
// releases prints 2.0800e+07 and 2.0813e+07); the states on the root surfaces hardly depend on
// where along the trajectory the root was placed, and agree to one unit of the last digit printed.
constexpr double kCvodeAtY3Root[3] = {9.899653e-01, 3.470564e-05, 1.000000e-02};
constexpr double kCvodeAtY1Root[3] = {1.000000e-04, 4.000395e-10, 9.999000e-01};

struct Outcome {
  RunResult<double> result;
  Collected<double> run;
};

const ModelEntry& robertson_entry() {
  static const ModelEntry entry = lang::load_model_file(testing::source_dir() + "/models/robertson.hym");
  return entry;
}

Outcome run_robertson(const std::string& solver, double rtol) {
  static const Model<double> model = robertson_entry().make<double>(robertson_entry().default_values());
  SimulationOptions options;
  options.t_end = kTEnd;
  options.solver = solver;
  options.rtol = rtol;
  options.atol = kAtol;
  Outcome out;
  out.run = testing::collect(model, options, false, &out.result);
  return out;
}

double relative(double value, double reference) { return std::abs(value - reference) / std::abs(reference); }

// |value - printed| in units of the last of the 7 significant digits the example prints.
double printed_units(double value, double printed) {
  const double unit = std::pow(10.0, std::floor(std::log10(std::abs(printed))) - 6);
  return std::abs(value - printed) / unit;
}

TEST(Robertson, PresetRunsAsTheExampleDoes) {
  const ModelEntry& entry = robertson_entry();
  ASSERT_EQ(entry.presets.size(), 1u);
  EXPECT_EQ(entry.presets[0].name, "cvode");
  EXPECT_EQ(entry.presets[0].t_end, kTEnd);
}

// Each solver at rtol 1e-8 finds both roots, in order, each once, at the reference times to
// 1e-6 (the precision the example prints them with, 5 digits: t = 2.6402e-01 for y3 = 0.01; the
// other, 2.07954969e+07, lies too close to 2.07955e+07 for its 5 digits to be a test at
// rtol 1e-8), with the example's states.
TEST(Robertson, FindsTheTwoRootsOfTheSundialsExample) {
  for (const char* solver : {"rosenbrock4", "ndf"}) {
    const Outcome out = run_robertson(solver, 1e-8);
    ASSERT_EQ(out.result.reason, RunReason::kReachedEnd) << solver << ": " << out.result.message;
    ASSERT_EQ(out.run.rows.size(), 2u) << solver;
    const auto& y3_root = out.run.rows[0];
    const auto& y1_root = out.run.rows[1];
    EXPECT_EQ(y3_root.guard, "g2") << solver;
    EXPECT_EQ(y1_root.guard, "g1") << solver;
    std::printf("[ measured ] %s, rtol 1e-8: roots at t = %.14g (y3 = 0.01) and %.14g (y1 = 1e-4); %lld steps, "
                "%lld field evaluations\n",
                solver, y3_root.t, y1_root.t, static_cast<long long>(out.result.stats.steps_accepted),
                static_cast<long long>(out.result.stats.rhs_evals));
    EXPECT_LT(relative(y3_root.t, kRootY3), 1e-6) << solver;
    EXPECT_LT(relative(y1_root.t, kRootY1), 1e-6) << solver;
    char time[32];
    std::snprintf(time, sizeof time, "%.4e", y3_root.t);
    EXPECT_EQ(std::string(time), "2.6402e-01") << solver;
    for (std::size_t i = 0; i < 3; ++i) {
      EXPECT_LE(printed_units(y3_root.x_pre[i], kCvodeAtY3Root[i]), 1.0) << solver << ", y" << i + 1;
      EXPECT_LE(printed_units(y1_root.x_pre[i], kCvodeAtY1Root[i]), 1.0) << solver << ", y" << i + 1;
    }
  }
}

// rosenbrock4's steps stay within a small multiple of ndf's at rtol 1e-8 and 1e-12 (measured:
// 1,672 against 2,169, and 10,115 against 4,041; with the increments of Hairer & Wanner's codes
// in its Jacobian, 117,918 and 362,047), and the tighter tolerance moves both roots closer.
TEST(Robertson, Rosenbrock4NeedsAFewTimesNdfsSteps) {
  for (const double rtol : {1e-8, 1e-12}) {
    const Outcome r4 = run_robertson("rosenbrock4", rtol);
    const Outcome ndf = run_robertson("ndf", rtol);
    ASSERT_EQ(r4.run.rows.size(), 2u);
    ASSERT_EQ(ndf.run.rows.size(), 2u);
    const auto steps = [](const Outcome& o) { return static_cast<double>(o.result.stats.steps_accepted); };
    std::printf("[ measured ] rtol %g: rosenbrock4 %lld steps, %lld field evaluations; ndf %lld steps, %lld field "
                "evaluations\n",
                rtol, static_cast<long long>(r4.result.stats.steps_accepted),
                static_cast<long long>(r4.result.stats.rhs_evals),
                static_cast<long long>(ndf.result.stats.steps_accepted),
                static_cast<long long>(ndf.result.stats.rhs_evals));
    EXPECT_LT(steps(r4), 3.0 * steps(ndf)) << "rtol " << rtol;
    if (rtol < 1e-10) {
      for (const Outcome* o : {&r4, &ndf}) {
        EXPECT_LT(relative(o->run.rows[0].t, kRootY3), 1e-9);
        EXPECT_LT(relative(o->run.rows[1].t, kRootY1), 1e-8);
      }
    }
  }
}

}  // namespace
}  // namespace hysim
