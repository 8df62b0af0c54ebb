// The compiled core of the Python package `hysim` (pybind11; the package, python/hysim/,
// re-exports it and adds hysim.dask): models from the catalog or from model files, runs in
// double, long double or float128 with every option of `hysim run`, and the results as numpy
// arrays (docs/python.md).
//
// The run itself happens in C++ with the GIL released; the observer only appends to vectors,
// and the arrays are built once at the end, so a Python run costs the program's simulation
// time plus that conversion. float128 values go to Python as float64 arrays beside their exact
// decimal text (numpy has no binary128); long double values as numpy.longdouble (x87 80-bit,
// exact on x86-64).
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <atomic>
#include <chrono>
#include <functional>
#include <cmath>
#include <fstream>
#include <map>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

#include "hysim/core/errors.hpp"
#include "hysim/events/strategy.hpp"
#include "hysim/lang/build.hpp"
#include "hysim/lang/spec.hpp"
#include "hysim/models/catalog.hpp"
#include "hysim/peers/peers.hpp"
#include "hysim/rules/table.hpp"
#include "hysim/run/option_table.hpp"
#include "hysim/simulator.hpp"
#include "hysim/solvers/stepper.hpp"
#include "hysim/study/comparison.hpp"
#include "hysim/study/evaluation.hpp"
#include "hysim/study/model.hpp"
#include "hysim/study/reproduce.hpp"
#include "hysim/study/stop.hpp"
#include "hysim/study/sweep.hpp"
#include "hysim/study/tolerance_check.hpp"

namespace py = pybind11;

