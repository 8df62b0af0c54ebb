#include "hysim/study/evaluation.hpp"

#include "hysim/ensemble/ensemble.hpp"

#include <algorithm>
#include <chrono>

#include "hysim/study/reference_file.hpp"
#include "hysim/study/stop.hpp"
#include "hysim/study/stopwatch.hpp"
#include "hysim/core/errors.hpp"
#include "hysim/events/strategy.hpp"

namespace hysim::study {

const char* outcome_name(Outcome outcome) {
  switch (outcome) {
    case Outcome::kCompleted: return "completed";
    case Outcome::kFailed: return "failed";
    case Outcome::kSkipped: return "skipped";
  }
  return "?";
}

bool brings_own_solver(const std::string& strategy) { return find_strategy(strategy).is_driver(); }

std::string Evaluation::solver_label() const {
  const StrategyInfo& info = find_strategy(options.strategy);
  return info.is_driver() ? info.driver_solver : options.solver;
}

std::optional<double> Evaluation::one_sided_share() const {
  if (stats.events <= 0) return std::nullopt;
  return static_cast<double>(stats.one_sided_events) / static_cast<double>(stats.events);
}

std::string Evaluation::status_note() const {
  std::string text = outcome == Outcome::kCompleted ? "" : std::string(outcome_name(outcome)) + ": " + note;
  if (match && match->at_start > 0) {
    text += (text.empty() ? "" : "; ") + std::to_string(match->at_start) + " event(s) at t0 not compared";
  }
  return text;
}

std::optional<Reference> reference_for(const ModelChoice& choice, const ParameterValues& values, double t_end,
                                       std::string* why_not) {
  const ModelEntry& entry = choice.entry();
  if (!choice.reference_file.empty()) {
    Reference reference = read_reference_events(choice.reference_file, entry.make<double>(values).state_names);
    if (!reference.events.empty() && reference.events.back().t < float128(t_end)) {
      // A reference that ends early leaves later run events spurious: the method says so.
      reference.method += " (its last event is at t = " + format_scalar(reference.events.back().t, 6) + ")";
    }
    return reference;
  }
  if (!entry.reference) {
    *why_not = "model '" + entry.name + "' has no reference solution";
    return std::nullopt;
  }
  if (choice.start.moved()) {  // the model's reference starts where the model does
    *why_not = "--t0, --initial and --initial-mode move the start away from the model's, where its exact "
               "reference begins (measure against an earlier run with --reference EVENTS.csv, or move the "
               "start through the model's parameters with --param)";
    return std::nullopt;
  }
  const double t0 = static_cast<double>(entry.make<double>(values).t0);
  try {
    return entry.reference(values, t_end + (t_end - t0) / 100);
  } catch (const InvalidArgument& error) {
    *why_not = std::string("no reference for these parameters: ") + error.what();
  } catch (const SimulationError& error) {
    *why_not = std::string("the reference failed: ") + error.what();
  }
  return std::nullopt;
}

namespace {

template <class S>
Evaluation evaluate_one_run(const Model<S>& model, const SimulationOptions& options, const StrategySettings& settings,
                            const Reference* reference) {
  Evaluation run;
  run.options = options;
  EventCollector<S> collector(&run.events);
  try {
    Simulator<S> simulator(model, options, settings);
    simulator.stop_when(&stop_flag());  // SIGINT, SIGTERM, --time-limit (hysim/study/stop.hpp)
    const auto start = std::chrono::steady_clock::now();
    const RunResult<S> result = simulator.run(&collector);
    run.stats = result.stats;
    if (result.reason == RunReason::kFailed || result.reason == RunReason::kInterrupted) {
      run.outcome = Outcome::kFailed;  // an interrupted run's events stop short: not measured
      run.note = result.message;
    }
    run.wall_seconds = std::max(0.0, seconds_since(start) - collector.seconds_in_observer());
  } catch (const InvalidArgument& error) {
    run.outcome = Outcome::kSkipped;
    run.note = error.what();
    run.events.clear();
    return run;
  }
  if (reference) {
    run.match = match_events(run.events, reference->events, options.t_end.to<float128>("option t_end"),
                             static_cast<float128>(model.t0));
  }
  return run;
}

}  // namespace

template <class S>
Evaluation evaluate_run(const Model<S>& model, const SimulationOptions& options, const StrategySettings& settings,
                        const Reference* reference) {
  return evaluate_one_run(model, options, settings, reference);
}
template Evaluation evaluate_run(const Model<double>&, const SimulationOptions&, const StrategySettings&,
                                 const Reference*);
template Evaluation evaluate_run(const Model<long double>&, const SimulationOptions&, const StrategySettings&,
                                 const Reference*);
template Evaluation evaluate_run(const Model<float128>&, const SimulationOptions&, const StrategySettings&,
                                 const Reference*);

std::vector<SimulationOptions> solver_strategy_grid(const SimulationOptions& base,
                                                    const std::vector<std::string>& solvers,
                                                    const std::vector<std::string>& strategies) {
  std::vector<SimulationOptions> runs;
  for (const auto& solver : solvers) {
    for (const auto& strategy : strategies) {
      if (brings_own_solver(strategy) && solver != solvers.front()) continue;  // once: its own integrator
      runs.push_back(base);
      runs.back().solver = solver;
      runs.back().strategy = strategy;
    }
  }
  return runs;
}

void check_common_options(const ModelChoice& choice, const ParameterValues& values, const SimulationOptions& options) {
  SimulationOptions probe = options;
  probe.strategy = SimulationOptions{}.strategy;
  const Model<double> model = choice.make<double>(values);
  const Simulator<double> simulator(model, probe);  // validates, and checks t_end against t0
}

std::vector<Evaluation> evaluate(const ModelChoice& choice, const ParameterValues& values,
                                 const std::vector<SimulationOptions>& runs, const Reference* reference, int jobs,
                                 const SettingsByStrategy& settings) {
  const StrategySettings none;
  const auto settings_of = [&](const std::string& strategy) -> const StrategySettings& {
    const auto own = settings.find(strategy);
    return own == settings.end() ? none : own->second;
  };
  return with_scalar(choice.scalar_kind(), [&]<class S>() {
    // One model, read by every thread: its fields and guards keep no state between calls
    // (a model file's tape has a buffer per thread).
    const Model<S> model = choice.make<S>(values);
    std::vector<Evaluation> evaluations;
    evaluations.reserve(runs.size());
    EnsembleOptions ensemble;
    ensemble.jobs = jobs;
    run_ensemble<Evaluation>(
        static_cast<std::int64_t>(runs.size()), ensemble,
        [&](std::int64_t i) {
          const SimulationOptions& run = runs[static_cast<std::size_t>(i)];
          return evaluate_run(model, run, settings_of(run.strategy), reference);
        },
        [&](std::int64_t, Evaluation&& run) { evaluations.push_back(std::move(run)); });
    return evaluations;
  });
}

std::vector<std::string> ErrorColumns::headers() const {
  std::vector<std::string> out;
  for (const auto k : numbers) out.push_back("dt" + std::to_string(k));
  for (const auto& name : state_names) {
    for (const auto k : numbers) out.push_back("d" + name + std::to_string(k));
  }
  return out;
}

std::vector<std::optional<double>> ErrorColumns::values(const Evaluation& run, const Reference* reference) const {
  std::vector<std::optional<EventError>> errors;
  for (const auto k : numbers) {
    errors.push_back(reference && run.match ? event_error(*run.match, run.events, reference->events, k)
                                            : std::nullopt);
  }
  std::vector<std::optional<double>> out;
  for (const auto& error : errors) out.push_back(error ? std::optional<double>(error->t) : std::nullopt);
  for (const auto state : states) {
    for (const auto& error : errors) {
      out.push_back(error && state < error->x.size() ? std::optional<double>(error->x[state]) : std::nullopt);
    }
  }
  return out;
}

ErrorColumns error_columns(const std::vector<std::string>& model_states, const std::vector<std::size_t>& numbers,
                           const std::vector<std::string>& shown) {
  ErrorColumns columns;
  columns.numbers = numbers;
  for (std::size_t i = 0; i < model_states.size(); ++i) {
    if (!shown.empty() && std::find(shown.begin(), shown.end(), model_states[i]) == shown.end()) continue;
    columns.state_names.push_back(model_states[i]);
    columns.states.push_back(i);
  }
  return columns;
}

}  // namespace hysim::study
