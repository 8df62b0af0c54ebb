// `hysim compare MODEL`: every (solver, strategy) combination on the same model, measured
// against the model's reference events (hysim/study/matching.hpp); one table, also written as
// DIR/compare.csv and DIR/compare.json with --out DIR (docs/cli.md).
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>

#include "apps/cli_options.hpp"
#include "apps/commands.hpp"
#include "hysim/study/comparison.hpp"
#include "hysim/study/out_folder.hpp"
#include "hysim/study/evaluation.hpp"
#include "apps/table.hpp"
#include "hysim/core/errors.hpp"
#include "hysim/core/printable.hpp"

namespace hysim::app {

namespace {

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

// The terminal's table without --wide: the columns of compare.csv a reader scans first, within
// 120 characters for the catalog's names (steps for steps_accepted, fields and guards for
// rhs_evals and guard_evals, wall_s for wall_seconds); a note becomes a number, its text below
// the table (*notes).
Table narrow(const Table& wide, std::vector<std::string>* notes) {
  const std::vector<std::pair<std::string, std::string>> kept = {
      {"solver", "solver"},       {"strategy", "strategy"},   {"events", "events"},
      {"missed", "missed"},       {"spurious", "spurious"},   {"max_abs_dt", "max_abs_dt"},
      {"one_sided", "one_sided"}, {"steps_accepted", "steps"}, {"rhs_evals", "fields"},
      {"guard_evals", "guards"},  {"wall_seconds", "wall_s"}, {"note", "note"}};
  Table out;
  std::vector<std::size_t> columns;
  for (const auto& [name, shown] : kept) {
    const auto at = std::find(wide.header.begin(), wide.header.end(), name);
    if (at == wide.header.end()) continue;
    columns.push_back(static_cast<std::size_t>(at - wide.header.begin()));
    out.header.push_back(shown);
  }
  for (const auto& row : wide.rows) {
    std::vector<std::string> cells;
    for (const std::size_t c : columns) cells.push_back(row[c]);
    if (!cells.back().empty() && out.header.back() == "note") {
      notes->push_back(cells.back());
      cells.back() = "(" + std::to_string(notes->size()) + ")";
    }
    out.rows.push_back(std::move(cells));
  }
  return out;
}

int compare(const CompareRequest& request, bool wide) {
  const Comparison c = compare_runs(request);
  const Reference* ref = c.reference_or_null();
  Table shown, exact;
  shown.header = exact.header = header_of(c.errors);
  for (const auto& run : c.runs) {
    shown.rows.push_back(cells_of(run, c.errors, ref, Precision::kShort));
    exact.rows.push_back(cells_of(run, c.errors, ref, Precision::kExact));
  }

  std::cout << printable(request.choice.model) << " to t_end = " << c.base.t_end << ", " << request.choice.scalar
            << ", rtol = " << c.base.rtol << ", atol = " << c.base.atol << "\n";
  if (ref) {
    std::cout << "reference: " << ref->method << "; errors dX_k = X~_k - X*_k at reference events 1 and 7\n\n";
  } else {
    std::cout << "reference: none (" << c.why_no_reference << "); event errors are not available\n\n";
  }
  if (wide) {
    shown.print(std::cout);
  } else {
    std::vector<std::string> notes;
    narrow(shown, &notes).print(std::cout);
    for (std::size_t i = 0; i < notes.size(); ++i) std::cout << "(" << i + 1 << ") " << notes[i] << "\n";
  }

  if (!request.out_dir.empty()) {
    const std::filesystem::path out_dir = request.out_dir;
    create_output_folder(out_dir);
    // An earlier compare.json goes first: the new one replaces it whole, after compare.csv.
    prepare_out_folder(out_dir, {"compare.csv", "compare.json"}, {"compare.csv"});
    exact.write_csv(out_dir / "compare.csv");
    write_json(out_dir / "compare.json", c.json());
    std::cout << "\nwrote " << printable((out_dir / "compare.csv").string()) << ", " << printable((out_dir / "compare.json").string())
              << "\n";
  }
  return 0;
}

}  // namespace

Command add_compare_command(CLI::App& app, int* verbosity) {
  auto request = std::make_shared<CompareRequest>();
  CLI::App* cmd = app.add_subcommand("compare", "run solvers x strategies on one model against its reference");
  add_model_options(cmd, &request->choice);
  add_start_options(cmd, &request->choice.start);
  add_reference_option(cmd, &request->choice);
  add_simulation_options(cmd, &request->options, {OptionGroup::kEnd, OptionGroup::kTolerance, OptionGroup::kTuning});
  add_strategies_option(cmd, &request->strategies, "every strategy");
  add_solvers_option(cmd, &request->solvers, request->options.solver);
  cmd->add_option("--out", request->out_dir, "write compare.csv and compare.json here");
  auto wide = std::make_shared<bool>(false);
  cmd->add_flag("--wide", *wide,
                "print every column of compare.csv (the errors at events 1 and 7, matched, rejected steps, root "
                "iterations), not only those that fit 120 characters");
  cmd->add_option("--jobs", request->jobs, "threads (0: every core); the numbers do not depend on it, the wall times do")
      ->default_val(0)
      ->check(CLI::NonNegativeNumber);
  add_verbosity_flag(cmd, verbosity);
  return {cmd, [request, wide] { return compare(*request, *wide); }};
}

}  // namespace hysim::app
