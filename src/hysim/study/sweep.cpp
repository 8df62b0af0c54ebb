#include "hysim/study/sweep.hpp"

#include <chrono>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <random>
#include <set>
#include <sstream>

#include "hysim/core/errors.hpp"
#include "hysim/ensemble/ensemble.hpp"
#include "hysim/events/strategy.hpp"
#include "hysim/output/csv_writer.hpp"
#include "hysim/study/out_folder.hpp"
#include "hysim/study/stop.hpp"
#include "hysim/study/stopwatch.hpp"

namespace hysim::study {

namespace {

// One swept parameter: its values (a grid or a list), or a distribution to draw from.
struct Axis {
  enum class Kind { kValues, kGrid, kUniform, kNormal, kLogUniform };
  std::string name;
  Kind kind = Kind::kValues;
  std::vector<std::string> values;  // kValues: the texts, parsed per scalar type by the model
  double a = 0, b = 0;              // kGrid: from a to b; kUniform: [a, b); kNormal: mean a, deviation b;
                                    // kLogUniform: [a, b), 0 < a
  bool drawn() const { return kind == Kind::kUniform || kind == Kind::kNormal || kind == Kind::kLogUniform; }
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
                          "NAME=uniform:A:B / NAME=normal:MEAN:DEVIATION / NAME=loguniform:A:B / NAME=declared");
  }
  Axis axis;
  axis.name = assignment.substr(0, eq);
  const std::string spec = assignment.substr(eq + 1);
  const std::string what = "--param " + axis.name;
  const std::vector<std::string> fields = split(spec, ':');
  if (fields.size() == 3 && (fields[0] == "uniform" || fields[0] == "normal" || fields[0] == "loguniform")) {
    axis.kind = fields[0] == "uniform" ? Axis::Kind::kUniform
                : fields[0] == "normal" ? Axis::Kind::kNormal
                                        : Axis::Kind::kLogUniform;
    axis.a = number(fields[1], what);
    axis.b = number(fields[2], what);
    if (axis.kind == Axis::Kind::kUniform && !(axis.a < axis.b)) throw InvalidArgument(what + ": uniform:A:B needs A < B");
    if (axis.kind == Axis::Kind::kLogUniform && !(axis.a > 0 && axis.a < axis.b)) {
      throw InvalidArgument(what + ": loguniform:A:B needs 0 < A < B");
    }
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



// NAME=declared: a uniform draw over the range the model declares for NAME.
Axis declared_axis(const ModelEntry& entry, const std::string& name) {
  for (const ParameterSpec& spec : entry.parameters) {
    if (spec.name != name) continue;
    if (!spec.has_range()) {
      throw InvalidArgument("--param " + name + "=declared: model '" + entry.name + "' declares no range for '" + name +
                            "' (give uniform:A:B)");
    }
    Axis axis;
    axis.name = name;
    axis.kind = Axis::Kind::kUniform;
    axis.a = number(spec.low, "the range of parameter '" + name + "'");
    axis.b = number(spec.high, "the range of parameter '" + name + "'");
    return axis;
  }
  (void)entry.default_values().text(name);  // throws, naming the model and its parameters
  return {};
}

// A draw of an axis from the uniform u in [0, 1) (and a second one, for a normal draw).
double drawn_value(const Axis& axis, double u, std::mt19937_64& random) {
  if (axis.kind == Axis::Kind::kNormal) {  // Box-Muller
    const double u2 = static_cast<double>((random() >> 11) + 1) * 0x1.0p-53;  // (0, 1]
    return axis.a + axis.b * std::sqrt(-2 * std::log(u2)) * std::cos(2 * 3.14159265358979323846 * u);
  }
  if (axis.kind == Axis::Kind::kLogUniform) return std::exp(std::log(axis.a) + (std::log(axis.b) - std::log(axis.a)) * u);
  return axis.a + (axis.b - axis.a) * u;
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
  double atol_per_rtol = 0;  // a drawn rtol's atol is rtol times this

  // Run i's values: the grid's mixed-radix digits (the last axis fastest), or draws from a
  // stream seeded by (seed, i).
  std::vector<std::string> values_of(std::int64_t i) const {
    std::vector<std::string> out(axes.size());
    if (request->samples > 0) {
      std::mt19937_64 random(sweep_seed(request->seed, static_cast<std::uint64_t>(i)));
      for (std::size_t a = 0; a < axes.size(); ++a) {
        // Inverse transforms of 53-bit uniforms: the same draws on every platform.
        const double u = static_cast<double>(random() >> 11) * 0x1.0p-53;
        out[a] = format_scalar(drawn_value(axes[a], u, random), 17);
      }
      if (request->draws_tolerance()) {  // after the parameters: their draws do not depend on it
        const Axis rtol{"rtol", Axis::Kind::kLogUniform, {}, request->rtol_low, request->rtol_high, 0};
        const double u = static_cast<double>(random() >> 11) * 0x1.0p-53;
        const std::string text = format_scalar(drawn_value(rtol, u, random), 17);
        out.push_back(text);
        out.push_back(format_scalar(number(text, "rtol") * atol_per_rtol, 17));
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

// With --declared-ranges, an axis for each parameter with a declared range that no --param
// names; with a drawn rtol, the ratio of atol to rtol. Both need draws.
void add_drawn_ranges(const SweepRequest& request, const ModelEntry& entry, const std::set<std::string>& named,
                      SweepPlan* plan) {
  if (request.declared_ranges) {
    if (request.samples == 0) throw InvalidArgument("--declared-ranges needs --draws N");
    for (const ParameterSpec& spec : entry.parameters) {
      if (spec.has_range() && named.count(spec.name) == 0) plan->axes.push_back(declared_axis(entry, spec.name));
    }
  }
  if (request.draws_tolerance()) {
    if (request.samples == 0) throw InvalidArgument("--draw-rtol needs --draws N");
    plan->atol_per_rtol = request.options.atol.value() / request.options.rtol.value();
  }
}

// Reads and checks every input of the sweep; throws InvalidArgument naming the culprit.
SweepPlan plan_sweep(const SweepRequest& request, const ModelEntry& entry) {
  SweepPlan plan{&request, entry.default_values(), {}, 0, 0};
  if (!request.choice.preset.empty()) plan.base.apply_preset(entry.presets, request.choice.preset);
  std::set<std::string> named;
  for (const std::string& assignment : request.choice.params) {
    const std::size_t eq = assignment.find('=');
    const bool declared = eq != std::string::npos && eq > 0 && assignment.substr(eq + 1) == "declared";
    Axis axis = declared ? declared_axis(entry, assignment.substr(0, eq)) : parse_axis(assignment);
    named.insert(axis.name);
    if ((axis.kind == Axis::Kind::kValues || axis.kind == Axis::Kind::kGrid) && axis.size() == 1) {
      plan.base.set(axis.name, axis.value(0));  // one value: every run's
      continue;
    }
    (void)plan.base.text(axis.name);  // an unknown name throws, naming the model
    const bool drawn = axis.drawn();
    if (drawn && request.samples == 0) {
      throw InvalidArgument("--param " + axis.name + ": a distribution needs --draws N");
    }
    if (!drawn && request.samples > 0) {
      throw InvalidArgument("--param " + axis.name + ": with --draws every swept parameter is drawn "
                            "(uniform:A:B, normal:MEAN:DEVIATION, loguniform:A:B or declared); a grid or list "
                            "sweeps without --draws");
    }
    plan.axes.push_back(std::move(axis));
  }
  add_drawn_ranges(request, entry, named, &plan);
  if (plan.axes.empty() && !request.draws_tolerance()) {
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
  request.validate();
  plan.first = request.first;
  plan.count = request.runs > 0 ? std::min(request.runs, total - plan.first) : total - plan.first;
  return plan;
}


std::filesystem::path run_folder(const SweepRequest& request, std::int64_t run) {
  return std::filesystem::path(request.out_dir) / "runs" / std::to_string(run);
}

SweepReal real_of(double value, const std::string& text) { return {value, text}; }

// The value is the double the text reads as: what a reader of summary.csv gets.
template <class S>
SweepReal real_of(const S& value, int digits = 17) {
  std::string text = format_scalar(value, digits);
  const double read = std::strtod(text.c_str(), nullptr);
  return {read, std::move(text)};
}

// The runs of one sweep in scalar type S: the plan, the model's entry, the layout of the rows.
template <class S>
class SweepRunner {
 public:
  SweepRunner(const SweepRequest& request, const ModelEntry& entry, const SweepPlan& plan, const SweepColumns& columns)
      : request_(request), entry_(entry), plan_(plan), columns_(columns) {}

  // Run `i` of the whole sweep, as its row.
  SweepRow run(std::int64_t i) {
    SweepRow row = first_fields(i);
    if (stop_flag().load(std::memory_order_relaxed)) return without_run(std::move(row), "not_run", "");
    ParameterValues values = plan_.base;
    for (std::size_t a = 0; a < plan_.axes.size(); ++a) values.set(plan_.axes[a].name, row.swept[a].text);
    SimulationOptions options = request_.options;
    if (request_.draws_tolerance()) {  // the last two columns: the drawn rtol and its atol
      options.rtol = Decimal(row.swept[plan_.axes.size()].text, "rtol");
      options.atol = Decimal(row.swept[plan_.axes.size() + 1].text, "atol");
    }
    std::unique_ptr<const Model<S>> model;
    std::unique_ptr<Simulator<S>> simulator;
    try {
      // Values that break the model's `require`, or its horizon: this run fails, the others go
      // on. Builders run concurrently: a catalog model's is a plain function, a model file's
      // reads its compiled code, loaded once and read-only (lang/build.cpp).
      model = std::make_unique<const Model<S>>(request_.choice.make<S>(values));
      simulator = std::make_unique<Simulator<S>>(*model, options);
    } catch (const InvalidArgument& error) {
      return without_run(std::move(row), "failed", error.what());
    } catch (const ModelError& error) {
      return without_run(std::move(row), "failed", error.what());
    }
    try {
      simulate(*model, *simulator, row);
    } catch (const UnsupportedModel& error) {  // e.g. cvode where a sliding motion begins
      return without_run(std::move(row), "refused", error.what());
    }
    return row;
  }

 private:
  SweepRow first_fields(std::int64_t i) const {
    SweepRow row;
    row.run = i;
    for (const std::string& text : plan_.values_of(i)) row.swept.push_back(real_of(number(text, "--param"), text));
    return row;
  }

  // A row of how the run ended without running: everything after the message stays unknown.
  SweepRow without_run(SweepRow row, const char* reason, std::string message) const {
    row.reason = reason;
    row.message = std::move(message);
    row.event_times.resize(static_cast<std::size_t>(columns_.event_columns));
    row.state.resize(columns_.states.size());
    return row;
  }

  void simulate(const Model<S>& model, Simulator<S>& simulator, SweepRow& row) const {
    FirstEvents<S> events(static_cast<std::size_t>(request_.event_columns));
    // Per-run files only on request: DIR/runs/<run>/events.csv and trajectory.csv.
    std::unique_ptr<CsvWriter<S>> files;
    if (request_.run_files) files = std::make_unique<CsvWriter<S>>(run_folder(request_, row.run), CsvFiles{true, true, false});
    Observers<S> observers{&events, files.get()};
    Observer<S>* observer = files ? static_cast<Observer<S>*>(&observers) : &events;
    const auto start = std::chrono::steady_clock::now();
    simulator.stop_when(&stop_flag());  // SIGINT, SIGTERM, the time limit (hysim/study/stop.hpp)
    const RunResult<S> result = simulator.run(observer);
    const double wall = seconds_since(start);
    row.reason = run_reason_name(result.reason);
    row.message = result.failed() ? result.message : "";
    row.t = real_of(result.t);
    row.mode = result.mode >= 0 ? model.modes[static_cast<std::size_t>(result.mode)].name : "";
    row.events = result.stats.events;
    row.event_times.resize(static_cast<std::size_t>(request_.event_columns));
    for (std::size_t k = 0; k < events.times.size() && k < row.event_times.size(); ++k) {
      row.event_times[k] = real_of(events.times[k]);
    }
    for (const S& x : result.x) row.state.push_back(real_of(x));
    row.steps = result.stats.steps_accepted;
    row.rejected = result.stats.steps_rejected;
    row.field_evals = result.stats.rhs_evals;
    row.guard_evals = result.stats.guard_evals;
    row.wall_s = real_of(wall, 3);
  }

  const SweepRequest& request_;
  const ModelEntry& entry_;
  const SweepPlan& plan_;
  const SweepColumns& columns_;
};

template <class S>
SweepSummary sweep_in(const SweepRequest& request, const std::function<void(const SweepColumns&)>& columns_out,
                      const std::function<void(SweepRow&&)>& row_out, const std::function<void(SweepRow&)>& prepare) {
  const ModelEntry& entry = request.choice.entry();
  const SweepPlan plan = plan_sweep(request, entry);
  // The layout, from the model with the fixed values: a bad parameter fails here, before
  // anything is written.
  SweepColumns columns;
  for (const Axis& axis : plan.axes) columns.swept.push_back(axis.name);
  if (request.draws_tolerance()) columns.swept.insert(columns.swept.end(), {"rtol", "atol"});
  columns.event_columns = request.event_columns;
  columns.states = request.choice.make<S>(plan.base).state_names;  // also checks the start
  columns.runs = plan.count;
  if (!request.out_dir.empty()) {  // an earlier sweep's per-run files that this one does not write
    remove_stale_runs(request.out_dir, [&](std::int64_t run) {
      return request.run_files && run >= plan.first && run < plan.first + plan.count;
    });
  }
  columns_out(columns);

  SweepRunner<S> runner(request, entry, plan, columns);
  SweepSummary summary;
  summary.runs = plan.count;
  const auto total = std::chrono::steady_clock::now();
  EnsembleOptions ensemble;
  ensemble.jobs = request.jobs;
  summary.threads = run_ensemble<SweepRow>(
      plan.count, ensemble,
      [&](std::int64_t part) {
        SweepRow row = runner.run(plan.first + part);
        if (prepare) prepare(row);
        return row;
      },
      [&](std::int64_t, SweepRow&& row) {
        summary.failed += row.reason == run_reason_name(RunReason::kFailed) ? 1 : 0;
        summary.not_run += row.reason == "not_run" ? 1 : 0;
        summary.refused += row.reason == "refused" ? 1 : 0;
        row_out(std::move(row));
      });
  summary.seconds = seconds_since(total);
  return summary;
}

}  // namespace

void SweepRequest::validate() const {
  if (choice.params.empty() && !declared_ranges && !draws_tolerance()) {
    throw InvalidArgument("sweep: give at least one --param NAME=FROM:TO:COUNT, a list, or a distribution "
                          "(or --declared-ranges, --draw-rtol with --draws)");
  }
  if (draws_tolerance() && !(rtol_low > 0 && rtol_low < rtol_high && rtol_high < 1)) {
    throw InvalidArgument("--draw-rtol A:B needs 0 < A < B < 1, not " + format_scalar(rtol_low, 17) + ":" +
                          format_scalar(rtol_high, 17));
  }
  if (runs < 0) throw InvalidArgument("sweep: the number of runs of a part must be >= 0 (0: to the end)");
  options.validate();
  find_strategy(options.strategy).check(options, {});  // the chosen strategy's own tuning
  if (run_files && out_dir.empty()) throw InvalidArgument("--run-files needs --out DIR");
}

std::vector<std::string> SweepColumns::names() const {
  std::vector<std::string> names = {"run"};
  names.insert(names.end(), swept.begin(), swept.end());
  for (const char* column : {"reason", "message", "t", "mode", "events"}) names.emplace_back(column);
  for (int k = 1; k <= event_columns; ++k) names.push_back("t_event" + std::to_string(k));
  names.insert(names.end(), states.begin(), states.end());
  for (const char* column : {"steps", "rejected", "field_evals", "guard_evals", "wall_s"}) names.emplace_back(column);
  return names;
}

std::int64_t sweep_size(const SweepRequest& request) {
  if (request.choice.params.empty() && !request.declared_ranges && !request.draws_tolerance()) request.validate();
  SweepRequest whole = request;
  whole.first = 0;
  whole.runs = 0;
  return plan_sweep(whole, whole.choice.entry()).count;
}

SweepSummary run_sweep(const SweepRequest& request, const std::function<void(const SweepColumns&)>& columns,
                       const std::function<void(SweepRow&&)>& row, const std::function<void(SweepRow&)>& prepare) {
  if (request.choice.params.empty() && !request.declared_ranges && !request.draws_tolerance()) {
    request.validate();  // before the model is read
  }
  return with_scalar(request.choice.scalar_kind(), [&]<class S>() { return sweep_in<S>(request, columns, row, prepare); });
}

}  // namespace hysim::study
