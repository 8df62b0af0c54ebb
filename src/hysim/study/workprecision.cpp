#include "hysim/study/workprecision.hpp"

#include <cmath>
#include <limits>

#include "hysim/core/errors.hpp"
#include "hysim/solvers/stepper.hpp"
#include "hysim/study/format.hpp"

namespace hysim::study {

void WorkPrecisionRequest::validate() const {
  auto positive = [](double value, const char* name) {
    if (!(std::isfinite(value) && value > 0)) {
      throw InvalidArgument("option " + std::string(name) + " = " + format_shortest(value) + " violates " + name +
                            " > 0");
    }
  };
  positive(rtol_from, "rtol-from");
  positive(rtol_to, "rtol-to");
  positive(atol_factor, "atol-factor");
  if (per_decade < 1) throw InvalidArgument("option per-decade = " + std::to_string(per_decade) + " violates per-decade >= 1");
  const long count = std::lround(std::abs(std::log10(rtol_from / rtol_to)) * per_decade);
  if (count + 1 > kMostTolerances) {
    throw InvalidArgument("the sweep has " + std::to_string(count + 1) + " tolerances, more than " +
                          std::to_string(kMostTolerances));
  }
}

std::vector<double> rtol_sweep(const WorkPrecisionRequest& r) {
  r.validate();
  const double decades = std::log10(r.rtol_from / r.rtol_to);  // negative: the sweep goes up
  const long count = std::lround(std::abs(decades) * r.per_decade);
  std::vector<double> sweep;
  const double direction = decades >= 0 ? -1.0 : 1.0;
  for (long i = 0; i < count; ++i) {
    sweep.push_back(r.rtol_from * std::pow(10.0, direction * static_cast<double>(i) / r.per_decade));
  }
  sweep.push_back(r.rtol_to);
  return sweep;
}

namespace {

// The adaptive solvers: the default, since the fixed-step ones ignore rtol.
std::vector<std::string> adaptive_solvers() {
  std::vector<std::string> names;
  for (const auto& info : solver_catalog()) {
    if (info.adaptive) names.push_back(info.name);
  }
  return names;
}

// Every strategy, without the CVODE peer that does not suit the model: "cvode-adams" (whose
// fixed-point iteration needs steps within the stability region of the fastest mode) when the
// model is stiff, "cvode" (BDF: lower orders than Adams' 12, a Jacobian and Newton iterations
// to no purpose) when it is not.
std::vector<std::string> default_strategies(const ModelEntry& entry) {
  const std::string unsuited = entry.stiff ? "cvode-adams" : "cvode";
  std::vector<std::string> names;
  for (const auto& name : checked_strategies({})) {
    if (name != unsuited) names.push_back(name);
  }
  return names;
}

std::vector<SimulationOptions> sweep_runs(const SimulationOptions& base, const std::vector<std::string>& solvers,
                                          const std::vector<std::string>& strategies, const std::vector<double>& rtols,
                                          double atol_factor) {
  std::vector<SimulationOptions> runs;
  for (const auto& combination : solver_strategy_grid(base, solvers, strategies)) {
    for (const double rtol : rtols) {
      runs.push_back(combination);
      runs.back().rtol = rtol;
      runs.back().atol = rtol * atol_factor;
    }
  }
  return runs;
}

}  // namespace

WorkPrecision work_precision(const WorkPrecisionRequest& request) {
  WorkPrecision out;
  out.rtols = rtol_sweep(request);
  const std::vector<std::string> strategies =
      checked_strategies(request.strategies.empty() ? default_strategies(request.choice.entry()) : request.strategies,
                         request.options);
  const std::vector<std::string> solvers =
      request.solvers.empty() ? adaptive_solvers() : checked_solvers(request.solvers);
  const ParameterValues values = request.choice.values();
  out.base = request.options;
  out.base.solver = solvers.front();
  check_common_options(request.choice, values, out.base);
  std::string why_not;
  std::optional<Reference> reference = reference_for(request.choice, values, out.base.t_end, &why_not);
  if (!reference) throw InvalidArgument("workprecision needs a reference: " + why_not);
  out.reference = std::move(*reference);
  out.runs = evaluate(request.choice, values, sweep_runs(out.base, solvers, strategies, out.rtols, request.atol_factor),
                      &out.reference, request.jobs);
  return out;
}

std::vector<Proportionality> proportionality(const WorkPrecision& study) {
  constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
  std::vector<Proportionality> out(study.runs.size());
  for (std::size_t i = 0; i < study.runs.size(); ++i) {
    const Evaluation& run = study.runs[i];
    Proportionality& p = out[i];
    p.error = p.error_per_rtol = p.reversal = kNaN;
    if (run.outcome != Outcome::kCompleted || !run.match || run.match->matched == 0) continue;
    p.error = max_time_error(*run.match, run.events, study.reference.events).value_or(kNaN);
    p.error_per_rtol = p.error / run.options.rtol;
  }
  // Each run against the runs of its series at looser tolerances (the sweep may run either way).
  for (std::size_t i = 0; i < study.runs.size(); ++i) {
    const Evaluation& run = study.runs[i];
    Proportionality& p = out[i];
    if (!(p.error == p.error)) continue;
    double best_error = kNaN, best_ratio = kNaN;
    for (std::size_t j = 0; j < study.runs.size(); ++j) {
      const Evaluation& other = study.runs[j];
      if (other.solver_label() != run.solver_label() || other.options.strategy != run.options.strategy ||
          !(other.options.rtol > run.options.rtol) || !(out[j].error == out[j].error)) {
        continue;
      }
      if (!(out[j].error >= best_error)) best_error = out[j].error;
      if (!(out[j].error_per_rtol >= best_ratio)) best_ratio = out[j].error_per_rtol;
    }
    p.reversal = best_error > 0 ? p.error / best_error : kNaN;
    if (run.match->missed > 0 || run.match->spurious > 0) {
      p.why = "events missed or spurious";
    } else if (p.reversal > Proportionality::kMostReversal) {
      p.why = "error " + format_scalar(p.reversal, 2) + "x a looser rtol's";
    } else if (p.error_per_rtol > Proportionality::kMostDrift * best_ratio) {
      p.why = "error/rtol " + format_scalar(p.error_per_rtol / best_ratio, 2) + "x a looser rtol's";
    }
    p.flagged = !p.why.empty();
  }
  return out;
}

}  // namespace hysim::study
