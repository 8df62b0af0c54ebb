// `hysim compare MODEL`: every (solver, strategy) combination on the same model, measured
// against the model's reference events (apps/matching.hpp); one table, also written as
// DIR/compare.csv and DIR/compare.json with --out DIR (docs/cli.md).
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>

#include "apps/cli_options.hpp"
#include "apps/commands.hpp"
#include "apps/evaluation.hpp"
#include "apps/table.hpp"
#include "hysim/core/errors.hpp"

namespace hysim::app {

namespace {

struct CompareRequest {
  ModelChoice choice;
  SimulationOptions options;  // everything but solver and strategy
  std::vector<std::string> strategies;
  std::vector<std::string> solvers;
  std::string out_dir;
};

// The table's columns: see docs/cli.md, `hysim compare`.
std::vector<std::string> header_of(const ErrorColumns& errors) {
  std::vector<std::string> header = {"solver", "strategy", "events", "matched", "missed", "spurious"};
  for (const auto& h : errors.headers()) header.push_back(h);
  for (const char* h : {"max_abs_dt", "one_sided", "steps_accepted", "steps_rejected", "rhs_evals", "guard_evals",
                        "root_iterations", "wall_seconds", "note"}) {
    header.push_back(h);
  }
  return header;
}

// One row of the table (Precision::kShort) or of compare.csv (Precision::kExact).
std::vector<std::string> cells_of(const Evaluation& run, const ErrorColumns& errors, const Reference* reference,
                                  Precision precision) {
  const bool ran = run.outcome != Outcome::kSkipped;
  const MatchResult* match = ran && run.match ? &*run.match : nullptr;
  auto count = [&](bool known, auto value) {
    return count_cell(known ? std::optional<long long>(static_cast<long long>(value)) : std::nullopt, precision);
  };
  std::vector<std::string> cells = {run.solver_label(),
                                    run.options.strategy,
                                    count(ran, run.stats.events),
                                    count(match, match ? match->matched : 0),
                                    count(match, match ? match->missed : 0),
                                    count(match, match ? match->spurious : 0)};
  for (const auto& value : errors.values(run, reference)) cells.push_back(error_cell(value, precision));
  cells.push_back(error_cell(match ? max_time_error(*match, run.events, reference->events) : std::nullopt, precision));
  cells.push_back(number_cell(run.one_sided_share(), 3, precision));
  for (const auto value : {run.stats.steps_accepted, run.stats.steps_rejected, run.stats.rhs_evals,
                           run.stats.guard_evals, run.stats.root_iterations}) {
    cells.push_back(count(ran, value));
  }
  cells.push_back(number_cell(ran ? std::optional<double>(run.wall_seconds) : std::nullopt, 3, precision));
  cells.push_back(run.status_note());
  return cells;
}

nlohmann::json optional_json(const std::optional<double>& value) {
  return value ? nlohmann::json(*value) : nlohmann::json(nullptr);
}

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

int compare(const CompareRequest& request) {
  const std::vector<std::string> strategies = checked_strategies(request.strategies);
  const std::vector<std::string> solvers =
      request.solvers.empty() ? std::vector<std::string>{request.options.solver} : checked_solvers(request.solvers);
  const ParameterValues values = request.choice.values();
  SimulationOptions base = request.options;
  base.solver = solvers.front();
  check_common_options(request.choice, values, base);
  const std::filesystem::path out_dir = request.out_dir;

  std::string why_no_reference;
  const std::optional<Reference> reference = reference_for(request.choice, values, base.t_end, &why_no_reference);
  const Reference* ref = reference ? &*reference : nullptr;
  const std::vector<Evaluation> runs =
      evaluate(request.choice, values, solver_strategy_grid(base, solvers, strategies), ref);

  const std::vector<std::string> states = request.choice.entry().make<double>(values).state_names;
  const ErrorColumns errors = error_columns(states, kTableOneEvents);
  Table shown, exact;
  shown.header = exact.header = header_of(errors);
  for (const auto& run : runs) {
    shown.rows.push_back(cells_of(run, errors, ref, Precision::kShort));
    exact.rows.push_back(cells_of(run, errors, ref, Precision::kExact));
  }

  std::cout << request.choice.model << " to t_end = " << base.t_end << ", " << request.choice.scalar
            << ", rtol = " << base.rtol << ", atol = " << base.atol << "\n";
  if (ref) {
    std::cout << "reference: " << ref->method << "; errors dX_k = X~_k - X*_k at reference events 1 and 7\n\n";
  } else {
    std::cout << "reference: none (" << why_no_reference << "); event errors are not available\n\n";
  }
  shown.print(std::cout);

  if (!out_dir.empty()) {
    std::filesystem::create_directories(out_dir);
    exact.write_csv(out_dir / "compare.csv");
    nlohmann::json report = {{"model", request.choice.model},
                             {"options", request_options_json(base, request.choice, values)},
                             {"solvers", solvers},
                             {"strategies", strategies},
                             {"event_numbers", errors.numbers}};
    report["options"].erase("solver");
    report["options"].erase("strategy");
    report["reference"] = ref ? nlohmann::json{{"method", ref->method}, {"events", ref->events.size()}}
                              : nlohmann::json{{"none", why_no_reference}};
    nlohmann::json list = nlohmann::json::array();
    for (const auto& run : runs) list.push_back(run_json(run, errors, ref));
    report["runs"] = list;
    std::ofstream json(out_dir / "compare.json");
    if (!json) throw InvalidArgument("cannot write " + (out_dir / "compare.json").string());
    json << report.dump(2) << "\n";
    std::cout << "\nwrote " << (out_dir / "compare.csv").string() << ", " << (out_dir / "compare.json").string()
              << "\n";
  }
  return 0;
}

}  // namespace

Command add_compare_command(CLI::App& app, int* verbosity) {
  auto request = std::make_shared<CompareRequest>();
  CLI::App* cmd = app.add_subcommand("compare", "run solvers x strategies on one model against its reference");
  add_model_options(cmd, &request->choice);
  add_reference_option(cmd, &request->choice);
  add_simulation_options(cmd, &request->options, {OptionGroup::kEnd, OptionGroup::kTolerance, OptionGroup::kTuning});
  add_strategies_option(cmd, &request->strategies, "every strategy");
  add_solvers_option(cmd, &request->solvers, request->options.solver);
  cmd->add_option("--out", request->out_dir, "write compare.csv and compare.json here");
  add_verbosity_flag(cmd, verbosity);
  return {cmd, [request] { return compare(*request); }};
}

}  // namespace hysim::app