namespace hysim::python {

namespace {

// A model as the user chose it: catalog entry or compiled file, with its parameter values, and
// the same choice as the program's MODEL --preset --param (for compare).
struct PyModel {
  std::shared_ptr<const ModelEntry> entry;
  ParameterValues values;
  study::ModelChoice choice;
  std::string source;  // the text of a model made by Model.from_string: what its pickle carries
};

// The warnings of a model file or a rule table (an unreachable mode, a mode with too many
// switches to split) as Python warnings (UserWarning), one per "file:line:column: warning:"
// with the source lines that follow it, as the program prints them on stderr. A filter that
// turns warnings into errors makes the first one an exception.
void warn_lines(const std::string& text) {
  std::string warning;
  const auto flush = [&] {
    if (warning.empty()) return;
    if (PyErr_WarnEx(PyExc_UserWarning, warning.c_str(), 1) != 0) throw py::error_already_set();
    warning.clear();
  };
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    if (line.find(": warning: ") != std::string::npos) flush();
    if (!line.empty()) warning += (warning.empty() ? "" : "\n") + line;
  }
  flush();
}

// The name of a Python value's type, for a message ("str", "NoneType").
std::string type_name(const py::handle& value) { return py::str(py::type::handle_of(value).attr("__name__")); }

// value as T, or TypeError naming the argument and the type it takes (pybind11's cast_error
// says "Unable to cast" and names neither).
template <class T>
T cast_as(const py::handle& value, const std::string& what, const char* expected) {
  try {
    return value.cast<T>();
  } catch (const py::cast_error&) {
    throw py::type_error(what + " must be " + expected + ", not " + type_name(value));
  }
}

// The checked conversions of arguments: TypeError naming the argument and its type.
std::string as_str(const py::handle& value, const std::string& what) {
  if (!py::isinstance<py::str>(value)) throw py::type_error(what + " must be a str, not " + type_name(value));
  return value.cast<std::string>();
}

bool as_bool(const py::handle& value, const std::string& what) {
  // Only True or False: pybind11 would take any object with a truth value.
  if (!py::isinstance<py::bool_>(value)) throw py::type_error(what + " must be a bool, not " + type_name(value));
  return value.cast<bool>();
}

// An int (or a numpy integer), not a float, a str or a bool.
template <class T>
T as_int(const py::handle& value, const std::string& what) {
  if (!PyIndex_Check(value.ptr()) || py::isinstance<py::bool_>(value)) {
    throw py::type_error(what + " must be an int, not " + type_name(value));
  }
  try {
    return py::int_(py::reinterpret_borrow<py::object>(value)).cast<T>();
  } catch (const py::cast_error&) {
    throw py::value_error(what + ": " + std::string(py::str(value)) + " is out of range");
  }
}

// An int or a float (or a numpy number), not a str, None or a bool.
double as_number(const py::handle& value, const std::string& what) {
  if (py::isinstance<py::str>(value) || py::isinstance<py::bool_>(value) || value.is_none()) {
    throw py::type_error(what + " must be a number, not " + type_name(value));
  }
  return cast_as<double>(value, what, "a number");
}

// The text of a parameter's value: a str (decimal text) or a number.
std::string parameter_text(const py::handle& value, const std::string& what) {
  if (py::isinstance<py::str>(value)) return value.cast<std::string>();
  if (py::isinstance<py::bool_>(value) || value.is_none() || !PyNumber_Check(value.ptr())) {
    throw py::type_error(what + " must be a number or its decimal text (str), not " + type_name(value));
  }
  return py::str(value);
}

// NAME=VALUE texts of a params dict.
std::vector<std::string> assignments_of(const py::dict& params) {
  std::vector<std::string> out;
  for (const auto& [key, value] : params) {
    const std::string name_of = as_str(key, "params: a parameter's name");
    out.push_back(name_of + "=" + parameter_text(value, "params['" + name_of + "']"));
  }
  return out;
}

PyModel make_model(const std::string& name, const std::string& preset, const std::vector<std::string>& params) {
  study::ModelChoice choice;
  choice.model = name;
  choice.preset = preset;
  choice.params = params;
  // A model file or a rule table is read afresh each time: an edited file gives a new model.
  study::ResolvedModel resolved = study::resolve_model(name);
  warn_lines(resolved.warnings);
  choice.loaded = std::move(resolved.entry);
  return PyModel{choice.loaded, choice.values(), choice, ""};
}

// A model from the text of a model file; `label` names it in diagnostics (label:line:column).
PyModel model_from_text(const std::string& text, const std::string& label, const std::string& preset,
                        const std::vector<std::string>& params) {
  const auto spec = std::make_shared<const lang::ModelSpec>(lang::compile_text(label, text));
  warn_lines(spec->warning_text);
  study::ModelChoice choice;
  choice.model = label;
  choice.preset = preset;
  choice.params = params;
  choice.loaded = std::make_shared<const ModelEntry>(lang::model_entry(spec));
  (void)choice.loaded->make<double>(choice.loaded->default_values());  // the checks of a file's loading
  return PyModel{choice.loaded, choice.values(), choice, text};
}

// What a pickle of a Model holds: its name (or label), preset, parameters and, for a model file
// or a model made from text, the text itself, so that it unpickles where the file is not (a
// Dask worker on another machine). A rule table travels by its path.
py::tuple model_state(const PyModel& m) {
  std::string source = m.source;
  if (source.empty() && lang::names_model_file(m.choice.model) && !rules::names_rule_table(m.choice.model)) {
    std::ifstream in(m.choice.model, std::ios::binary);
    if (!in) throw InvalidArgument("cannot read '" + m.choice.model + "' to pickle its model");
    std::ostringstream text;
    text << in.rdbuf();
    source = text.str();
  }
  return py::make_tuple(m.choice.model, m.choice.preset, m.choice.params, source);
}

PyModel model_from_state(const py::tuple& state) {
  if (state.size() != 4) throw InvalidArgument("hysim.Model: this pickle is not one of this version's");
  const auto name = state[0].cast<std::string>();
  const auto preset = state[1].cast<std::string>();
  const auto params = state[2].cast<std::vector<std::string>>();
  const auto source = state[3].cast<std::string>();
  return source.empty() ? make_model(name, preset, params) : model_from_text(source, name, preset, params);
}

// SimulationOptions from keyword arguments named as the fields (`hysim options`); without
// t_end, the preset's end time when it has one.
SimulationOptions options_from(const PyModel& model, const py::kwargs& kwargs) {
  SimulationOptions options;
  options.t_end = model.choice.t_end_or(options.t_end);
  for (const auto& [key, value] : kwargs) {
    const std::string name = py::str(key);
    if (name == "atol" && py::isinstance<py::dict>(value)) {  // {state: atol, ..., "*": every other state}
      for (const auto& [state, tolerance] : value.cast<py::dict>()) {
        const std::string state_name = py::str(state);
        const std::string what = "option atol of " + state_name;
        const Decimal number = py::isinstance<py::str>(tolerance) ? Decimal(tolerance.cast<std::string>(), what)
                                                                   : Decimal(as_number(tolerance, what));
        if (state_name == "*") {
          options.atol = number;
        } else {
          options.atol_states.emplace_back(state_name, number);
        }
      }
      continue;
    }
    bool known = false;
    for (const OptionInfo& info : option_table()) {
      if (name != info.name) continue;
      known = true;
      std::visit(
          [&]<class T>(T SimulationOptions::*member) {
            const std::string what = "option " + name;
            if constexpr (std::is_same_v<T, Decimal>) {
              // As a parameter's value: a str kept as typed, a number as its shortest decimal
              // text (str(0.1) is "0.1"), each parsed in the run's scalar type.
              if (!py::isinstance<py::str>(value)) (void)as_number(value, what);  // a number's type check
              options.*member = Decimal(parameter_text(value, what), what);
            } else if constexpr (std::is_same_v<T, bool>) {
              options.*member = as_bool(value, what);
            } else if constexpr (std::is_same_v<T, std::string>) {
              options.*member = as_str(value, what);
            } else {
              options.*member = as_int<T>(value, what);
            }
          },
          info.member);
    }
    if (!known) throw InvalidArgument("unknown option '" + name + "' (see `hysim options`)");
  }
  options.validate();
  find_strategy(options.strategy).check(options, {});  // the chosen strategy's own tuning
  return options;
}

// Ctrl-C (a Jupyter interrupt is a SIGINT too) and time_limit during work done with the GIL
// released. Python runs signal handlers only in the main thread, inside PyErr_CheckSignals:
// the working thread calls poll() (a run every step, a sweep every row), which reads the clock
// every `stride` calls and, at most every kPeriod seconds, takes the GIL to call it. A handler
// that raises (KeyboardInterrupt) or the time limit raises *flag, which the work polls.
class StopPoll {
 public:
  static constexpr double kPeriod = 0.05;  // [s] Ctrl-C takes effect within this and a step

  StopPoll(std::atomic<bool>* flag, double time_limit, unsigned stride)
      : flag_(flag), time_limit_(time_limit), stride_(stride), start_(std::chrono::steady_clock::now()) {}

  void poll() {
    if (++calls_ % stride_ != 0 || flag_->load(std::memory_order_relaxed)) return;
    const double now = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
    if (time_limit_ > 0 && now >= time_limit_) {
      timed_out = true;
      flag_->store(true, std::memory_order_relaxed);
      return;
    }
    if (now - polled_ < kPeriod) return;
    polled_ = now;
    py::gil_scoped_acquire gil;
    if (PyErr_CheckSignals() != 0) {
      error = std::make_unique<py::error_already_set>();  // fetches the exception the handler raised
      flag_->store(true, std::memory_order_relaxed);
    }
  }

  // After the work, with the GIL held: raises what a signal handler raised, with `partial`
  // (the result up to the stop) as its attribute `result`. Nothing when no handler raised.
  void raise_with(const py::object& partial) {
    if (!error) return;
    py::error_already_set raised = std::move(*error);
    error.reset();
    if (py::hasattr(raised.value(), "__dict__")) raised.value().attr("result") = partial;
    raised.restore();
    throw py::error_already_set();
  }

  bool timed_out = false;
  double time_limit() const { return time_limit_; }

