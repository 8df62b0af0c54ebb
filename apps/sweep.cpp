// `hysim sweep MODEL`: many runs of one model over a grid or a sample of its parameters, on
// every core (hysim/ensemble/ensemble.hpp), with one summary row per run (docs/sweeps.md).
//
//   --param kp=0.05:0.2:64      a linear grid: 64 values from 0.05 to 0.2, ends included
//   --param u=0.5,1,2           a list
//   --param e=0.7               one value for every run
//   --draws N --seed S          N runs, drawing --param x=uniform:a:b and x=normal:mu:sigma
//
// The grid is the Cartesian product of its axes, the last one varying fastest. The summary
// (CSV, streamed: a million runs take constant memory) has per run: its index, the swept
// values, how it ended, its events, the first --events event times, the final state, the
// work counters and the wall time. Every column but the wall time is the same whatever --jobs.
#include <cerrno>
#include <chrono>
#include <functional>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <mutex>
#include <random>
#include <sstream>

#include <nlohmann/json.hpp>

#include "apps/cli_options.hpp"
#include "apps/commands.hpp"
#include "apps/out_folder.hpp"
#include "apps/sweep.hpp"
#include "apps/table.hpp"
#include "apps/stop.hpp"
#include "apps/stopwatch.hpp"
#include "hysim/core/errors.hpp"
#include "hysim/ensemble/ensemble.hpp"
#include "hysim/output/csv_writer.hpp"

namespace hysim::app {

namespace {

// One swept parameter: its values (a grid or a list), or a distribution to draw from.
struct Axis {
  enum class Kind { kValues, kGrid, kUniform, kNormal };
  std::string name;
  Kind kind = Kind::kValues;
  std::vector<std::string> values;  // kValues: the texts, parsed per scalar type by the model
  double a = 0, b = 0;              // kGrid: from a to b; kUniform: [a, b); kNormal: mean a, deviation b
  std::int64_t count = 0;           // kGrid: its values (computed when needed: constant memory)

  std::int64_t size() const { return kind == Kind::kGrid ? count : static_cast<std::int64_t>(values.size()); }
  // Value k of a grid or a list.
  std::string value(std::int64_t k) const {
    if (kind != Kind::kGrid) return values[static_cast<std::size_t>(k)];
    if (k == count - 1) return format_scalar(b, 17);
    return format_scalar(count == 1 ? a : a + (b - a) * static_cast<double>(k) / static_cast<double>(count - 1), 17);
  }
};

double number(const std::string& text, const std::string& what) { return parse_decimal<double>(text, what); }

std::vector<std::string> split(const std::string& text, char separator) {
  std::vector<std::string> parts;
  std::string part;
  std::istringstream in(text);
  while (std::getline(in, part, separator)) parts.push_back(part);
  if (!text.empty() && text.back() == separator) parts.emplace_back();
  return parts;
}

// NAME=SPEC as --param gives it.
Axis parse_axis(const std::string& assignment) {
  const std::size_t eq = assignment.find('=');
  if (eq == std::string::npos || eq == 0) {
    throw InvalidArgument("--param " + assignment + ": expected NAME=VALUE, NAME=FROM:TO:COUNT, NAME=V1,V2,... or "
                          "NAME=uniform:A:B / NAME=normal:MEAN:DEVIATION");
  }
  Axis axis;
  axis.name = assignment.substr(0, eq);
  const std::string spec = assignment.substr(eq + 1);
  const std::string what = "--param " + axis.name;
  const std::vector<std::string> fields = split(spec, ':');
  if (fields.size() == 3 && (fields[0] == "uniform" || fields[0] == "normal")) {
    axis.kind = fields[0] == "uniform" ? Axis::Kind::kUniform : Axis::Kind::kNormal;
    axis.a = number(fields[1], what);
    axis.b = number(fields[2], what);
    if (axis.kind == Axis::Kind::kUniform && !(axis.a < axis.b)) throw InvalidArgument(what + ": uniform:A:B needs A < B");
    if (axis.kind == Axis::Kind::kNormal && !(axis.b > 0)) throw InvalidArgument(what + ": normal:MEAN:DEVIATION needs DEVIATION > 0");
    return axis;
  }
  if (fields.size() == 3) {  // FROM:TO:COUNT
    const double from = number(fields[0], what), to = number(fields[1], what);
    double count = 0;
    try {
      count = number(fields[2], what + " (its count)");
    } catch (const InvalidArgument&) {
      throw InvalidArgument(what + ": the count of FROM:TO:COUNT must be a whole number >= 1, not '" + fields[2] + "'");
    }
    if (!(count >= 1 && count <= 1e9 && count == std::floor(count))) {
      throw InvalidArgument(what + ": the count of FROM:TO:COUNT must be a whole number from 1 to 1e9, not '" + fields[2] + "'");
    }
    axis.kind = Axis::Kind::kGrid;
    axis.a = from;
    axis.b = count == 1 ? from : to;
    axis.count = static_cast<std::int64_t>(count);
    return axis;
  }
  if (fields.size() != 1) throw InvalidArgument(what + ": '" + spec + "' is neither FROM:TO:COUNT nor a list V1,V2,...");
  for (const std::string& value : split(spec, ',')) {
    (void)number(value, what);
    axis.values.push_back(value);
  }
  return axis;
}


std::filesystem::path run_folder(const SweepRequest& request, std::int64_t run) {
  return std::filesystem::path(request.out_dir) / "runs" / std::to_string(run);
}

template <class S>
class FirstEvents final : public Observer<S> {
 public:
  explicit FirstEvents(std::size_t wanted) : wanted_(wanted) {}
  void on_event(const EventRecord<S>& record) override {
    if (times.size() < wanted_ && record.index > static_cast<std::int64_t>(times.size())) times.push_back(record.t);
  }
  std::vector<S> times;

