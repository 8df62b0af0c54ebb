// hysim: the command-line program.
//
//   hysim list
//   hysim run MODEL [--t-end T] [--rtol R] [--atol A] [--solver NAME]
//                   [--scalar double|long-double|float128] [--param NAME=VALUE ...]
//                   [--preset NAME] [--out DIR] [-v|-vv]
//                   [--fixed-step H] [--initial-step H] [--max-step H] [--min-step H]
//                   [--event-tolerance T] [--chain-limit N] [--event-limit N]
//
// `run` prints the event table and, with --out DIR, writes DIR/events.csv,
// DIR/trajectory.csv and DIR/stats.json (docs/cli.md describes the files).
#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <nlohmann/json.hpp>

#include "apps/recorder.hpp"
#include "core/errors.hpp"
#include "core/log.hpp"
#include "core/simulator.hpp"
#include "models/catalog.hpp"
#include "solvers/stepper.hpp"

namespace hysim::app {
namespace {

struct RunRequest {
  std::string model;
  std::string scalar = "double";
  std::string preset;
  std::vector<std::string> params;
  std::string out_dir;
  SimulationOptions options;
};

int list_models() {
  for (const auto& entry : model_catalog()) {
    std::cout << entry.name << "\n  " << entry.summary << "\n  source: " << entry.source << "\n";
    for (const auto& p : entry.parameters) {
      std::cout << "    " << std::left << std::setw(10) << p.name << " = " << std::setw(8) << p.default_value << "  "
                << p.meaning << "\n";
    }
    for (const auto& preset : entry.presets) std::cout << "    preset " << preset.name << ": " << preset.description << "\n";
  }
  std::cout << "\nsolvers:\n";
  for (const auto& solver : solver_catalog()) std::cout << "  " << std::left << std::setw(8) << solver.name << solver.description << "\n";
  return 0;
}

// Prints the event table: one line per mode visited at an event, columns as wide as needed.
void print_event_table(const std::vector<std::string>& state_names, const std::vector<EventRow>& rows) {
  std::vector<std::string> header = {"event", "t", "from", "to", "class", "guard"};
  header.insert(header.end(), state_names.begin(), state_names.end());
  std::vector<std::size_t> width(header.size());
  for (std::size_t c = 0; c < header.size(); ++c) width[c] = header[c].size();
  auto cells = [](const EventRow& row) {
    std::vector<std::string> out = {row.index, row.t, row.from, row.to, row.kind, row.guard};
    out.insert(out.end(), row.x_pre.begin(), row.x_pre.end());
    return out;
  };
  for (const auto& row : rows) {
    const auto c = cells(row);
    for (std::size_t i = 0; i < c.size() && i < width.size(); ++i) width[i] = std::max(width[i], c[i].size());
  }
  auto print = [&](const std::vector<std::string>& line) {
    for (std::size_t i = 0; i < line.size() && i < width.size(); ++i) {
      std::cout << std::left << std::setw(static_cast<int>(width[i] + 2)) << line[i];
    }
    std::cout << "\n";
  };
  print(header);
  for (const auto& row : rows) print(cells(row));
}

nlohmann::json stats_json(const RunStatistics& s, double wall_seconds) {
  return {{"steps_accepted", s.steps_accepted}, {"steps_rejected", s.steps_rejected}, {"rhs_evals", s.rhs_evals},
          {"guard_evals", s.guard_evals},       {"root_iterations", s.root_iterations}, {"events", s.events},
          {"transitions", s.transitions},       {"one_sided_events", s.one_sided_events},
          {"wall_seconds", wall_seconds}};
}

nlohmann::json options_json(const RunRequest& request, const ParameterValues& values) {
  const auto& o = request.options;
  nlohmann::json params = nlohmann::json::object();
  for (const auto& [name, text] : values.values()) params[name] = text;
  return {{"t_end", o.t_end},
          {"solver", o.solver},
          {"scalar", request.scalar},
          {"rtol", o.rtol},
          {"atol", o.atol},
          {"initial_step", o.initial_step},
          {"max_step", o.max_step},
          {"min_step", o.min_step},
          {"fixed_step", o.fixed_step},
          {"event_tolerance", o.event_tolerance},
          {"chain_limit", o.chain_limit},
          {"event_limit", o.event_limit},
          {"preset", request.preset},
          {"parameters", params}};
}

template <class S>
int run_model(const RunRequest& request) {
  const ModelEntry& entry = find_model(request.model);
  ParameterValues values = entry.default_values();
  if (!request.preset.empty()) values.apply_preset(entry.presets, request.preset);
  for (const auto& assignment : request.params) values.set_assignment(assignment);

  // Everything that can be rejected is checked before a file is written.
  const Model<S> model = entry.make<S>(values);
  Simulator<S> simulator(model, request.options);
  const std::filesystem::path out_dir = request.out_dir;
  if (!out_dir.empty()) std::filesystem::create_directories(out_dir);
  Recorder<S> recorder(out_dir);

  nlohmann::json report = {{"model", model.name}, {"options", options_json(request, values)}};
  const auto start = std::chrono::steady_clock::now();
  RunResult<S> result;
  try {
    result = simulator.run(&recorder);
  } catch (const SimulationError& error) {
    recorder.flush();
    const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (!out_dir.empty()) {
      report["error"] = error.what();
      report["stats"] = stats_json(simulator.statistics(), wall - recorder.seconds_in_observer());
      std::ofstream(out_dir / "stats.json") << report.dump(2) << "\n";
      std::cerr << "hysim: the run failed; " << out_dir.string() << " holds its output up to t = "
                << format_scalar(recorder.last_t()) << "\n";
    }
    throw;
  }
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const double wall_simulation = std::max(0.0, wall - recorder.seconds_in_observer());

  print_event_table(model.state_names, recorder.rows());
  const auto& s = result.stats;
  std::cout << "\n" << model.name << ": " << result.message << "\n"
            << "steps " << s.steps_accepted << " accepted, " << s.steps_rejected << " rejected; "
            << s.rhs_evals << " field evaluations, " << s.guard_evals << " guard evaluations, " << s.root_iterations
            << " root iterations; " << std::setprecision(3) << wall_simulation << " s\n";
  if (!out_dir.empty()) {
    report["result"] = {{"reason", run_reason_name(result.reason)}, {"message", result.message}};
    report["stats"] = stats_json(s, wall_simulation);
    std::ofstream(out_dir / "stats.json") << report.dump(2) << "\n";
    std::cout << "wrote " << (out_dir / "events.csv").string() << ", " << (out_dir / "trajectory.csv").string()
              << ", " << (out_dir / "stats.json").string() << "\n";
  }
  return 0;
}

int run(const RunRequest& request) {
  switch (parse_scalar_kind(request.scalar)) {
    case ScalarKind::kDouble: return run_model<double>(request);
    case ScalarKind::kLongDouble: return run_model<long double>(request);
    case ScalarKind::kFloat128: return run_model<float128>(request);
  }
  return 1;
}

}  // namespace
}  // namespace hysim::app