 private:
  std::atomic<bool>* flag_;
  double time_limit_;
  unsigned stride_;
  std::chrono::steady_clock::time_point start_;
  unsigned calls_ = 0;
  double polled_ = 0;
  std::unique_ptr<py::error_already_set> error;
};

// What a run leaves behind, kept in S until the arrays are made.
template <class S>
struct Collector final : Observer<S> {
  std::vector<std::int64_t> index;
  std::vector<S> t, x_pre, x_post;
  std::vector<int> from, to, kind, one_sided;
  std::vector<std::string> guard;
  std::vector<S> sample_t, sample_x;
  std::vector<int> sample_mode;
  bool keep_trajectory = true;
  StopPoll* stop = nullptr;
  // Streaming (run(on_chunk=...)): once `chunk` rows of either kind are kept, flush() hands
  // them over and they are cleared (their capacity stays: memory does not grow with the run).
  std::size_t chunk = 0;
  std::function<void()> flush;
  // t_eval: only the samples at these times (increasing), each once; empty: every sample.
  std::vector<S> keep_only;
  std::size_t next_keep = 0;

  void on_step(S, S, StepLimit) override { stop->poll(); }
  void clear() {
    index.clear();
    t.clear();
    x_pre.clear();
    x_post.clear();
    from.clear();
    to.clear();
    kind.clear();
    one_sided.clear();
    guard.clear();
    sample_t.clear();
    sample_x.clear();
    sample_mode.clear();
  }

  void on_event(const EventRecord<S>& r) override {
    index.push_back(r.index);
    t.push_back(r.t);
    from.push_back(r.from);
    to.push_back(r.to);
    kind.push_back(static_cast<int>(r.kind));
    one_sided.push_back(r.one_sided ? 1 : 0);
    guard.emplace_back(r.guard);
    x_pre.insert(x_pre.end(), r.x_pre.begin(), r.x_pre.end());
    x_post.insert(x_post.end(), r.x_post.begin(), r.x_post.end());
    if (chunk > 0 && t.size() >= chunk) flush();
  }
  void on_sample(S time, int mode, std::span<const S> x) override {
    if (!keep_trajectory) return;
    if (!keep_only.empty()) {
      while (next_keep < keep_only.size() && keep_only[next_keep] < time) ++next_keep;
      if (next_keep == keep_only.size() || keep_only[next_keep] != time) return;
      ++next_keep;  // the first sample at that time (at an event: the state before it)
    }
    sample_t.push_back(time);
    sample_mode.push_back(mode);
    sample_x.insert(sample_x.end(), x.begin(), x.end());
    if (chunk > 0 && sample_t.size() >= chunk) flush();
  }
};

// A numpy array of S values (float64, or longdouble for long double; float128 as float64).
template <class S>
py::array to_array(const std::vector<S>& values, std::size_t columns = 0) {
  using Out = std::conditional_t<std::is_same_v<S, long double>, long double, double>;
  std::vector<py::ssize_t> shape = {static_cast<py::ssize_t>(columns ? values.size() / columns : values.size())};
  if (columns) shape.push_back(static_cast<py::ssize_t>(columns));
  py::array_t<Out> array(shape);
  Out* out = array.mutable_data();
  for (std::size_t i = 0; i < values.size(); ++i) out[i] = static_cast<Out>(values[i]);
  return array;
}

// The exact decimal text of float128 values (None in other scalar types): a list, or with
// `columns` a list of rows of that many.
template <class S>
py::object exact_text(const std::vector<S>& values, std::size_t columns = 0) {
  if constexpr (!std::is_same_v<S, float128>) {
    (void)values;
    (void)columns;
    return py::none();
  } else {
    py::list out;
    if (columns == 0) {
      for (const S& v : values) out.append(format_scalar(v, 36));
      return out;
    }
    for (std::size_t i = 0; i + columns <= values.size(); i += columns) {
      py::list row;
      for (std::size_t j = 0; j < columns; ++j) row.append(format_scalar(values[i + j], 36));
      out.append(row);
    }
    return out;
  }
}

// The events of a run as columns: numpy arrays, the names as lists of str. The name columns
// share one str per name: a list of 10^5 events is built in milliseconds, so that a stopped run
// (Ctrl-C, time_limit) returns at once.
template <class S>
py::dict events_dict(const Model<S>& model, const Collector<S>& collected, const py::list& mode_names) {
  std::vector<py::object> class_names;
  for (int c = 0; c <= static_cast<int>(TransitionClass::kMythical); ++c) {
    class_names.push_back(py::str(transition_class_name(static_cast<TransitionClass>(c))));
  }
  std::map<std::string, py::object> guard_names;
  std::map<std::string, int> guard_codes;  // in the order of first appearance
  py::list guard_list;
  std::vector<int> guard_code;
  guard_code.reserve(collected.guard.size());
  for (const std::string& g : collected.guard) {
    if (guard_names.find(g) == guard_names.end()) {
      guard_names.emplace(g, py::str(g));
      guard_codes.emplace(g, static_cast<int>(guard_codes.size()));
      guard_list.append(guard_names.at(g));
    }
    guard_code.push_back(guard_codes.at(g));
  }
  const std::size_t rows = collected.t.size();
  const auto column = [&](const auto& name_of) {
    py::list list(static_cast<py::ssize_t>(rows));
    for (std::size_t i = 0; i < rows; ++i) list[i] = name_of(i);
    return list;
  };
  const std::size_t n = model.state_size();
  py::dict events;
  events["index"] = py::array_t<std::int64_t>(static_cast<py::ssize_t>(collected.index.size()), collected.index.data());
  events["t"] = to_array(collected.t);
  events["from"] = column([&](std::size_t i) { return mode_names[static_cast<std::size_t>(collected.from[i])]; });
  events["to"] = column([&](std::size_t i) { return mode_names[static_cast<std::size_t>(collected.to[i])]; });
  events["class"] = column([&](std::size_t i) { return class_names[static_cast<std::size_t>(collected.kind[i])]; });
  events["guard"] = column([&](std::size_t i) { return guard_names.at(collected.guard[i]); });
  events["one_sided"] = py::array_t<int>(static_cast<py::ssize_t>(collected.one_sided.size()), collected.one_sided.data());
  events["x_pre"] = to_array(collected.x_pre, n);
  events["x_post"] = to_array(collected.x_post, n);
  events["t_exact"] = exact_text(collected.t);
  events["x_pre_exact"] = exact_text(collected.x_pre, n);
  events["x_post_exact"] = exact_text(collected.x_post, n);
  // The same names as codes (categorical columns): modes index result["modes"], classes
  // hysim.classes(), guards events["guards"] (each name once, in order of first appearance).
  const auto ints = [](const std::vector<int>& v) { return py::array_t<int>(static_cast<py::ssize_t>(v.size()), v.data()); };
  events["from_code"] = ints(collected.from);
  events["to_code"] = ints(collected.to);
  events["class_code"] = ints(collected.kind);
  events["guard_code"] = ints(guard_code);
  events["guards"] = guard_list;
  return events;
}

template <class S>
py::dict trajectory_dict(const Model<S>& model, const Collector<S>& collected) {
  py::dict traj;
  traj["t"] = to_array(collected.sample_t);
  traj["mode"] = py::array_t<int>(static_cast<py::ssize_t>(collected.sample_mode.size()), collected.sample_mode.data());
  traj["x"] = to_array(collected.sample_x, model.state_size());
  traj["t_exact"] = exact_text(collected.sample_t);
  traj["x_exact"] = exact_text(collected.sample_x, model.state_size());
  return traj;
}

// run(on_chunk=f, chunk=N): the rows kept so far go to f({"events": ..., "trajectory": ...}),
// called with the GIL from the run's thread; an exception f raises stops the run and is raised
// again when it returns.
template <class S>
struct ChunkSink {
  const Model<S>& model;
  Collector<S>& collected;
  py::object callback;
  py::list mode_names;
  std::atomic<bool>* stop_flag;
  std::unique_ptr<py::error_already_set> error;