 private:
  std::size_t wanted_;
};

// The runs of a sweep: its fixed values, its axes, which runs, and the values of each.
struct SweepPlan {
  const SweepRequest* request;
  ParameterValues base;     // the defaults, the preset and the fixed values
  std::vector<Axis> axes;   // the swept parameters
  std::int64_t first = 0;   // the runs [first, first + count) of the whole sweep
  std::int64_t count = 0;

  // Run i's values: the grid's mixed-radix digits (the last axis fastest), or draws from a
  // stream seeded by (seed, i).
  std::vector<std::string> values_of(std::int64_t i) const {
    std::vector<std::string> out(axes.size());
    if (request->samples > 0) {
      std::mt19937_64 random(sweep_seed(request->seed, static_cast<std::uint64_t>(i)));
      for (std::size_t a = 0; a < axes.size(); ++a) {
        // Inverse transforms of 53-bit uniforms: the same draws on every platform.
        const double u = static_cast<double>(random() >> 11) * 0x1.0p-53;
        double value = axes[a].a + (axes[a].b - axes[a].a) * u;
        if (axes[a].kind == Axis::Kind::kNormal) {  // Box-Muller
          const double u2 = static_cast<double>((random() >> 11) + 1) * 0x1.0p-53;  // (0, 1]
          value = axes[a].a + axes[a].b * std::sqrt(-2 * std::log(u2)) * std::cos(2 * 3.14159265358979323846 * u);
        }
        out[a] = format_scalar(value, 17);
      }
      return out;
    }
    std::int64_t rest = i;
    for (std::size_t a = axes.size(); a-- > 0;) {
      out[a] = axes[a].value(rest % axes[a].size());
      rest /= axes[a].size();
    }
    return out;
  }
};

// Reads and checks every input of the sweep; throws InvalidArgument naming the culprit.
SweepPlan plan_sweep(const SweepRequest& request, const ModelEntry& entry) {
  SweepPlan plan{&request, entry.default_values(), {}, 0, 0};
  if (!request.choice.preset.empty()) plan.base.apply_preset(entry.presets, request.choice.preset);
  for (const std::string& assignment : request.choice.params) {
    Axis axis = parse_axis(assignment);
    if ((axis.kind == Axis::Kind::kValues || axis.kind == Axis::Kind::kGrid) && axis.size() == 1) {
      plan.base.set(axis.name, axis.value(0));  // one value: every run's
      continue;
    }
    (void)plan.base.text(axis.name);  // an unknown name throws, naming the model
    const bool drawn = axis.kind == Axis::Kind::kUniform || axis.kind == Axis::Kind::kNormal;
    if (drawn && request.samples == 0) {
      throw InvalidArgument("--param " + axis.name + ": a distribution needs --draws N");
    }
    if (!drawn && request.samples > 0) {
      throw InvalidArgument("--param " + axis.name + ": with --draws every swept parameter is drawn "
                            "(uniform:A:B or normal:MEAN:DEVIATION); a grid or list sweeps without --draws");
    }
    plan.axes.push_back(std::move(axis));
  }
  if (plan.axes.empty()) {
    throw InvalidArgument("sweep: no --param sweeps anything (give FROM:TO:COUNT, a list, or a distribution)");
  }
  std::int64_t total = request.samples;
  if (request.samples == 0) {
    double product = 1;
    for (const Axis& axis : plan.axes) product *= static_cast<double>(axis.size());
    if (!(product <= 1e12)) throw InvalidArgument("sweep: the grid has " + format_scalar(product, 6) + " runs, more than 1e12");
    total = static_cast<std::int64_t>(product);
  }
  // A part of the sweep, [first, first + runs): a chunk for one worker of a cluster.
  if (request.first < 0 || request.first >= total) {
    throw InvalidArgument("sweep: the first run " + std::to_string(request.first) + " is not one of the sweep's " +
                          std::to_string(total) + " runs");
  }
  if (request.runs < 0) throw InvalidArgument("sweep: the number of runs of a part must be >= 0 (0: to the end)");
  plan.first = request.first;
  plan.count = request.runs > 0 ? std::min(request.runs, total - plan.first) : total - plan.first;
  request.options.validate();
  if (request.run_files && request.out_dir.empty()) throw InvalidArgument("--run-files needs --out DIR");
  return plan;
}

template <class S>
SweepSummary sweep_in(const SweepRequest& request, const std::function<void(const std::vector<std::string>&)>& header_out,
                      const std::function<void(std::vector<std::string>&&)>& row_out) {
  const ModelEntry& entry = request.choice.entry();
  const SweepPlan plan = plan_sweep(request, entry);
  const std::vector<Axis>& axes = plan.axes;
  const ParameterValues& base = plan.base;
  const std::int64_t first = plan.first, count = plan.count;
  const SimulationOptions& options = request.options;
  (void)entry.make<S>(base);  // a bad parameter fails here, before anything is written

  // The header, then one line per run.
  const Model<S> probe = entry.make<S>(base);
  std::vector<std::string> header = {"run"};
  for (const Axis& axis : axes) header.push_back(axis.name);
  for (const char* column : {"reason", "message", "t", "mode", "events"}) header.emplace_back(column);
  for (int k = 1; k <= request.event_columns; ++k) header.push_back("t_event" + std::to_string(k));
  for (const auto& name : probe.state_names) header.push_back(name);
  for (const char* column : {"steps", "rejected", "field_evals", "guard_evals", "wall_s"}) header.emplace_back(column);
  if (!request.out_dir.empty()) {  // an earlier sweep's per-run files that this one does not write
    remove_stale_runs(request.out_dir, [&](std::int64_t run) { return request.run_files && run >= first && run < first + count; });
  }
  header_out(header);

  const std::size_t columns = header.size();
  std::mutex build;  // models are built one at a time (a model file's native code is shared)
  const auto job = [&](std::int64_t part) {
    const std::int64_t i = first + part;
    const std::vector<std::string> swept = plan.values_of(i);
    std::vector<std::string> cells = {std::to_string(i)};
    cells.insert(cells.end(), swept.begin(), swept.end());
    // A row of how the run ended without running: the counters and the state stay empty.
    const auto without_run = [&](const char* reason, std::string message) {
      cells.emplace_back(reason);
      cells.push_back(std::move(message));
      cells.resize(columns);
      return cells;
    };
    if (stop_flag().load(std::memory_order_relaxed)) return without_run("not_run", "");  // SIGINT, SIGTERM, --time-limit
    ParameterValues values = base;
    for (std::size_t a = 0; a < axes.size(); ++a) values.set(axes[a].name, swept[a]);
    std::unique_ptr<const Model<S>> model;
    std::unique_ptr<Simulator<S>> simulator;
    try {
      // Values that break the model's `require`, or its horizon: this run fails, the others go on.
      {
        std::lock_guard lock(build);
        model = std::make_unique<const Model<S>>(entry.make<S>(values));
      }
      simulator = std::make_unique<Simulator<S>>(*model, options);
    } catch (const InvalidArgument& error) {
      return without_run("failed", error.what());
    } catch (const ModelError& error) {
      return without_run("failed", error.what());
    }
    FirstEvents<S> events(static_cast<std::size_t>(request.event_columns));
    // Per-run files only on request: DIR/runs/<run>/events.csv and trajectory.csv.
    std::unique_ptr<CsvWriter<S>> files;
    if (request.run_files) files = std::make_unique<CsvWriter<S>>(run_folder(request, i), CsvFiles{true, true, false});
    Observers<S> observers{&events, files.get()};
    Observer<S>* observer = files ? static_cast<Observer<S>*>(&observers) : &events;
    const auto start = std::chrono::steady_clock::now();
    simulator->stop_when(&stop_flag());  // SIGINT, SIGTERM, --time-limit (apps/stop.hpp)
    const RunResult<S> result = simulator->run(observer);
    const double wall = seconds_since(start);
    cells.emplace_back(run_reason_name(result.reason));
    cells.push_back(result.failed() ? result.message : "");
    cells.push_back(format_scalar(result.t, 17));
    cells.push_back(result.mode >= 0 ? model->modes[static_cast<std::size_t>(result.mode)].name : "");
    cells.push_back(std::to_string(result.stats.events));
    for (int k = 0; k < request.event_columns; ++k) {
      const auto at = static_cast<std::size_t>(k);
      cells.push_back(at < events.times.size() ? format_scalar(events.times[at], 17) : "");
    }
    for (const S& x : result.x) cells.push_back(format_scalar(x, 17));
    for (const std::int64_t n : {result.stats.steps_accepted, result.stats.steps_rejected, result.stats.rhs_evals,
                                 result.stats.guard_evals}) {
      cells.push_back(std::to_string(n));
    }
    cells.push_back(format_scalar(wall, 3));
    return cells;
  };
  SweepSummary summary;
  summary.runs = count;
  const auto total = std::chrono::steady_clock::now();
  EnsembleOptions ensemble;
  ensemble.jobs = request.jobs;
  summary.threads = static_cast<int>(std::min<std::int64_t>(ensemble.threads(), count));  // asked; then as run
  const std::size_t reason = 1 + axes.size();
  summary.threads = run_ensemble<std::vector<std::string>>(count, ensemble, job, [&](std::int64_t, std::vector<std::string>&& cells) {
    summary.failed += cells[reason] == run_reason_name(RunReason::kFailed) ? 1 : 0;
    summary.not_run += cells[reason] == "not_run" ? 1 : 0;
    row_out(std::move(cells));
  });
  summary.seconds = seconds_since(total);
  return summary;
}

// The command: the summary as CSV, streamed to DIR/summary.csv or stdout.
// A JSON value for a summary cell: text columns quoted, numbers as written, an empty or
// non-finite cell null.
std::string json_cell(const std::string& column, const std::string& cell) {
  if (column == "reason" || column == "mode") return nlohmann::json(cell).dump();
  if (column == "message") return cell.empty() ? "null" : nlohmann::json(cell).dump();
  if (cell.empty() || cell == "nan" || cell == "inf" || cell == "-inf") return "null";
  return cell;
}


std::string write_failed(const std::filesystem::path& file, int error) {
  return "write failed: " + (file.empty() ? std::string("standard output") : file.string()) + ": " +
         (error != 0 ? std::strerror(error) : "write error");
}

// The command: the summary as CSV (to DIR/summary.csv, or stdout) and, with --out, as JSON
// (DIR/summary.json: an array of one object per run), both streamed.
int sweep_command(const SweepRequest& request) {
  std::unique_ptr<std::ofstream> file, json;
  std::ostream* out = &std::cout;
  std::filesystem::path path, json_path, json_partial;
  std::vector<std::string> columns;
  std::int64_t written = 0;
  // Every write is checked: a full disk stops the sweep there (exit 1), not at its end.
  const auto check = [&](std::ostream& stream, const std::filesystem::path& name) {
    if (!stream) throw Error(write_failed(name, errno));
  };
  const auto line = [&](const std::vector<std::string>& cells) {
    errno = 0;
    for (std::size_t c = 0; c < cells.size(); ++c) *out << (c == 0 ? "" : ",") << csv_cell(cells[c]);
    *out << '\n';
    if (++written % 1000 == 0) out->flush();
    check(*out, path);
  };
  // summary.json is written beside its place and renamed there when closed, also after an
  // error: it is valid JSON, or absent (a killed sweep), never cut short.
  bool json_closed = false;
  const auto close_json = [&] {
    if (!json || json_closed) return;
    json_closed = true;
    errno = 0;
    *json << "\n]\n" << std::flush;
    check(*json, json_path);
    json->close();
    std::error_code error;
    std::filesystem::rename(json_partial, json_path, error);
    if (error) throw Error("write failed: " + json_path.string() + ": " + error.message());
  };
  SweepSummary summary;
  try {
    summary = run_sweep(
        request,
        [&](const std::vector<std::string>& header) {  // every input is checked by now
          columns = header;
          if (!request.out_dir.empty()) {
            const std::filesystem::path dir = request.out_dir;
            // An earlier summary.json goes now: the new one appears when complete.
            prepare_out_folder(dir, {"summary.csv", "summary.json"}, {"summary.csv"});
            path = dir / "summary.csv";
            json_path = dir / "summary.json";
            json_partial = dir / "summary.json.partial";
            file = std::make_unique<std::ofstream>(path);
            json = std::make_unique<std::ofstream>(json_partial);
            if (!*file || !*json) throw InvalidArgument("--out: cannot write " + path.string() + " and " + json_path.string());
            out = file.get();
            *json << "[";
          }
          line(header);
        },
        [&](std::vector<std::string>&& cells) {
          line(cells);
          if (!json) return;
          errno = 0;
          *json << (written > 2 ? ",\n{" : "\n{");
          for (std::size_t c = 0; c < cells.size(); ++c) {
            *json << (c == 0 ? "" : ", ") << nlohmann::json(columns[c]).dump() << ": " << json_cell(columns[c], cells[c]);
          }
          *json << "}";
          check(*json, json_path);
        });
    errno = 0;
    out->flush();
    check(*out, path);
    close_json();
  } catch (...) {
    try {
      close_json();  // the rows so far, as valid JSON
    } catch (const Error&) {  // the disk is full: the first error is the one to report
    }
    throw;
  }
  const std::int64_t done = summary.runs - summary.not_run;
  std::cerr << "sweep: " << done << " runs of " << request.choice.entry().name << " in "
            << format_scalar(summary.seconds, 4) << " s ("
            << format_scalar(static_cast<double>(done) / std::max(summary.seconds, 1e-9), 4) << " runs/s) on "
            << summary.threads << " threads; " << summary.failed << " failed";
  if (summary.not_run > 0) std::cerr << "; " << summary.not_run << " not run";
  if (!path.empty()) std::cerr << "; wrote " << path.string() << " and " << json_path.string();
  std::cerr << "\n";
  return 0;
}

}  // namespace

SweepSummary run_sweep(const SweepRequest& request,
                       const std::function<void(const std::vector<std::string>&)>& header,
                       const std::function<void(std::vector<std::string>&&)>& row) {
  if (request.choice.params.empty()) {
    throw InvalidArgument("sweep: give at least one --param NAME=FROM:TO:COUNT, a list, or a distribution");
  }
  return with_scalar(request.choice.scalar_kind(), [&]<class S>() { return sweep_in<S>(request, header, row); });
}

Command add_sweep_command(CLI::App& app, int* verbosity) {
  auto request = std::make_shared<SweepRequest>();
  CLI::App* cmd = app.add_subcommand("sweep", "many runs over a grid or a sample of parameters, on every core");
  add_model_options(cmd, &request->choice);
  add_simulation_options(cmd, &request->options);
  cmd->add_option("--draws", request->samples, "N runs drawn at random (with --param NAME=uniform:A:B or normal:MEAN:DEVIATION); --samples is the sampled strategy's")
      ->check(CLI::NonNegativeNumber);
  cmd->add_option("--seed", request->seed, "the seed of the draws (run i draws from its own stream)")->default_val(1);
  cmd->add_option("--jobs", request->jobs, "threads (0: every core); the summary does not depend on it")
      ->default_val(0)
      ->check(CLI::NonNegativeNumber);
  cmd->add_option("--events", request->event_columns, "the first N event times in each row")
      ->default_val(3)
      ->check(CLI::Range(0, 1000));
  cmd->add_option("--out", request->out_dir, "write DIR/summary.csv (default: the summary on stdout)");
  cmd->add_flag("--run-files", request->run_files, "also write each run's events.csv and trajectory.csv to DIR/runs/<run>/");
  cmd->add_option("--first", request->first, "a part of the sweep: its first run (a chunk for a cluster's worker)")
      ->default_val(0);
  cmd->add_option("--runs", request->runs, "a part of the sweep: how many runs from --first (0: to the end)")
      ->default_val(0);
  add_verbosity_flag(cmd, verbosity);
  return {cmd, [request] {
            return sweep_command(*request);
          }};
}

}  // namespace hysim::app
