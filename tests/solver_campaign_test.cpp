// The solver campaign: every adaptive solver at every decade of rtol from 1e-3 to 1e-12
// (atol = 1e-3 rtol) on every catalog model with an exact reference, under the default
// strategy, against that reference (the matching of `hysim compare`). What it asserts, per
// model, solver and rtol:
//   * the run ends and finds the reference's events, none missed and none spurious, except at
//     the points listed in kWrongEvents, each with its cause; a listed point that becomes right
//     fails too, so that the list (and docs/strategies.md, which prints it) stays exact;
//   * max |t - t*| <= kMultiple[model] rtol, the multiple stated per model: the event-time error
//     is the state error divided by the speed at which the guard crosses, so a model whose
//     guard crosses slowly multiplies it (grazing: the crest's slope A sin(delta) = 0.02 against
//     values of order 1, a factor 50), and ndf's error-per-step control gives a global error of
//     about rtol^(5/6), which grows against rtol at tight tolerances (workprecision flags it).
// The table it prints (solver x model: the decades with the events right, the worst error/rtol
// over them) is the one docs/strategies.md gives.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "hysim/study/evaluation.hpp"
#include "hysim/study/tolerance_check.hpp"
#include "hysim/study/workprecision.hpp"
#include "test_support.hpp"

