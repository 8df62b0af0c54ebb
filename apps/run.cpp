// `hysim run MODEL`: one simulation; prints the event table and, with --out DIR, writes
// DIR/events.csv, DIR/trajectory.csv, DIR/steps.csv and DIR/stats.json (docs/cli.md).
#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <memory>

#include "apps/cli_options.hpp"
#include "apps/commands.hpp"
#include "apps/recorder.hpp"
#include "apps/stopwatch.hpp"
#include "apps/table.hpp"
#include "hysim/core/errors.hpp"

namespace hysim::app {

namespace {

struct RunRequest {
  ModelChoice choice;
  std::string out_dir;
  SimulationOptions options;
};

// One line per mode visited at an event.
void print_event_table(const std::vector<std::string>& state_names, const std::vector<EventRow>& rows) {
  Table table;
  table.header = {"event", "t", "from", "to", "class", "guard"};
  table.header.insert(table.header.end(), state_names.begin(), state_names.end());
  for (const auto& row : rows) {
    std::vector<std::string> cells = {row.index, row.t, row.from, row.to, row.kind, row.guard};
    cells.insert(cells.end(), row.x_pre.begin(), row.x_pre.end());
    table.rows.push_back(std::move(cells));
  }
  table.print(std::cout);
}

template <class S>
int run_model(const RunRequest& request) {
  const ParameterValues values = request.choice.values();

  // Everything that can be rejected is checked before a file is written.
  const Model<S> model = request.choice.entry().make<S>(values);
  Simulator<S> simulator(model, request.options);
  const std::filesystem::path out_dir = request.out_dir;
  if (!out_dir.empty()) std::filesystem::create_directories(out_dir);
  Recorder<S> recorder(out_dir);

  nlohmann::json report = {{"model", model.name}, {"options", options_json(request.options, request.choice, values)}};
  const auto start = std::chrono::steady_clock::now();
  const RunResult<S> result = simulator.run(&recorder);
  if (result.reason == RunReason::kFailed) {
    recorder.flush();
    const double wall = seconds_since(start);
    if (!out_dir.empty()) {
      report["error"] = result.message;
      report["stats"] = stats_json(simulator.statistics(), wall - recorder.seconds_in_observer());
      std::ofstream(out_dir / "stats.json") << report.dump(2) << "\n";
      std::cerr << "hysim: the run failed; " << out_dir.string() << " holds its output up to t = "
                << format_scalar(recorder.last_t()) << "\n";
    }
    throw SimulationError(result.message);  // main reports it and exits non-zero
  }
  const double wall_simulation = std::max(0.0, seconds_since(start) - recorder.seconds_in_observer());

  print_event_table(model.state_names, recorder.rows());
  const auto& s = result.stats;
  std::cout << "\n" << model.name << ": " << result.message << "\n"
            << "steps " << s.steps_accepted << " accepted, " << s.steps_rejected << " rejected; "
            << s.rhs_evals << " field evaluations, " << s.guard_evals << " guard evaluations, " << s.root_iterations
            << " root iterations; " << std::setprecision(3) << wall_simulation << " s\n";
  if (!out_dir.empty()) {
    report["result"] = {{"reason", run_reason_name(result.reason)}, {"message", result.message}};
    if (result.zeno_detected) report["result"]["zeno_t"] = to_double(result.t_zeno);
    report["stats"] = stats_json(s, wall_simulation);
    std::ofstream(out_dir / "stats.json") << report.dump(2) << "\n";
    std::cout << "wrote " << (out_dir / "events.csv").string() << ", " << (out_dir / "trajectory.csv").string()
              << ", " << (out_dir / "steps.csv").string() << ", " << (out_dir / "stats.json").string() << "\n";
  }
  return 0;
}

}  // namespace

Command add_run_command(CLI::App& app, int* verbosity) {
  auto request = std::make_shared<RunRequest>();
  CLI::App* cmd = app.add_subcommand("run", "simulate a model and print its event table");
  add_model_options(cmd, &request->choice);
  add_simulation_options(cmd, &request->options);
  cmd->add_option("--out", request->out_dir, "write events.csv, trajectory.csv, steps.csv and stats.json here");
  add_verbosity_flag(cmd, verbosity);
  return {cmd, [request, cmd] {
            if (cmd->count("--t-end") == 0) request->options.t_end = request->choice.t_end_or(request->options.t_end);
            return with_scalar(request->choice.scalar_kind(), [&]<class S>() { return run_model<S>(*request); });
          }};
}

}  // namespace hysim::app
