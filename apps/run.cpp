// `hysim run MODEL`: one simulation; prints the event table as events come (abbreviated on a
// terminal) and, with --out DIR, writes DIR/events.csv, DIR/trajectory.csv, DIR/steps.csv and
// DIR/stats.json (or those --files names) as the run goes (docs/cli.md). Memory does not grow
// with the horizon.
#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <memory>

#include <unistd.h>

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
  std::string table = "auto";         // --table: auto, all, short, none
  bool quiet = false;                 // --quiet: --table none
  std::vector<std::string> files = {"events", "trajectory", "steps", "stats"};  // --files

  // The table's mode: `auto` abbreviates on a terminal and prints every row otherwise.
  TableMode table_mode() const {
    if (quiet || table == "none") return TableMode::kNone;
    if (table == "all") return TableMode::kAll;
    if (table == "short") return TableMode::kAbbreviated;
    if (table == "auto") return isatty(STDOUT_FILENO) ? TableMode::kAbbreviated : TableMode::kAll;
    throw InvalidArgument("--table: '" + table + "' is not one of auto, all, short, none");
  }
};

template <class S>
int run_model(const RunRequest& request) {
  const ParameterValues values = request.choice.values();

  // Everything that can be rejected is checked before a file is written.
  const Model<S> model = request.choice.entry().make<S>(values);
  Simulator<S> simulator(model, request.options);
  const TableMode table = request.table_mode();
  const OutputFiles files = OutputFiles::parse(request.files);
  const std::filesystem::path out_dir = request.out_dir;
  if (!out_dir.empty()) std::filesystem::create_directories(out_dir);
  Recorder<S> recorder(out_dir, files, table, table == TableMode::kNone ? nullptr : &std::cout);

  nlohmann::json report = {{"model", model.name}, {"options", options_json(request.options, request.choice, values)}};
  const auto write_stats = [&] {
    if (!out_dir.empty() && files.stats) std::ofstream(out_dir / "stats.json") << report.dump(2) << "\n";
  };
  const auto start = std::chrono::steady_clock::now();
  const RunResult<S> result = simulator.run(&recorder);
  recorder.finish_table();
  if (result.reason == RunReason::kFailed) {
    recorder.flush();
    const double wall = seconds_since(start);
    if (!out_dir.empty()) {
      report["error"] = result.message;
      report["stats"] = stats_json(simulator.statistics(), wall - recorder.seconds_in_observer());
      write_stats();
      std::cerr << "hysim: the run failed; " << out_dir.string() << " holds its output up to t = "
                << format_scalar(recorder.last_t()) << "\n";
    }
    throw SimulationError(result.message);  // main reports it and exits non-zero
  }
  const double wall_simulation = std::max(0.0, seconds_since(start) - recorder.seconds_in_observer());

  const auto& s = result.stats;
  std::cout << (table == TableMode::kNone ? "" : "\n") << model.name << ": " << result.message << "\n"
            << "steps " << s.steps_accepted << " accepted, " << s.steps_rejected << " rejected; "
            << s.rhs_evals << " field evaluations, " << s.guard_evals << " guard evaluations, " << s.root_iterations
            << " root iterations; " << std::setprecision(3) << wall_simulation << " s\n";
  if (!out_dir.empty()) {
    report["result"] = {{"reason", run_reason_name(result.reason)}, {"message", result.message}};
    if (result.zeno_detected) report["result"]["zeno_t"] = to_double(result.t_zeno);
    report["stats"] = stats_json(s, wall_simulation);
    write_stats();
    std::string wrote;
    for (const auto& path : recorder.written()) wrote += (wrote.empty() ? "" : ", ") + path.string();
    if (!wrote.empty()) std::cout << "wrote " << wrote << "\n";
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
  cmd->add_option("--files", request->files, "which files --out writes: events,trajectory,steps,stats (default: all)")
      ->delimiter(',');
  cmd->add_option("--table", request->table,
                  "the event table: auto (abbreviated past 50 rows on a terminal, every row otherwise), all, short, "
                  "none")
      ->default_val("auto");
  cmd->add_flag("--quiet", request->quiet, "no event table (the summary lines stay)");
  add_verbosity_flag(cmd, verbosity);
  return {cmd, [request, cmd] {
            if (cmd->count("--t-end") == 0) request->options.t_end = request->choice.t_end_or(request->options.t_end);
            return with_scalar(request->choice.scalar_kind(), [&]<class S>() { return run_model<S>(*request); });
          }};
}

}  // namespace hysim::app