  void operator()() {
    if (error) return;
    py::gil_scoped_acquire gil;
    py::dict chunk;
    chunk["events"] = events_dict(model, collected, mode_names);
    chunk["trajectory"] = trajectory_dict(model, collected);
    collected.clear();
    try {
      callback(chunk);
    } catch (py::error_already_set& raised) {
      error = std::make_unique<py::error_already_set>(std::move(raised));
      stop_flag->store(true, std::memory_order_relaxed);
    }
  }
  void raise() {
    if (!error) return;
    error->restore();
    error.reset();
    throw py::error_already_set();
  }
};

py::dict stats_dict(const RunStatistics& s) {
  py::dict stats;
  stats["steps_accepted"] = s.steps_accepted;
  stats["steps_rejected"] = s.steps_rejected;
  stats["rhs_evals"] = s.rhs_evals;
  stats["guard_evals"] = s.guard_evals;
  stats["root_iterations"] = s.root_iterations;
  stats["events"] = s.events;
  stats["transitions"] = s.transitions;
  stats["one_sided_events"] = s.one_sided_events;
  const CertifiedStatistics& c = s.certified;
  if (c.level > 0) {  // the certified strategy (docs/certified.md)
    py::dict certified;
    certified["level"] = c.level;
    certified["steps_proved"] = c.steps_proved;
    certified["steps_unproved"] = c.steps_unproved;
    certified["steps_at_resolution"] = c.steps_at_resolution;
    certified["enclosures"] = c.enclosures;
    certified["subdivisions"] = c.subdivisions;
    certified["max_depth"] = c.max_depth;
    certified["events_unique"] = c.events_unique;
    certified["events_bracketed"] = c.events_bracketed;
    certified["rearm_points"] = c.rearm_points;
    if (c.level == 2) {
      certified["flow_error_max"] = c.flow_error_max;
      certified["flow_early_max"] = c.flow_early_max;
      certified["flow_open_at_end"] = c.flow_open_at_end;
    }
    stats["certified"] = certified;
  }
  return stats;
}

// on_chunk: None, or a callable that receives the rows in chunks of `chunk` (run(), docs/python.md).
struct Streaming {
  py::object on_chunk = py::none();
  std::size_t chunk = 0;
};

// JSON of the comparison layer as Python dicts and lists.
py::object to_python(const nlohmann::json& json) { return py::module_::import("json").attr("loads")(json.dump()); }

template <class S>
py::dict run_in(const PyModel& m, const SimulationOptions& options, bool trajectory, double time_limit,
                const study::StartChoice& start, const Streaming& streaming, bool check_tolerance) {
  Model<S> built = m.entry->make<S>(m.values);
  study::apply_start(start, &built);
  const Model<S>& model = built;
  Simulator<S> simulator(model, options);
  std::atomic<bool> stop_flag{false};
  StopPoll stop(&stop_flag, time_limit, 16);  // the clock every 16 steps
  simulator.stop_when(&stop_flag);
  Collector<S> collected;
  collected.keep_trajectory = trajectory;
  collected.stop = &stop;
  for (const Decimal& t : options.output_times) collected.keep_only.push_back(t.template to<S>("t_eval"));
  py::list mode_names;
  for (const auto& mode : model.modes) mode_names.append(mode.name);
  ChunkSink<S> sink{model, collected, streaming.on_chunk, mode_names, &stop_flag, nullptr};
  if (!streaming.on_chunk.is_none()) {
    collected.chunk = streaming.chunk;
    collected.flush = [&sink] { sink(); };
  }
  std::vector<study::RunEvent> checked_events;  // check_tolerance=True only
  const study::ToleranceCheckOptions check_options;
  study::EventCollector<S> event_collector(&checked_events, check_options.max_events);
  Observers<S> collected_and_checked{&collected, &event_collector};
  RunResult<S> result;
  std::optional<study::ToleranceCheck> check;
  {
    py::gil_scoped_release release;
    result = simulator.run(check_tolerance ? static_cast<Observer<S>*>(&collected_and_checked) : &collected);
    if (check_tolerance && result.reason != RunReason::kFailed && result.reason != RunReason::kInterrupted) {
      check = study::check_tolerance(model, options,
                                     {checked_events, event_collector.overflowed(), static_cast<double>(result.t),
                                      result.stats.steps_accepted, result.stats.rhs_evals},
                                     check_options);
    }
  }
  if (result.reason == RunReason::kInterrupted && stop.timed_out) {
    result.message = "time limit (" + format_scalar(stop.time_limit(), 6) + " s): " + result.message;
  }
  if (collected.flush) {  // the last rows, then an error the callback raised
    {
      py::gil_scoped_release release;
      sink();
    }
    sink.raise();
  }
  py::dict out;
  out["model"] = model.name;
  out["states"] = model.state_names;
  out["modes"] = mode_names;
  out["reason"] = run_reason_name(result.reason);
  out["message"] = result.message;
  out["t"] = static_cast<double>(result.t);
  out["t_exact"] = format_scalar(result.t, std::numeric_limits<S>::max_digits10);
  out["mode"] = model.modes[static_cast<std::size_t>(result.mode)].name;
  out["x"] = to_array(result.x);
  out["x_exact"] = exact_text(result.x);
  out["stats"] = stats_dict(result.stats);
  out["warnings"] = result.warnings;  // e.g. an explicit solver that found the field stiff
  out["events"] = events_dict(model, collected, mode_names);
  out["trajectory"] = trajectory_dict(model, collected);
  if (check) out["tolerance_check"] = to_python(check->to_json());
  stop.raise_with(out);  // Ctrl-C: KeyboardInterrupt, with this partial result as exc.result
  return out;
}


std::vector<std::string> names_or_all(const py::object& names, const char* what) {
  if (names.is_none()) return {};
  if (py::isinstance<py::str>(names)) return {names.cast<std::string>()};
  return cast_as<std::vector<std::string>>(names, what, "None, a str or a list of str");
}

py::object compare(const PyModel& model, const py::object& strategies, const py::object& solvers,
                   const py::object& scalar, const py::kwargs& kwargs) {
  study::CompareRequest request;
  request.choice = model.choice;
  request.choice.scalar = as_str(scalar, "scalar");
  (void)request.choice.scalar_kind();  // a bad name is an error before anything runs
  request.options = options_from(model, kwargs);
  // The names are read with the GIL held: a Python object is touched only then.
  request.strategies = names_or_all(strategies, "strategies");
  request.solvers = names_or_all(solvers, "solvers");
  nlohmann::json json;
  {
    py::gil_scoped_release release;
    json = study::compare_runs(request).json();
  }
  return to_python(json);
}

py::object reproduce(const py::object& name, const py::object& strategies, const py::object& solver,
                     const py::object& rtol, const py::object& atol) {
  study::ReproduceRequest request;
  request.name = as_str(name, "name");
  request.strategies = names_or_all(strategies, "strategies");
  request.solver = as_str(solver, "solver");
  request.rtol = as_number(rtol, "rtol");
  request.atol = as_number(atol, "atol");
  nlohmann::json json;
  {
    py::gil_scoped_release release;
    json = study::reproduction_json(request);
  }
  return to_python(json);
}

// A params dict of sweep as the specs of SweepRequest: NAME=SPEC, with SPEC a str
// ("0.05:0.2:64", "uniform:0.1:0.2"), a list of values, or a value.
std::vector<std::string> sweep_specs(const py::dict& params) {
  std::vector<std::string> specs;
  for (const auto& [key, value] : params) {
    const std::string name = as_str(key, "params: a parameter's name");
    const std::string what = "params['" + name + "']";
    std::string spec;
    if (py::isinstance<py::list>(value) || py::isinstance<py::tuple>(value)) {
      for (const auto& item : value) {
        if (!spec.empty()) spec += ',';
        spec += parameter_text(item, what + "'s values");
      }
    } else if (py::isinstance<py::str>(value)) {
      spec = value.cast<std::string>();  // "FROM:TO:COUNT", "uniform:A:B", ...
    } else {
      spec = parameter_text(value, what + " (a spec str, a list of values or a value)");
    }
    specs.push_back(name + "=" + spec);
  }
  return specs;
}

// The keyword arguments of sweep, as in the signature.
struct SweepArguments {
  py::object params, draws, seed, jobs, events, first, runs, scalar;
};

study::SweepRequest sweep_request(const PyModel& model, const SweepArguments& a, const py::kwargs& kwargs) {
  study::SweepRequest request;
  request.choice = model.choice;
  request.choice.scalar = as_str(a.scalar, "scalar");
  if (!py::isinstance<py::dict>(a.params)) {
    throw py::type_error("params must be a dict of names to specs, not " + type_name(a.params));
  }
  request.samples = as_int<std::int64_t>(a.draws, "draws");
  request.seed = as_int<std::uint64_t>(a.seed, "seed");
  request.jobs = as_int<int>(a.jobs, "jobs");
  request.event_columns = as_int<int>(a.events, "events");
  request.first = as_int<std::int64_t>(a.first, "first");
  request.runs = as_int<std::int64_t>(a.runs, "runs");
  const std::vector<std::string> specs = sweep_specs(a.params.cast<py::dict>());
  request.choice.params.insert(request.choice.params.end(), specs.begin(), specs.end());
  request.options = options_from(model, kwargs);
  if (request.samples < 0 || request.jobs < 0 || request.event_columns < 0) {
    throw InvalidArgument("sweep: draws, jobs and events must be >= 0");
  }
  return request;
}

// The rows of a sweep as columns keyed by SweepColumns::names(): numpy float64 arrays (NaN where
// unknown), the text columns (reason, message, mode) as lists of str.
py::dict sweep_columns(const study::SweepColumns& columns, const std::vector<study::SweepRow>& rows) {
  const auto numbers = [&](const auto& field) {
    py::array_t<double> array(static_cast<py::ssize_t>(rows.size()));
    auto view = array.mutable_unchecked<1>();
    for (std::size_t r = 0; r < rows.size(); ++r) view(static_cast<py::ssize_t>(r)) = field(rows[r]);
    return array;
  };
  const auto texts = [&](const auto& field) {
    py::list list;
    for (const auto& row : rows) list.append(field(row));
    return list;
  };
  // Counts are int64 columns; -1 where a run has none (failed, refused, not run: its reason says).
  const auto counts = [&](const auto& field) {
    py::array_t<std::int64_t> array(static_cast<py::ssize_t>(rows.size()));
    auto view = array.mutable_unchecked<1>();
    for (std::size_t r = 0; r < rows.size(); ++r) {
      const std::optional<std::int64_t> n = field(rows[r]);
      view(static_cast<py::ssize_t>(r)) = n ? *n : -1;
    }
    return array;
  };
  py::dict out;
  out["run"] = counts([](const study::SweepRow& r) { return std::optional<std::int64_t>(r.run); });
  for (std::size_t a = 0; a < columns.swept.size(); ++a) {
    out[py::str(columns.swept[a])] = numbers([&](const study::SweepRow& r) { return r.swept[a].value; });
  }
  out["reason"] = texts([](const study::SweepRow& r) { return r.reason; });
  out["message"] = texts([](const study::SweepRow& r) { return r.message; });
  out["t"] = numbers([](const study::SweepRow& r) { return r.t.value; });
  out["mode"] = texts([](const study::SweepRow& r) { return r.mode; });
  out["events"] = counts([](const study::SweepRow& r) { return r.events; });
  for (std::size_t k = 0; k < static_cast<std::size_t>(columns.event_columns); ++k) {
    out[py::str("t_event" + std::to_string(k + 1))] = numbers([&](const study::SweepRow& r) { return r.event_times[k].value; });
  }
  for (std::size_t i = 0; i < columns.states.size(); ++i) {
    out[py::str(columns.states[i])] = numbers([&](const study::SweepRow& r) { return r.state[i].value; });
  }
  out["steps"] = counts([](const study::SweepRow& r) { return r.steps; });
  out["rejected"] = counts([](const study::SweepRow& r) { return r.rejected; });
  out["field_evals"] = counts([](const study::SweepRow& r) { return r.field_evals; });
  out["guard_evals"] = counts([](const study::SweepRow& r) { return r.guard_evals; });
  out["wall_s"] = numbers([](const study::SweepRow& r) { return r.wall_s.value; });
  return out;
}

// A sweep as `hysim sweep` runs it (hysim/study/sweep.hpp): params maps a name to a spec
// ("0.05:0.2:64", "uniform:0.1:0.2", a number, or a list of numbers).
py::dict sweep(const PyModel& model, const SweepArguments& arguments, const py::kwargs& kwargs) {
  const study::SweepRequest request = sweep_request(model, arguments, kwargs);
  study::SweepColumns columns;
  std::vector<study::SweepRow> rows;
  // Ctrl-C raises the stop flag (hysim/study/stop.hpp), polled at each row: the runs going on
  // end interrupted, the others are rows "not_run", and KeyboardInterrupt carries the summary.
  std::atomic<bool>& stop_flag = study::stop_flag();
  stop_flag.store(false);
  StopPoll stop(&stop_flag, 0, 1);
  {
    py::gil_scoped_release release;
    struct Lower {
      std::atomic<bool>* flag;
      ~Lower() { flag->store(false); }  // for the next sweep, also after an exception
    } lower{&stop_flag};
    study::run_sweep(request, [&](const study::SweepColumns& layout) { columns = layout; },
                     [&](study::SweepRow&& row) {
                       rows.push_back(std::move(row));
                       stop.poll();
                     });
  }
  py::dict out = sweep_columns(columns, rows);
  stop.raise_with(out);
  return out;
}

// Where a run starts (t0=, x0=, mode=): None keeps the model's.
study::StartChoice start_from(const py::object& t0, const py::object& x0, const py::object& mode) {
  study::StartChoice start;
  if (!t0.is_none()) start.t0 = parameter_text(t0, "t0");
  if (!x0.is_none()) {
    if (!py::isinstance<py::dict>(x0)) throw py::type_error("x0 must be a dict of state names to values, not " + type_name(x0));
    for (const auto& [key, value] : x0.cast<py::dict>()) {
      const std::string name = as_str(key, "x0: a state's name");
      start.initial.push_back(name + "=" + parameter_text(value, "x0['" + name + "']"));
    }
  }
  if (!mode.is_none()) start.mode = as_str(mode, "mode");
  return start;
}

py::dict run(const PyModel& model, const py::object& scalar_object, const py::object& trajectory_object,
             const py::object& time_limit_object, const py::object& t0, const py::object& x0,
             const py::object& mode, const py::object& on_chunk, const py::object& chunk, const py::object& t_eval,
             const py::object& check_tolerance_object, const py::kwargs& kwargs) {
  const bool check_tolerance = as_bool(check_tolerance_object, "check_tolerance");
  const study::StartChoice start = start_from(t0, x0, mode);
  Streaming streaming{on_chunk, 0};
  if (!on_chunk.is_none()) {
    if (!PyCallable_Check(on_chunk.ptr())) throw InvalidArgument("on_chunk: a callable taking one dict, or None");
    streaming.chunk = as_int<std::size_t>(chunk, "chunk");
    if (streaming.chunk == 0) throw InvalidArgument("chunk: rows per call to on_chunk, >= 1");
  }
  const std::string scalar = as_str(scalar_object, "scalar");
  const bool trajectory = as_bool(trajectory_object, "trajectory");
  const double time_limit = time_limit_object.is_none() ? 0.0 : as_number(time_limit_object, "time_limit");
  if (!(time_limit >= 0 && time_limit <= 3.2e7)) {  // NaN too; a year at most, as --time-limit
    throw InvalidArgument("time_limit: " + format_scalar(time_limit, 6) +
                          " is not a number of seconds in [0, 3.2e7] (0 or None: none)");
  }
  SimulationOptions options = options_from(model, kwargs);
  if (!t_eval.is_none()) {  // the samples at exactly these times (SimulationOptions::output_times)
    if (!trajectory) throw InvalidArgument("t_eval: the times of the trajectory, which trajectory=False leaves out");
    for (const py::handle& t : py::iterable(t_eval)) {
      options.output_times.push_back(py::isinstance<py::str>(t) ? Decimal(t.cast<std::string>(), "t_eval")
                                                                 : Decimal(as_number(t, "t_eval")));
    }
    options.validate();
  }
  switch (parse_scalar_kind(scalar)) {
    case ScalarKind::kLongDouble:
      return run_in<long double>(model, options, trajectory, time_limit, start, streaming, check_tolerance);
    case ScalarKind::kFloat128:
      return run_in<float128>(model, options, trajectory, time_limit, start, streaming, check_tolerance);
    case ScalarKind::kDouble: break;
  }
  return run_in<double>(model, options, trajectory, time_limit, start, streaming, check_tolerance);
}

// What a Model says of itself before any run: its states, its modes, its repr.
void describe_model(py::class_<PyModel>& model) {
  model
      .def_property_readonly("states",
                             [](const PyModel& m) {
                               py::list out;
                               for (const auto& s : m.entry->make<double>(m.values).state_names) out.append(s);
                               return out;
                             })
      .def_property_readonly("modes",
                             [](const PyModel& m) {
                               py::list out;
                               for (const auto& mode : m.entry->make<double>(m.values).modes) out.append(mode.name);
                               return out;
                             })
      .def("__repr__", [](const PyModel& m) {
        const Model<double> built = m.entry->make<double>(m.values);
        std::string states, modes;
        for (const auto& s : built.state_names) states += (states.empty() ? "" : ", ") + s;
        for (const auto& mode : built.modes) modes += (modes.empty() ? "" : ", ") + mode.name;
        return "<hysim.Model '" + m.entry->name + "': states " + states + "; modes " + modes + "; " +
               std::to_string(m.values.values().size()) + " parameters>";
      });
}

// Model.run's docstring.
constexpr const char* kRunDoc =
    "run(scalar='double', trajectory=True, time_limit=None, t0=None, x0=None, mode=None, on_chunk=None, "
    "chunk=10000, t_eval=None, check_tolerance=False, **options): one "
    "simulation, started at t0 (default: the model's), with the states of the dict x0 (name: value) "
    "replacing the model's initial values, in mode `mode` (default: the model's initial mode), so that a "
    "run can continue from another's final state; options are the "
    "fields of `hysim options` (t_end=..., solver=..., strategy=..., rtol=..., output_step=...); a real "
    "option given as a str (t_end='0.1') is parsed in the run's scalar type, exactly. Returns a dict: "
    "reason, message, t, mode, x, stats, events (arrays), trajectory (arrays). time_limit [s] of wall "
    "time: the run stops there with reason 'interrupted' and returns what it computed. Ctrl-C raises "
    "KeyboardInterrupt with that partial result as its attribute `result`. on_chunk: a callable that "
    "receives the rows as they come, {'events': ..., 'trajectory': ...} each time `chunk` rows of either "
    "are kept and once at the end, so that memory stays flat over a long run; the result then holds no rows. "
    "t_eval: increasing times in [t0, t_end]; the trajectory then holds the state at exactly those times "
    "(from the dense output; at an event time, the state before it) and nothing else. check_tolerance=True: "
    "the run again with tolerances ten times tighter, its events matched with this run's, the verdict in "
    "result['tolerance_check'] (resolved, max_dt: the estimated event-time error, ...; docs/cli.md)";

// The class Model: a model with its parameter values, and what runs on it.
void bind_model(py::module_& module) {
  py::class_<PyModel> model_class(module, "Model", "a built-in model or a model file, with its parameter values");
  describe_model(model_class);
  model_class
      .def(py::init([](const py::object& name, const py::object& preset, const py::object& params) {
             if (!py::isinstance<py::dict>(params)) {
               throw py::type_error("params must be a dict of names to values, not " + type_name(params));
             }
             return make_model(as_str(name, "name"), as_str(preset, "preset"), assignments_of(params.cast<py::dict>()));
           }),
           py::arg("name"), py::arg("preset") = "", py::arg("params") = py::dict(),
           "Model(name, preset='', params={}): a catalog name (hysim.models()) or a path to a .hym file; "
           "params maps names to values, given as decimal text or numbers")
      .def_static(
          "from_string",
          [](const py::object& text, const py::object& preset, const py::object& params, const py::object& label) {
            if (!py::isinstance<py::dict>(params)) {
              throw py::type_error("params must be a dict of names to values, not " + type_name(params));
            }
            return model_from_text(as_str(text, "text"), as_str(label, "label"), as_str(preset, "preset"),
                                   assignments_of(params.cast<py::dict>()));
          },
          py::arg("text"), py::arg("preset") = "", py::arg("params") = py::dict(), py::arg("label") = "<string>.hym",
          "Model.from_string(text, preset='', params={}, label='<string>.hym'): a model from the text of a model "
          "file (docs/model-language.md); its errors name label:line:column")
      .def(py::pickle(&model_state, &model_from_state))
      .def_property_readonly("name", [](const PyModel& m) { return m.entry->name; })
      .def_property_readonly("summary", [](const PyModel& m) { return m.entry->summary; })

      .def_property_readonly("parameters",
                             [](const PyModel& m) {
                               py::dict out;
                               for (const auto& [name, text] : m.values.values()) out[py::str(name)] = text;
                               return out;
                             })
      .def_property_readonly("presets",
                             [](const PyModel& m) {
                               py::list out;
                               for (const auto& p : m.entry->presets) out.append(p.name);
                               return out;
                             })
      .def("run", &run, py::arg("scalar") = "double", py::arg("trajectory") = true,
           py::arg("time_limit") = py::none(), py::arg("t0") = py::none(), py::arg("x0") = py::none(),
           py::arg("mode") = py::none(), py::arg("on_chunk") = py::none(), py::arg("chunk") = 10000,
           py::arg("t_eval") = py::none(), py::arg("check_tolerance") = false,
           kRunDoc)
      .def("sweep",
           [](const PyModel& model, const py::object& params, const py::object& draws, const py::object& seed,
              const py::object& jobs, const py::object& events, const py::object& first, const py::object& runs,
              const py::object& scalar, const py::kwargs& kwargs) {
             return sweep(model, {params, draws, seed, jobs, events, first, runs, scalar}, kwargs);
           },
           py::arg("params"), py::arg("draws") = 0, py::arg("seed") = 1, py::arg("jobs") = 0,
           py::arg("events") = 3, py::arg("first") = 0, py::arg("runs") = 0, py::arg("scalar") = "double",
           "sweep(params, draws=0, seed=1, jobs=0, events=3, first=0, runs=0, scalar='double', **options): many "
           "runs over a grid "
           "or a sample of parameters on every core, as `hysim sweep` (docs/sweeps.md). params maps a name to "
           "'FROM:TO:COUNT', a list of values, a value, or with draws 'uniform:A:B' / 'normal:MEAN:DEVIATION'; "
           "first and runs select a part (a chunk for a cluster: docs/sweeps.md). "
           "Returns the summary as columns: run, the swept parameters, reason, t, mode, events, t_event1.., the "
           "final state, steps, rejected, field_evals, guard_evals, wall_s (numpy arrays; reason and mode lists)")
      .def("sweep_size",
           [](const PyModel& model, const py::object& params, const py::object& draws, const py::object& scalar,
              const py::kwargs& kwargs) {
             const py::int_ zero(0), one(1), events(3);
             return study::sweep_size(sweep_request(model, {params, draws, one, zero, events, zero, zero, scalar}, kwargs));
           },
           py::arg("params"), py::arg("draws") = 0, py::arg("scalar") = "double",
           "sweep_size(params, draws=0, scalar='double', **options): the number of runs of the whole sweep "
           "sweep(params, draws, ...) would make, after the same checks of every input (ValueError names a bad "
           "one); what a caller that cuts the sweep into parts (first=, runs=) divides")
      .def("compare", &compare, py::arg("strategies") = py::none(), py::arg("solvers") = py::none(),
           py::arg("scalar") = "double",
           "compare(strategies=None, solvers=None, scalar='double', **options): every (solver, strategy) "
           "combination against the model's reference, as `hysim compare` (None: every strategy, the solver "
           "of the options). Returns the dict of compare.json: model, options, reference, runs (each with "
           "stats, matching, max_abs_dt, errors)");
}

// The functions of the module: reproduce, sweep by name, and the catalogs.
void bind_functions(py::module_& module) {
  module.def("reproduce", &reproduce, py::arg("name"), py::arg("strategies") = py::none(),
             py::arg("solver") = "dopri5", py::arg("rtol") = 1e-4, py::arg("atol") = 0.0,
             "reproduce(name, strategies=None, solver='dopri5', rtol=1e-4, atol=0): a published table as "
             "`hysim reproduce` computes it (hysim.reproductions() lists them). Returns a dict: columns, paper "
             "(the paper's rows as numbers), hysim (our rows as in compare), not_run, settings");
  module.def(
      "sweep",
      [](const py::object& model, const py::object& params, const py::object& draws, const py::object& seed,
         const py::object& jobs, const py::object& events, const py::object& first, const py::object& runs,
         const py::object& scalar, const py::kwargs& kwargs) {
        const PyModel chosen =
            py::isinstance<PyModel>(model)
                ? model.cast<PyModel>()
                : make_model(cast_as<std::string>(model, "model", "a hysim.Model, a name or a path (str)"), "", {});
        return sweep(chosen, {params, draws, seed, jobs, events, first, runs, scalar}, kwargs);
      },
      py::arg("model"), py::arg("params"), py::arg("draws") = 0, py::arg("seed") = 1, py::arg("jobs") = 0,
      py::arg("events") = 3, py::arg("first") = 0, py::arg("runs") = 0, py::arg("scalar") = "double",
      "sweep(model, params, ...): Model(model).sweep(params, ...) for a name or path, or model.sweep for a Model");
  module.def("reproductions", [] {
    py::dict out;
    for (const auto& [name, description] : study::reproductions()) out[py::str(name)] = description;
    return out;
  }, "the published tables `reproduce` knows, with a line each");
  module.def("models", [] {
    py::list out;
    for (const auto& entry : model_catalog()) out.append(entry.name);
    return out;
  }, "the names of the built-in models");
  module.def("classes", [] {
    py::list out;
    for (int c = 0; c <= static_cast<int>(TransitionClass::kMythical); ++c) {
      out.append(transition_class_name(static_cast<TransitionClass>(c)));
    }
    return out;
  }, "the classes of a mode visited at an event, in the order of events['class_code']");
  module.def("strategies", [] {
    py::list out;
    for (const auto& s : strategy_catalog()) out.append(s.name);
    return out;
  }, "the names of the event-detection strategies");
  module.def("solvers", [] {
    py::dict out;
    for (const auto& s : solver_catalog()) out[py::str(s.name)] = s.description;
    return out;
  }, "the solvers (the names `solver=` takes), each with a line on its method and dense output");
}

}  // namespace

}  // namespace hysim::python

PYBIND11_MODULE(_core, module) {
  using namespace hysim;
  register_peers();
  module.doc() = "hysim's compiled core; import hysim (python/hysim/__init__.py, docs/python.md)";
  module.attr("__version__") = HYSIM_VERSION;
  // The most recently registered translator is tried first: the derived InvalidArgument last.
  py::register_exception<Error>(module, "Error", PyExc_RuntimeError);
  py::register_exception<InvalidArgument>(module, "InvalidArgument", PyExc_ValueError);
  python::bind_model(module);
  python::bind_functions(module);
}
