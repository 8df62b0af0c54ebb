// `hysim reproduce NAME`: a published table, its rows copied from the paper, with our rows
// beneath them computed the same way (docs/cli.md). Two reproductions:
//
//   pwm-table1   004, Table 1: the signed errors of events 1 and 7 of the PWM servo drive in
//                t, omega and phi, for ISMA, SimInTech, MATLAB and Ptolemy II (computed with
//                accuracy eps = 1e-4), against the exact events; then one row per strategy of
//                ours, on one solver (dopri5, rtol = atol = 1e-4 by default), against the exact
//                reference of models/pwm_servo_exact.hpp.
//   shpakov      000-002: every number the rule-table papers print, beside the papers' tables
//                run on our interpreter and on the engine, and the exact value (apps/shpakov.hpp).
#include <array>
#include <filesystem>
#include <iostream>
#include <memory>

#include "apps/cli_options.hpp"
#include "apps/commands.hpp"
#include "apps/comparison.hpp"
#include "apps/evaluation.hpp"
#include "apps/shpakov.hpp"
#include "apps/table.hpp"
#include "hysim/core/errors.hpp"
#include "hysim/core/printable.hpp"

namespace hysim::app {

namespace {


// 004, Table 1, as printed: t~1-t1*, t~7-t7*, omega~1-omega1*, omega~7-omega7*,
// phi~1-phi1*, phi~7-phi7*.
struct PaperRow {
  const char* platform;
  std::array<const char*, 6> errors;
};
constexpr std::array<PaperRow, 4> kPwmTableOne = {{
    {"ISMA", {"1.5e-06", "1.3e-05", "1.5e-04", "8.4e-05", "6.5e-06", "7.1e-05"}},
    {"SimInTech", {"9.5e-06", "7.4e-06", "2.0e-04", "2.7e-05", "4.3e-05", "1.7e-05"}},
    {"MATLAB", {"-2.2e-11", "-1.6e-10", "-2.2e-09", "2.0e-10", "-4.3e-10", "-2.3e-09"}},
    {"Ptolemy II", {"4.0e-05", "2.1e-04", "2.5e-04", "3.5e-04", "1.8e-04", "1.4e-04"}},
}};
constexpr const char* kPaperSource = "004, Table 1";
constexpr double kPaperAccuracy = 1e-4;  // 004, section 9: "the given accuracy eps = 1e-4"

// The runs of our rows, against the exact events.
struct TableOne {
  SimulationOptions base;
  Reference reference;
  ErrorColumns errors;  // t, omega and phi at events 1 and 7
  std::vector<Evaluation> runs;
  bool every_strategy = true;  // no --strategies: a strategy that cannot run is left out
};

TableOne run_table_one(const ReproduceRequest& request) {
  ModelChoice choice;
  choice.model = "pwm-servo";
  const ParameterValues values = choice.values();
  const ModelEntry& entry = choice.entry();

  // The run ends halfway between reference events 7 and 8: event 7 is the last one asked for,
  // and its window (apps/matching.hpp) closes before t_end.
  constexpr std::size_t kLastEvent = 7;
  constexpr double kProbeEnd = 1.0;  // [s] the PWM servo has about 20 events per second
  const Reference probe = entry.reference(values, kProbeEnd);
  if (probe.events.size() <= kLastEvent) throw Error("the PWM servo reference has fewer than 8 events in 1 s");
  SimulationOptions base;
  base.t_end = static_cast<double>((probe.events[kLastEvent - 1].t + probe.events[kLastEvent].t) / 2);
  base.solver = request.solver;
  base.rtol = request.rtol;
  base.atol = request.atol > 0 ? request.atol : request.rtol;
  check_common_options(choice, values, base);
  const std::vector<std::string> strategies = checked_strategies(request.strategies);
  const bool every_strategy = request.strategies.empty();

  std::string why_not;
  const std::optional<Reference> reference = reference_for(choice, values, base.t_end, &why_not);
  if (!reference) throw Error("the PWM servo reference is not available: " + why_not);
  std::vector<SimulationOptions> runs;
  for (const auto& strategy : strategies) {
    runs.push_back(base);
    runs.back().strategy = strategy;
  }
  TableOne table;
  table.base = base;
  table.reference = *reference;
  table.every_strategy = every_strategy;
  table.runs = evaluate(choice, values, runs, &*reference);
  table.errors = error_columns(entry.make<double>(values).state_names, kTableOneEvents, {"omega", "phi"});
  return table;
}

int reproduce_pwm_table1(const ReproduceRequest& request) {
  const TableOne table = run_table_one(request);
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

// The same as data: the paper's rows as numbers, our rows with their runs' statistics.
nlohmann::json pwm_table1_json(const ReproduceRequest& request) {
  const TableOne table = run_table_one(request);
  const std::vector<std::string> columns = table.errors.headers();
  nlohmann::json paper = nlohmann::json::array();
  for (const auto& row : kPwmTableOne) {
    nlohmann::json cells = {{"platform", row.platform}};
    for (std::size_t c = 0; c < columns.size(); ++c) cells[columns[c]] = std::stod(row.errors[c]);
    paper.push_back(cells);
  }
  nlohmann::json ours = nlohmann::json::array();
  nlohmann::json not_run = nlohmann::json::array();
  for (const auto& run : table.runs) {
    if (run.outcome == Outcome::kSkipped && table.every_strategy) {
      not_run.push_back({{"strategy", run.options.strategy}, {"note", run.note}});
      continue;
    }
    ours.push_back(run_json(run, table.errors, &table.reference));
  }
  return {{"source", kPaperSource},
          {"columns", columns},
          {"paper_accuracy", kPaperAccuracy},
          {"paper", paper},
          {"hysim", ours},
          {"not_run", not_run},
          {"settings",
           {{"solver", table.base.solver},
            {"rtol", table.base.rtol},
            {"atol", table.base.atol},
            {"scalar", "double"},
            {"t_end", table.base.t_end},
            {"reference", table.reference.method}}}};
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

nlohmann::json shpakov_json(const ReproduceRequest&) {
  nlohmann::json rows = nlohmann::json::array();
  const auto value = [](const std::optional<double>& v) { return v ? nlohmann::json(*v) : nlohmann::json(nullptr); };
  for (const auto& row : shpakov_rows()) {
    rows.push_back({{"source", row.source}, {"quantity", row.quantity}, {"published", row.published},
                    {"interpreter", value(row.interpreter)}, {"engine", value(row.engine)}, {"exact", value(row.exact)},
                    {"published_deviation", value(row.published_deviation())},
                    {"note", row.note}});
  }
  return {{"source", "000, 001, 002"},
          {"columns", {"published", "interpreter", "engine", "exact"}},
          {"rows", rows},
          {"settings", {{"engine", "dopri5, rtol = atol = 1e-12"}, {"interpreter", "the table's dt"}}}};
}

struct Reproduction {
  const char* name;
  const char* description;
  int (*print)(const ReproduceRequest&);
  nlohmann::json (*data)(const ReproduceRequest&);
};
constexpr std::array<Reproduction, 2> kReproductions = {{
    {"pwm-table1", "004, Table 1: errors at events 1 and 7 of the PWM servo drive", reproduce_pwm_table1,
     pwm_table1_json},
    {"shpakov", "000-002: every published number of the rule-table papers, interpreter / engine / exact",
     reproduce_shpakov, shpakov_json},
}};

const Reproduction& find_reproduction(const std::string& name) {
  std::string known;
  for (const auto& reproduction : kReproductions) {
    if (name == reproduction.name) return reproduction;
    known += (known.empty() ? "" : ", ") + std::string(reproduction.name);
  }
  throw InvalidArgument("unknown reproduction '" + name + "' (known: " + known + ")");
}

int reproduce(const ReproduceRequest& request) { return find_reproduction(request.name).print(request); }

}  // namespace

std::vector<std::pair<std::string, std::string>> reproductions() {
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& reproduction : kReproductions) out.emplace_back(reproduction.name, reproduction.description);
  return out;
}

nlohmann::json reproduction_json(const ReproduceRequest& request) {
  const Reproduction& reproduction = find_reproduction(request.name);
  nlohmann::json out = reproduction.data(request);
  out["name"] = reproduction.name;
  out["description"] = reproduction.description;
  return out;
}

Command add_reproduce_command(CLI::App& app, int* verbosity) {
  auto request = std::make_shared<ReproduceRequest>();
  std::string names;
  for (const auto& reproduction : kReproductions) names += std::string(names.empty() ? "" : ", ") + reproduction.name;
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
