#include "hysim/study/tolerance_check.hpp"

#include <cmath>
#include <limits>
#include <vector>

#include "hysim/core/errors.hpp"
#include "hysim/models/reference.hpp"
#include "hysim/simulator.hpp"
#include "hysim/study/evaluation.hpp"
#include "hysim/study/format.hpp"
#include "hysim/study/stop.hpp"

namespace hysim::study {

void ToleranceCheckOptions::validate() const {
  if (!(factor > 1) || !std::isfinite(factor)) {
    throw InvalidArgument("tolerance check: factor = " + format_shortest(factor) + " violates factor > 1");
  }
  if (max_events < 1) throw InvalidArgument("tolerance check: max_events must be at least 1");
}

SimulationOptions tightened_options(const SimulationOptions& options, double factor) {
  SimulationOptions tight = options;
  tight.rtol = Decimal(options.rtol.value() / factor);
  tight.atol = Decimal(options.atol.value() / factor);
  for (auto& [name, atol] : tight.atol_states) atol = Decimal(atol.value() / factor);
  tight.fixed_step = Decimal(options.fixed_step.value() / factor);
  return tight;
}

std::string ToleranceCheck::summary() const {
  const std::string rerun = "the run again at rtol " + format_shortest(rtol) + ", atol " + format_shortest(atol);
  if (!not_checked.empty()) return "tolerance check: not checked: " + not_checked;
  if (resolved()) {
    std::string text = "tolerance check: " + rerun + " finds the same " + std::to_string(events) + " event(s)";
    if (same_steps) {
      text += ", but with the very same steps: the tolerance does not limit them (events, the maximum step or "
              "stability do), so the comparison does not estimate the error";
    } else if (max_dt) {
      text += "; estimated event-time error max |t - t_tight| = " + format_general(*max_dt, 2) + " s";
    }
    return text;
  }
  return "tolerance check: " + rerun + " finds " + std::to_string(events_tight) + " event(s) against the run's " +
         std::to_string(events) + " (" + std::to_string(missed) + " without a partner in the run, " +
         std::to_string(spurious) + " of the run without one in the rerun): " + first_difference +
         "; the tolerances do not resolve the events: tighten them";
}

nlohmann::json ToleranceCheck::to_json() const {
  nlohmann::json out = {{"rtol", rtol},       {"atol", atol},         {"events", events},
                        {"events_tight", events_tight}, {"matched", matched}, {"missed", missed},
                        {"spurious", spurious}, {"same_steps", same_steps}, {"resolved", resolved()},
                        {"note", summary()}};
  out["max_dt"] = max_dt ? nlohmann::json(*max_dt) : nlohmann::json(nullptr);
  return out;
}

namespace {

std::string event_text(const RunEvent& event) {
  return "'" + event.guard + "' at t = " + format_scalar(event.t);
}

// Whether run event i, unmatched, counts as spurious: not at the start t0 (matching.hpp counts
// those as at_start), and its window (half the gap to each neighbour) not reaching past t_end,
// where its partner may lie just after the end at which the rerun stopped (an event at t_end,
// which rounding puts on either side: the mirror of the matching's `open`).
bool counts_as_spurious(const MatchResult& match, std::span<const RunEvent> run, std::size_t i, float128 t0,
                        float128 t_end) {
  if (match.reference_of_run[i] != kUnmatched || run[i].t == t0) return false;
  float128 reach = std::numeric_limits<float128>::infinity();  // a lone event: an unbounded window
  if (i + 1 < run.size()) {
    reach = (run[i + 1].t - run[i].t) / 2;
  } else if (i > 0) {
    reach = (run[i].t - run[i - 1].t) / 2;  // the last borrows its left half
  }
  return run[i].t + reach <= t_end;
}

// The earliest event, of either run, that the matching left without a partner (open ones aside).
std::string first_difference(const MatchResult& match, std::span<const RunEvent> run,
                             std::span<const ReferenceEvent> tight, float128 t0, float128 t_end) {
  std::optional<std::size_t> first_run, first_tight;
  for (std::size_t i = 0; i < run.size() && !first_run; ++i) {
    if (counts_as_spurious(match, run, i, t0, t_end)) first_run = i;
  }
  for (std::size_t j = 0; j < tight.size() && !first_tight && match.missed > 0; ++j) {
    if (match.run_of_reference[j] == kUnmatched) first_tight = j;
  }
  if (first_run && (!first_tight || run[*first_run].t <= tight[*first_tight].t)) {
    return "the run's event " + std::to_string(*first_run + 1) + ", " + event_text(run[*first_run]) +
           ", has no partner in the rerun";
  }
  if (first_tight) {
    const ReferenceEvent& e = tight[*first_tight];
    return "the rerun's event " + std::to_string(*first_tight + 1) + ", '" + e.guard + "' at t = " +
           format_scalar(e.t) + ", has no partner in the run";
  }
  return "";
}

}  // namespace

template <class S>
ToleranceCheck check_tolerance(const Model<S>& model, const SimulationOptions& options, const CheckedRun& run,
                               const ToleranceCheckOptions& check, const StrategySettings& settings) {
  check.validate();
  SimulationOptions tight = tightened_options(options, check.factor);
  if (run.t_reached < options.t_end.value()) tight.t_end = Decimal(run.t_reached);
  ToleranceCheck verdict;
  verdict.rtol = tight.rtol.value();
  verdict.atol = tight.atol.value();
  verdict.events = run.events.size();
  if (run.overflowed) {
    verdict.not_checked = "the run has more than " + std::to_string(check.max_events) + " events, the most it keeps";
    return verdict;
  }
  std::vector<RunEvent> rerun;
  EventCollector<S> collector(&rerun, check.max_events);
  Simulator<S> simulator(model, tight, settings);
  simulator.stop_when(&stop_flag());
  const RunResult<S> result = simulator.run(&collector);
  verdict.events_tight = rerun.size();
  verdict.same_steps =
      result.stats.steps_accepted == run.steps_accepted && result.stats.rhs_evals == run.rhs_evals;
  if (result.reason == RunReason::kFailed || result.reason == RunReason::kInterrupted) {
    verdict.not_checked = "the rerun at rtol " + format_shortest(verdict.rtol) + " stopped: " + result.message;
    return verdict;
  }
  if (collector.overflowed() || result.reason == RunReason::kEventLimit) {
    verdict.not_checked = "the rerun at rtol " + format_shortest(verdict.rtol) + " has more events than the check "
                          "keeps (" + std::to_string(std::min(check.max_events, static_cast<std::size_t>(
                                                                             tight.event_limit))) +
                          ") before the run's end";
    return verdict;
  }
  std::vector<ReferenceEvent> reference;
  reference.reserve(rerun.size());
  for (RunEvent& e : rerun) reference.push_back({e.t, "", "", std::move(e.guard), std::move(e.x)});
  const MatchResult match =
      match_events(run.events, reference, static_cast<float128>(run.t_reached), static_cast<float128>(model.t0));
  const float128 t0 = static_cast<float128>(model.t0), t_end = static_cast<float128>(run.t_reached);
  verdict.matched = match.matched;
  verdict.missed = match.missed;
  for (std::size_t i = 0; i < run.events.size(); ++i) {
    if (counts_as_spurious(match, run.events, i, t0, t_end)) ++verdict.spurious;
  }
  verdict.max_dt = max_time_error(match, run.events, reference);
  verdict.first_difference = first_difference(match, run.events, reference, t0, t_end);
  return verdict;
}

template ToleranceCheck check_tolerance(const Model<double>&, const SimulationOptions&, const CheckedRun&,
                                        const ToleranceCheckOptions&, const StrategySettings&);
template ToleranceCheck check_tolerance(const Model<long double>&, const SimulationOptions&, const CheckedRun&,
                                        const ToleranceCheckOptions&, const StrategySettings&);
template ToleranceCheck check_tolerance(const Model<float128>&, const SimulationOptions&, const CheckedRun&,
                                        const ToleranceCheckOptions&, const StrategySettings&);

}  // namespace hysim::study