namespace hysim::study {
namespace {

struct CampaignModel {
  const char* name;
  double t_end;
  const char* preset;
  double multiple;  // max |t - t*| <= multiple * rtol at every point with the events right
};

// The multiples are about twice the worst measured error/rtol of any solver on the model.
constexpr CampaignModel kModels[] = {
    {"pwm-servo", 20, "tracking", 1},     // worst 0.02 (rosenbrock4, ndf): the saw's crossings are linear
    {"bouncing-ball", 10, "", 1},         // 0.29 (dop853): polynomial flights
    {"grazing", 20, "", 40000},           // 19,863 (ndf at 1e-12): slope 0.02 at the threshold, rtol^(5/6)
    {"drag-ball", 6.9, "", 300},          // 154 (ndf at 1e-12); the others at most 7.6 (bs3)
    {"diode-inductor", 1, "", 2},         // 0.59 (ndf)
    {"cam-follower", 10, "", 7},          // 3.3 (rosenbrock4)
    {"ball-incline", 10, "", 1},          // 0.02
    {"stick-slip", 10, "", 1},            // 0.10 (ndf)
    {"stiff-relay", 10, "", 600},         // 285 (dop853: stability-bound steps, a 10^4 stiffness ratio)
};

// The points where the default strategy's events are wrong, and why.
struct WrongPoint {
  const char* model;
  const char* solver;
  double rtol;
  const char* cause;
};
constexpr WrongPoint kWrongEvents[] = {
    // grazing: each crest of x = sin t lies 2e-4 above the threshold c = cos 0.02, for 0.04 s.
    // At these tolerances the computed x is off by more than that (|x - sin t| up to 1.5e-2
    // under bs3 at 1e-3): the computed trajectory either stays below c at a crest, or crosses
    // it up to 0.1 s from the exact times, beyond half the 0.04 s between the pair, where the
    // matching cannot tell the events apart. The detection is not at fault: on the computed
    // trajectory no crossing is missed (GrazingPointsMissNoCrossingOfTheComputedTrajectory).
    {"grazing", "bs3", 1e-3, "the computed crests stay below the threshold"},
    {"grazing", "bs3", 1e-4, "two of three computed crests stay below the threshold"},
    {"grazing", "cashkarp54", 1e-3, "crossings of the computed trajectory up to 0.08 s from the exact ones"},
    {"grazing", "dop853", 1e-3, "two of three computed crests stay below the threshold"},
    {"grazing", "ndf", 1e-3, "crossings of the computed trajectory up to 0.11 s from the exact ones"},
    {"grazing", "ndf", 1e-4, "two of three computed crests stay below the threshold"},
};

bool listed_wrong(const std::string& model, const std::string& solver, double rtol) {
  for (const WrongPoint& w : kWrongEvents) {
    if (model == w.model && solver == w.solver && std::abs(rtol / w.rtol - 1) < 1e-9) return true;
  }
  return false;
}

TEST(SolverCampaign, EverySolverEveryToleranceEveryModelWithAReference) {
  std::map<std::string, std::map<std::string, std::string>> table;  // solver -> model -> cell
  std::vector<std::string> solvers;
  for (const CampaignModel& m : kModels) {
    SCOPED_TRACE(m.name);
    WorkPrecisionRequest request;
    request.choice.model = m.name;
    request.choice.preset = m.preset;
    request.options.t_end = m.t_end;
    request.strategies = {"gamma-refine"};
    request.rtol_from = 1e-3;
    request.rtol_to = 1e-12;
    const WorkPrecision study = work_precision(request);
    const std::vector<Proportionality> measures = proportionality(study);
    std::map<std::string, std::pair<std::vector<int>, double>> per_solver;  // decades right, worst error/rtol
    for (std::size_t i = 0; i < study.runs.size(); ++i) {
      const Evaluation& run = study.runs[i];
      const std::string& solver = run.options.solver;
      const double rtol = run.options.rtol;
      SCOPED_TRACE(solver + " at rtol " + std::to_string(rtol));
      if (std::find(solvers.begin(), solvers.end(), solver) == solvers.end()) solvers.push_back(solver);
      ASSERT_EQ(run.outcome, Outcome::kCompleted) << run.note;
      ASSERT_TRUE(run.match.has_value());
      const bool right = run.match->missed == 0 && run.match->spurious == 0 && run.match->matched > 0;
      const bool listed = listed_wrong(m.name, solver, rtol);
      EXPECT_EQ(right, !listed) << run.match->missed << " missed, " << run.match->spurious << " spurious"
                                << (listed ? " (listed as wrong: the list must follow the engine)" : "");
      auto& [decades, worst] = per_solver[solver];
      if (!right) continue;
      decades.push_back(static_cast<int>(std::lround(-std::log10(rtol))));
      const double error_per_rtol = measures[i].error_per_rtol;
      if (error_per_rtol == error_per_rtol) {
        EXPECT_LE(error_per_rtol, m.multiple);
        worst = std::max(worst, error_per_rtol);
      }
    }
    for (const auto& [solver, result] : per_solver) {
      const auto& [decades, worst] = result;
      std::string rights = "none";
      if (decades.size() == 10) {
        rights = "all";
      } else if (!decades.empty()) {
        rights = "1e-" + std::to_string(decades.front()) + "..1e-" + std::to_string(decades.back());
      }
      char worst_text[32];
      std::snprintf(worst_text, sizeof worst_text, "%.2g", worst);
      table[solver][m.name] = rights + " " + worst_text;
    }
  }
  std::printf("\nsolver campaign (default strategy, rtol 1e-3..1e-12, atol 1e-3 rtol): the rtols with the events "
              "right, the worst max|t - t*| / rtol over them\n%-12s", "solver");
  for (const CampaignModel& m : kModels) std::printf(" | %-16s", m.name);
  std::printf("\n");
  for (const std::string& solver : solvers) {
    std::printf("%-12s", solver.c_str());
    for (const CampaignModel& m : kModels) std::printf(" | %-16s", table[solver][m.name].c_str());
    std::printf("\n");
  }
}

// The tolerance check (hysim/study/tolerance_check.hpp, `hysim run --check-tolerance`) at every
// point of the campaign: the run again at rtol / 10 and atol / 10, the events matched. It must
// flag every listed wrong point (the refusal: a run whose tolerance does not resolve its
// events says so). Where the events are right it may still flag (both runs honest, the events
// too close for the looser one's error): those false alarms are counted, not forbidden. Where
// it agrees, its estimate max |t - t_tight| is compared with the true error max |t - t*|: the
// table prints, per solver, the false alarms, the points where the rerun took the very same
// steps (no estimate, and the check says so) and the range of true / estimated error, which
// must lie within [0.1, 20] where the error stands above rounding (measured 0.23 to 12).
TEST(SolverCampaign, TheToleranceCheckFlagsEveryWrongPoint) {
  struct Tally {
    int points = 0, false_alarms = 0, same_steps = 0;
    double lowest = 1e300, highest = 0;  // true error / estimated error where the check agrees
  };
  std::map<std::string, Tally> tallies;
  std::vector<std::string> solvers;
  int flagged_wrong = 0;
  for (const CampaignModel& m : kModels) {
    ModelChoice choice;
    choice.model = m.name;
    choice.preset = m.preset;
    const ParameterValues values = choice.values();
    const Model<double> model = choice.make<double>(values);
    std::string why_not;
    const std::optional<Reference> reference = reference_for(choice, values, m.t_end, &why_not);
    ASSERT_TRUE(reference.has_value()) << why_not;
    for (const char* solver : {"dopri5", "bs3", "cashkarp54", "rkf78", "rosenbrock4", "ndf", "dop853"}) {
      if (std::find(solvers.begin(), solvers.end(), solver) == solvers.end()) solvers.push_back(solver);
      for (int decade = 3; decade <= 12; ++decade) {
        const double rtol = std::pow(10.0, -decade);
        SCOPED_TRACE(std::string(m.name) + ", " + solver + " at rtol " + std::to_string(rtol));
        SimulationOptions options;
        options.t_end = m.t_end;
        options.solver = solver;
        options.rtol = rtol;
        options.atol = rtol * 1e-3;
        const Evaluation run = evaluate_run(model, options, {}, &*reference);
        ASSERT_EQ(run.outcome, Outcome::kCompleted) << run.note;
        const ToleranceCheck check = check_tolerance(
            model, options, {run.events, false, m.t_end, run.stats.steps_accepted, run.stats.rhs_evals});
        ASSERT_TRUE(check.not_checked.empty()) << check.not_checked;
        const bool right = run.match->missed == 0 && run.match->spurious == 0;
        Tally& tally = tallies[solver];
        ++tally.points;
        if (!right) {
          EXPECT_FALSE(check.resolved()) << "a wrong point the check does not flag";
          flagged_wrong += check.resolved() ? 0 : 1;
          continue;
        }
        if (!check.resolved()) {
          ++tally.false_alarms;
          std::printf("false alarm: %s, %s at rtol %.0e: %s\n", m.name, solver, rtol, check.first_difference.c_str());
          continue;
        }
        if (check.same_steps) {
          ++tally.same_steps;
          continue;
        }
        // The ratio where the error stands above rounding (1e-11 s against ulps of t <= 20 of
        // 3.6e-15): at the floor both errors are rounding and their ratio means nothing.
        const std::optional<double> error = max_time_error(*run.match, run.events, reference->events);
        if (error && *error > 1e-11 && check.max_dt && *check.max_dt > 0) {
          EXPECT_LE(*error / *check.max_dt, 20) << "the estimate " << *check.max_dt << " s against " << *error;
          EXPECT_GE(*error / *check.max_dt, 0.1) << "the estimate " << *check.max_dt << " s against " << *error;
          tally.lowest = std::min(tally.lowest, *error / *check.max_dt);
          tally.highest = std::max(tally.highest, *error / *check.max_dt);
        }
      }
    }
  }
  EXPECT_EQ(flagged_wrong, static_cast<int>(std::size(kWrongEvents)));
  std::printf("\ntolerance check over the campaign: %d of %zu wrong points flagged\n%-12s | points | false alarms | "
              "same steps | true / estimated error (error > 1e-11 s)\n",
              flagged_wrong, std::size(kWrongEvents), "solver");
  for (const std::string& solver : solvers) {
    const Tally& t = tallies[solver];
    std::printf("%-12s | %6d | %12d | %10d | %.2g .. %.2g\n", solver.c_str(), t.points, t.false_alarms, t.same_steps,
                t.lowest, t.highest);
  }
}

}  // namespace
// The listed grazing points are wrong through the global error, not the detection: on the
// computed trajectory (the dense output, sampled every 0.5 ms) each run's events are exactly
// the sign changes of x - c, each within one sample of the event, none missed and none extra.
TEST(SolverCampaign, GrazingPointsMissNoCrossingOfTheComputedTrajectory) {
  const Model<double> model = testing::catalog_model<double>("grazing");
  const double c = std::cos(0.02), sample = 5e-4;
  for (const WrongPoint& w : kWrongEvents) {
    if (std::string(w.model) != "grazing") continue;
    SCOPED_TRACE(std::string(w.solver) + " at rtol " + std::to_string(w.rtol));
    SimulationOptions options;
    options.t_end = 20;
    options.solver = w.solver;
    options.rtol = w.rtol;
    options.atol = w.rtol * 1e-3;
    options.output_step = sample;
    const auto run = testing::collect(model, options, /*keep_samples=*/true);
    std::vector<double> changes;  // where the sampled x - c changes sign
    for (std::size_t i = 1; i < run.samples.size(); ++i) {
      if ((run.samples[i - 1].x[0] >= c) != (run.samples[i].x[0] >= c)) changes.push_back(run.samples[i].t);
    }
    ASSERT_EQ(run.rows.size(), changes.size()) << w.cause;
    for (std::size_t k = 0; k < changes.size(); ++k) EXPECT_NEAR(run.rows[k].t, changes[k], sample);
  }
}

}  // namespace hysim::study
