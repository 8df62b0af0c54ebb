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
#include <optional>
#include <vector>

#include <unistd.h>

#include "apps/cli_options.hpp"
#include "apps/commands.hpp"
#include "hysim/study/out_folder.hpp"
#include "apps/recorder.hpp"
#include "apps/rule_run.hpp"
#include "hysim/study/stop.hpp"
#include "hysim/study/stopwatch.hpp"
#include "hysim/study/evaluation.hpp"
#include "hysim/study/tolerance_check.hpp"
#include "apps/table.hpp"
#include "hysim/core/errors.hpp"
#include "hysim/rules/table.hpp"
#include "hysim/core/printable.hpp"

namespace hysim::app {

namespace {

// The exit status of a run whose --check-tolerance finds the events not resolved.
constexpr int kExitUnresolved = 3;

struct RunRequest {
  ModelChoice choice;
  std::string out_dir;
  SimulationOptions options;
  std::string table = "auto";         // --table: auto, all, short, none
  bool quiet = false;                 // --quiet: --table none
  bool check_tolerance = false;       // --check-tolerance: the run again 10x tighter, events compared
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

// stats.json of a finished or failed run. On a full disk, which has no room for the copy beside
// it, the report replaces the "running" marker in place, in the space the marker frees, or the
// marker goes.
void write_final_stats(const std::filesystem::path& out_dir, const nlohmann::json& report) {
  try {
    write_json(out_dir / "stats.json", report);
  } catch (const Error&) {
    const std::filesystem::path file = out_dir / "stats.json";
    {
      std::ofstream out(file, std::ios::trunc);
      out << report.dump() << '\n' << std::flush;
      if (out) return;
    }
    std::error_code ignored;
    std::filesystem::remove(file, ignored);
    throw;
  }
}

// The files of an earlier run that this one does not write go; stats.json says "running" until
// the run ends, so that a killed run's stats.json does not contradict its CSVs.
void prepare_run_folder(const std::filesystem::path& out_dir, const OutputFiles& files, const std::string& model,
                        const nlohmann::json& options) {
  std::vector<std::string> writes;
  if (files.events) writes.emplace_back("events.csv");
  if (files.trajectory) writes.emplace_back("trajectory.csv");
  if (files.steps) writes.emplace_back("steps.csv");
  if (files.stats) writes.emplace_back("stats.json");
  prepare_out_folder(out_dir, {"events.csv", "trajectory.csv", "steps.csv", "stats.json"}, writes);
  if (files.stats) write_json(out_dir / "stats.json", {{"model", model}, {"options", options}, {"status", "running"}});
}

// What a failed run leaves on stderr: where its output stops.
template <class S>
void report_failure(const std::filesystem::path& out_dir, const Recorder<S>& recorder) {
  if (recorder.write_error().empty()) {
    std::cerr << "hysim: the run failed; " << printable(out_dir.string()) << " holds its output up to t = "
              << format_scalar(recorder.last_t()) << "\n";
  } else {
    std::cerr << "hysim: the run stopped at t = " << format_scalar(recorder.last_t())
              << ", where its output could not be written\n";
  }
}

// The closing lines: how the run ended, its work, and the files written.
template <class S>
void print_summary(const std::string& model, const RunResult<S>& result, double wall, bool after_table,
                   const std::filesystem::path& out_dir, const Recorder<S>& recorder) {
  const auto& s = result.stats;
  std::cout << (after_table ? "\n" : "") << printable(model) << ": " << printable(result.message) << "\n"
            << "steps " << s.steps_accepted << " accepted, " << s.steps_rejected << " rejected; "
            << s.rhs_evals << " field evaluations, " << s.guard_evals << " guard evaluations, " << s.root_iterations
            << " root iterations; " << std::setprecision(3) << wall << " s\n";
  if (!out_dir.empty()) {
    std::string wrote;
    for (const auto& path : recorder.written()) wrote += (wrote.empty() ? "" : ", ") + printable(path.string());
    if (!wrote.empty()) std::cout << "wrote " << wrote << "\n";
  }
}

template <class S>
int run_model(const RunRequest& request) {
  const ParameterValues values = request.choice.values();

  // Everything that can be rejected is checked before a file is written.
  const Model<S> model = request.choice.make<S>(values);
  Simulator<S> simulator(model, request.options);
  const TableMode table = request.table_mode();
  const OutputFiles files = OutputFiles::parse(request.files);
  const std::filesystem::path out_dir = request.out_dir;
  const nlohmann::json options = request_options_json(request.options, request.choice, values);

  std::optional<study::ToleranceCheck> check;  // --check-tolerance, once the run has finished
  const auto write_stats = [&](const RunResult<S>& result, double wall_seconds, const TransitionCounts& counts) {
    if (out_dir.empty() || !files.stats) return;
    nlohmann::json report = run_report_json(model.name, options, result, wall_seconds);
    report["stats"]["transitions_by_guard"] = counts.json();
    report["status"] = "finished";
    if (check) report["tolerance_check"] = check->to_json();
    write_final_stats(out_dir, report);
  };
  if (!out_dir.empty()) prepare_run_folder(out_dir, files, model.name, options);
  Recorder<S> recorder(out_dir, files, table, table == TableMode::kNone ? nullptr : &std::cout);
  if (isatty(STDERR_FILENO)) recorder.show_progress(&std::cerr, to_double(model.t0), request.options.t_end);
  simulator.stop_when(&stop_flag());  // SIGINT, SIGTERM, --time-limit (hysim/study/stop.hpp)
  std::vector<study::RunEvent> events;  // kept for --check-tolerance only
  const study::ToleranceCheckOptions check_options;
  study::EventCollector<S> collector(&events, check_options.max_events);
  Observers<S> recorder_and_collector{&recorder, &collector};
  Observer<S>* observer = request.check_tolerance ? static_cast<Observer<S>*>(&recorder_and_collector) : &recorder;
  const auto start = std::chrono::steady_clock::now();
  RunResult<S> result = simulator.run(observer);
  recorder.finish_table();
  if (result.reason != RunReason::kFailed) {
    try {
      recorder.check_written();  // the last rows reach the files at the end
    } catch (const Error& error) {
      result.reason = RunReason::kFailed;  // what was computed is not all in the files
      result.message = error.what();
    }
  }
  if (result.reason == RunReason::kFailed) {
    recorder.flush();
    const double wall = seconds_since(start);
    if (!out_dir.empty()) {
      try {
        write_stats(result, wall - recorder.seconds_in_observer(), recorder.transition_counts());
      } catch (const Error& error) {  // no room for it at all: the run's own error is the one to report
        std::cerr << "hysim: " << error.what() << "; stats.json is not written\n";
      }
      report_failure(out_dir, recorder);
    }
    throw SimulationError(result.message);  // main reports it and exits non-zero
  }
  const double wall_simulation =
      std::max(0.0, seconds_since(start) - recorder.seconds_in_observer() - collector.seconds_in_observer());
  if (request.check_tolerance && result.reason != RunReason::kInterrupted) {
    check = study::check_tolerance(model, request.options,
                                   {events, collector.overflowed(), to_double(result.t), result.stats.steps_accepted,
                                    result.stats.rhs_evals},
                                   check_options);
  }
  if (!out_dir.empty()) write_stats(result, wall_simulation, recorder.transition_counts());  // before the summary: it may fail
  print_summary(model.name, result, wall_simulation, table != TableMode::kNone, out_dir, recorder);
  if (check) std::cout << check->summary() << "\n";
  if (result.reason == RunReason::kInterrupted) {
    std::cerr << "hysim: " << stop_cause_text() << ": the run stopped at t = " << format_scalar(result.t)
              << (out_dir.empty() ? "" : "; " + printable(out_dir.string()) + " holds its output up to there") << "\n";
    return stop_exit_code();
  }
  return check && !check->resolved() ? kExitUnresolved : 0;
}

}  // namespace

Command add_run_command(CLI::App& app, int* verbosity) {
  auto request = std::make_shared<RunRequest>();
  CLI::App* cmd = app.add_subcommand("run", "simulate a model and print its event table");
  add_model_options(cmd, &request->choice);
  add_start_options(cmd, &request->choice.start);
  add_simulation_options(cmd, &request->options);
  cmd->add_option("--out", request->out_dir, "write events.csv, trajectory.csv, steps.csv and stats.json here");
  cmd->add_option("--files", request->files, "which files --out writes: events,trajectory,steps,stats (default: all)")
      ->delimiter(',');
  cmd->add_option("--table", request->table,
                  "the event table: auto (abbreviated past 50 rows on a terminal, every row otherwise), all, short, "
                  "none")
      ->default_val("auto");
  cmd->add_flag("--quiet", request->quiet, "no event table (the summary lines stay)");
  cmd->add_flag("--check-tolerance", request->check_tolerance,
                "after the run, run it again with rtol, atol (and a fixed step) ten times smaller and match the "
                "events: a difference exits 3, agreement prints the estimated event-time error (docs/cli.md)");
  auto rule_run = std::make_shared<RuleRunRequest>();
  cmd->add_option("--dt", rule_run->dt, "rule tables: the interpreter's cycle in model time (default: the table's)");
  CLI::Option* real_time = cmd->add_flag(
      "--real-time", rule_run->real_time,
      "rule tables: 001's real time, each cycle advancing t by its measured duration (no --dt)");
  cmd->add_flag("--paced", rule_run->paced, "rule tables: a fixed dt, each cycle waiting for the wall clock")
      ->excludes(real_time);
  add_verbosity_flag(cmd, verbosity);
  return {cmd, [request, cmd, rule_run] {
            const bool engine_asked = cmd->count("--strategy") + cmd->count("--solver") + cmd->count("--scalar") > 0;
            if (rules::names_rule_table(request->choice.model) && !engine_asked) {
              // A rule table runs on the rule interpreter, as the papers run it, unless a
              // strategy, solver or scalar type asks for the engine (docs/rule-tables.md).
              if (cmd->count("--preset") > 0) throw InvalidArgument("--preset is not available for rule tables");
              if (request->check_tolerance) {
                throw InvalidArgument("--check-tolerance compares runs of the engine: give --solver, --strategy or "
                                      "--scalar to run the rule table on it");
              }
              rule_run->values = request->choice.params;
              rule_run->file = request->choice.model;
              rule_run->t_end = cmd->count("--t-end") > 0 ? request->options.t_end : 0.0;
              rule_run->output_step = request->options.output_step;
              rule_run->quiet = request->quiet || request->table == "none";
              rule_run->out_dir = request->out_dir;
              return run_rule_table(*rule_run);
            }
            if (rules::names_rule_table(request->choice.model) && cmd->count("--t-end") == 0) {
              request->options.t_end = rules::read_rule_table(request->choice.model).t_end;
            }
            if (cmd->count("--dt") + cmd->count("--real-time") + cmd->count("--paced") > 0) {
              throw InvalidArgument("--dt, --real-time and --paced are for rule tables (*.rules.tsv) on the rule interpreter; "
                                    "the engine's options are --fixed-step, --max-step and the tolerances");
            }
            if (cmd->count("--t-end") == 0) request->options.t_end = request->choice.t_end_or(request->options.t_end);
            return with_scalar(request->choice.scalar_kind(), [&]<class S>() { return run_model<S>(*request); });
          }};
}

}  // namespace hysim::app
