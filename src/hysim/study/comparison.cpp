#include "hysim/study/comparison.hpp"

#include "hysim/output/run_report.hpp"

namespace hysim::study {

namespace {

nlohmann::json optional_json(const std::optional<double>& value) {
  return value ? nlohmann::json(*value) : nlohmann::json(nullptr);
}

}  // namespace

nlohmann::json run_json(const Evaluation& run, const ErrorColumns& errors, const Reference* reference) {
  nlohmann::json out = {{"solver", run.solver_label()},
                        {"strategy", run.options.strategy},
                        {"outcome", outcome_name(run.outcome)},
                        {"note", run.note}};
  if (run.outcome == Outcome::kSkipped) return out;
  out["stats"] = statistics_json(run.stats, run.wall_seconds);
  out["one_sided_share"] = optional_json(run.one_sided_share());
  if (!run.match) return out;
  out["matching"] = {{"matched", run.match->matched},
                     {"missed", run.match->missed},
                     {"spurious", run.match->spurious},
                     {"at_start", run.match->at_start},
                     {"open_at_end", run.match->open}};
  out["max_abs_dt"] = optional_json(max_time_error(*run.match, run.events, reference->events));
  nlohmann::json by_name = nlohmann::json::object();
  const auto headers = errors.headers();
  const auto values = errors.values(run, reference);
  for (std::size_t c = 0; c < headers.size(); ++c) by_name[headers[c]] = optional_json(values[c]);
  out["errors"] = by_name;
  return out;
}

Comparison compare_runs(const CompareRequest& request) {
  const ModelChoice& choice = request.choice;
  Comparison c(choice, choice.values());
  c.strategies = checked_strategies(request.strategies, request.options, request.settings);
  c.solvers = request.solvers.empty() ? std::vector<std::string>{request.options.solver} : checked_solvers(request.solvers);
  c.base = request.options;
  c.base.solver = c.solvers.front();
  check_common_options(choice, c.values, c.base);
  c.reference = reference_for(choice, c.values, c.base.t_end, &c.why_no_reference);
  c.runs = evaluate(choice, c.values, solver_strategy_grid(c.base, c.solvers, c.strategies), c.reference_or_null(), request.jobs,
                    request.settings);
  c.errors = error_columns(choice.entry().make<double>(c.values).state_names, kTableOneEvents);
  return c;
}

nlohmann::json Comparison::json() const {
  nlohmann::json report = {{"model", choice.model},
                           {"options", request_options_json(base, choice, values)},
                           {"solvers", solvers},
                           {"strategies", strategies},
                           {"event_numbers", errors.numbers}};
  report["options"].erase("solver");
  report["options"].erase("strategy");
  report["reference"] = reference ? nlohmann::json{{"method", reference->method}, {"events", reference->events.size()}}
                                  : nlohmann::json{{"none", why_no_reference}};
  nlohmann::json list = nlohmann::json::array();
  for (const auto& run : runs) list.push_back(run_json(run, errors, reference_or_null()));
  report["runs"] = list;
  return report;
}

}  // namespace hysim::study
