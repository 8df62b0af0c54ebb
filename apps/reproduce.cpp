// `hysim reproduce NAME`: a published table, its rows copied from the paper, with our rows
// beneath them computed the same way (hysim/study/reproduce.hpp, docs/cli.md). This file prints
// and writes them.
#include <array>
#include <filesystem>
#include <iostream>
#include <memory>

#include "apps/cli_options.hpp"
#include "apps/commands.hpp"
#include "hysim/study/comparison.hpp"
#include "hysim/study/evaluation.hpp"
#include "hysim/study/out_folder.hpp"
#include "hysim/study/reproduce.hpp"
#include "hysim/study/shpakov.hpp"
#include "apps/table.hpp"
#include "hysim/core/errors.hpp"
#include "hysim/core/printable.hpp"

namespace hysim::app {

namespace {


int reproduce_pwm_table1(const ReproduceRequest& request) {
  const PwmTableOne table = pwm_table_one(request);
  const SimulationOptions& base = table.base;
  const Reference* reference = &table.reference;
  const ErrorColumns& errors = table.errors;

  Table shown, exact;
  shown.header = {"source", "method"};
  for (const auto& h : errors.headers()) shown.header.push_back(h);
  shown.header.push_back("one_sided");
  shown.header.push_back("note");
  exact.header = shown.header;
  for (const auto& row : kPwmTableOne) {
    std::vector<std::string> cells = {kPaperSource, row.platform};
    cells.insert(cells.end(), row.errors.begin(), row.errors.end());
    cells.push_back(kNoValue);
    cells.push_back("");
    shown.rows.push_back(cells);
    exact.rows.push_back(cells);
  }
  std::vector<std::string> not_run;
  for (const auto& run : table.runs) {
    if (run.outcome == Outcome::kSkipped && table.every_strategy) {
      not_run.push_back(run.options.strategy + " (" + run.note + ")");
      continue;
    }
    for (const auto precision : {Precision::kShort, Precision::kExact}) {
      std::vector<std::string> cells = {"hysim", run.solver_label() + " " + run.options.strategy};
      for (const auto& value : errors.values(run, &*reference)) cells.push_back(error_cell(value, precision));
      cells.push_back(number_cell(run.one_sided_share(), 3, precision));
      cells.push_back(run.status_note());
      (precision == Precision::kShort ? shown : exact).rows.push_back(std::move(cells));
    }
  }

  std::cout << "004, Table 1: signed errors at events 1 and 7 of the PWM servo drive, dX_k = X~_k - X*_k\n"
            << "paper rows: copied from " << kPaperSource << ", computed with accuracy eps = " << kPaperAccuracy
            << "\n"
            << "hysim rows: " << base.solver << ", rtol = " << base.rtol << ", atol = " << base.atol
            << ", double, t in [0, " << format_general(base.t_end, 6)
            << "] (halfway between events 7 and 8), against the exact events (" << reference->method << ")\n\n";
  shown.print(std::cout);
  for (const auto& line : not_run) std::cout << "not run: " << line << "\n";
  if (!request.out_dir.empty()) {
    const std::filesystem::path out_dir = request.out_dir;
    create_output_folder(out_dir);
    exact.write_csv(out_dir / "pwm-table1.csv");
    std::cout << "\nwrote " << printable((out_dir / "pwm-table1.csv").string()) << "\n";
  }
  return 0;
}

// 000-002 (Shpakov's rule tables): published / interpreter / engine / exact.
Table shpakov_table(const std::vector<ShpakovRow>& rows, Precision precision) {
  Table table;
  table.header = {"source", "quantity", "published", "interpreter", "engine", "exact", "published/exact - 1", "note"};
  for (const auto& row : rows) {
    table.rows.push_back({row.source, row.quantity, row.published, number_cell(row.interpreter, 10, precision),
                          number_cell(row.engine, 16, precision), number_cell(row.exact, 16, precision),
                          error_cell(row.published_deviation(), precision), row.note});
  }
  return table;
}

int reproduce_shpakov(const ReproduceRequest& request) {
  const std::vector<ShpakovRow> rows = shpakov_rows();
  std::cout << "000-002 (Shpakov): the published numbers beside the papers' tables (models/rules/) run on the rule\n"
            << "interpreter (the table's dt) and on the engine (dopri5, tolerance 1e-12), and the exact values\n\n";
  shpakov_table(rows, Precision::kShort).print(std::cout);
  if (!request.out_dir.empty()) {
    const std::filesystem::path out_dir = request.out_dir;
    create_output_folder(out_dir);
    shpakov_table(rows, Precision::kExact).write_csv(out_dir / "shpakov.csv");
    std::cout << "\nwrote " << printable((out_dir / "shpakov.csv").string()) << "\n";
  }
  return 0;
}

int reproduce(const ReproduceRequest& request) {
  check_reproduction(request.name);
  return request.name == "shpakov" ? reproduce_shpakov(request) : reproduce_pwm_table1(request);
}

}  // namespace

Command add_reproduce_command(CLI::App& app, int* verbosity) {
  auto request = std::make_shared<ReproduceRequest>();
  std::string names;
  for (const auto& [name, description] : reproductions()) names += (names.empty() ? "" : ", ") + name;
  CLI::App* cmd = app.add_subcommand("reproduce", "a published table beside our strategies");
  cmd->add_option("name", request->name, "what to reproduce: " + names)->required();
  add_strategies_option(cmd, &request->strategies, "every strategy that runs");
  cmd->add_option("--solver", request->solver, "integrator of our rows")->default_val(request->solver);
  cmd->add_option("--rtol", request->rtol, "relative tolerance of our rows (the paper's eps)")
      ->default_val(request->rtol);
  cmd->add_option("--atol", request->atol, "absolute tolerance of our rows; 0: the same as --rtol")
      ->default_val(request->atol);
  cmd->add_option("--out", request->out_dir, "write NAME.csv here");
  add_verbosity_flag(cmd, verbosity);
  return {cmd, [request] { return reproduce(*request); }};
}

}  // namespace hysim::app