int main(int argc, char** argv) {
  using namespace hysim::app;
  CLI::App app{"hysim: simulation of hybrid dynamic systems"};
  app.require_subcommand(1);
  int verbosity = 0;
  app.add_flag("-v", verbosity, "log each transition (-v) or each step (-vv) to stderr");

  app.add_subcommand("list", "list the models, their parameters and the solvers");

  RunRequest request;
  auto* run_cmd = app.add_subcommand("run", "simulate a model and print its event table");
  run_cmd->add_option("model", request.model, "model name (see `hysim list`)")->required();
  run_cmd->add_option("--t-end", request.options.t_end, "end time [s]")->default_val(1.0);
  run_cmd->add_option("--rtol", request.options.rtol, "relative tolerance")->default_val(request.options.rtol);
  run_cmd->add_option("--atol", request.options.atol, "absolute tolerance")->default_val(request.options.atol);
  run_cmd->add_option("--solver", request.options.solver, "integrator: dopri5, rk4, euler")->default_val("dopri5");
  run_cmd->add_option("--fixed-step", request.options.fixed_step, "step of fixed-step solvers [s]")
      ->default_val(request.options.fixed_step);
  run_cmd->add_option("--initial-step", request.options.initial_step, "first step [s], 0: estimated")
      ->default_val(0.0);
  run_cmd->add_option("--max-step", request.options.max_step, "largest step [s], 0: unlimited")->default_val(0.0);
  run_cmd->add_option("--min-step", request.options.min_step, "smallest step before failing [s], 0: 16 eps max(|t|,1)")
      ->default_val(0.0);
  run_cmd->add_option("--chain-limit", request.options.chain_limit, "most modes one event may visit")
      ->default_val(request.options.chain_limit);
  run_cmd->add_option("--event-tolerance", request.options.event_tolerance,
                      "width of the location bracket [s], 0: one ulp of t")
      ->default_val(0.0);
  run_cmd->add_option("--event-limit", request.options.event_limit, "stop after this many events")
      ->default_val(request.options.event_limit);
  run_cmd->add_option("--scalar", request.scalar, "double, long-double or float128")->default_val("double");
  run_cmd->add_option("--param", request.params, "override a parameter: NAME=VALUE (repeatable)");
  run_cmd->add_option("--preset", request.preset, "a named parameter set of the model");
  run_cmd->add_option("--out", request.out_dir, "write events.csv, trajectory.csv and stats.json here");
  run_cmd->add_flag("-v", verbosity, "log each transition (-v) or each step (-vv) to stderr");

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e);
    std::cerr << "hysim: error: " << e.what() << "\n";
    return 2;
  }
  hysim::set_verbosity(verbosity);
  try {
    if (app.got_subcommand("list")) return list_models();
    return run(request);
  } catch (const hysim::InvalidArgument& e) {
    std::cerr << "hysim: error: " << e.what() << "\n";
    return 2;
  } catch (const hysim::Error& e) {
    std::cerr << "hysim: error: " << e.what() << "\n";
    return 1;
  } catch (const std::exception& e) {
    std::cerr << "hysim: error: " << e.what() << "\n";
    return 1;
  }
}
