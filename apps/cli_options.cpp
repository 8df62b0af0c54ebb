#include "apps/cli_options.hpp"

#include "hysim/core/errors.hpp"
#include "hysim/events/strategy.hpp"
#include "hysim/solvers/stepper.hpp"

namespace hysim::app {

ParameterValues ModelChoice::values() const {
  const ModelEntry& model_entry = entry();
  ParameterValues result = model_entry.default_values();
  if (!preset.empty()) result.apply_preset(model_entry.presets, preset);
  for (const auto& assignment : params) result.set_assignment(assignment);
  return result;
}

double ModelChoice::t_end_or(double fallback) const {
  if (preset.empty()) return fallback;
  for (const Preset& p : entry().presets) {
    if (p.name == preset && p.t_end > 0) return p.t_end;
  }
  return fallback;
}

void add_model_options(CLI::App* command, ModelChoice* choice) {
  command->add_option("model", choice->model, "model name (see `hysim list`)")->required();
  command->add_option("--scalar", choice->scalar, "double, long-double or float128")->default_val("double");
  command->add_option("--param", choice->params, "override a parameter: NAME=VALUE (repeatable)");
  command->add_option("--preset", choice->preset, "a named parameter set of the model");
}

void add_tolerance_options(CLI::App* command, SimulationOptions* options) {
  const SimulationOptions defaults;
  command->add_option("--t-end", options->t_end, "end time [s]")->default_val(defaults.t_end);
  command->add_option("--rtol", options->rtol, "relative tolerance")->default_val(defaults.rtol);
  command->add_option("--atol", options->atol, "absolute tolerance")->default_val(defaults.atol);
}

void add_strategy_tuning_options(CLI::App* command, SimulationOptions* options) {
  const SimulationOptions defaults;
  command->add_option("--gamma", options->gamma, "gamma rule: fraction of the predicted time to a guard, 0 < gamma < 1")
      ->default_val(defaults.gamma);
  command->add_option("--h-min", options->h_min, "smallest step of the gamma approach [s]")
      ->default_val(defaults.h_min);
  command->add_option("--refine-gamma", options->refine_gamma,
                      "strategy gamma-refine: multiple of the predicted time to a guard a step may cover, 0 < r < 2")
      ->default_val(defaults.refine_gamma);
  command->add_option("--samples", options->samples, "strategy sampled: interior points checked per step")
      ->default_val(defaults.samples);
  command->add_flag("--sliding,!--no-sliding", options->sliding,
                    "equivalent (Filippov) dynamics on sliding surfaces (default); --no-sliding: the modes chatter");
  command->add_option("--zeno-events", options->zeno_events,
                      "Zeno: consecutive shrinking intervals between pinnacle events, >= 3")
      ->default_val(defaults.zeno_events);
  command->add_option("--zeno-ratio-tolerance", options->zeno_ratio_tolerance,
                      "Zeno: relative spread allowed among the intervals' ratios")
      ->default_val(defaults.zeno_ratio_tolerance);
  command->add_option("--zeno-horizon", options->zeno_horizon,
                      "Zeno: declared once the predicted time left to the accumulation is below this [s]")
      ->default_val(defaults.zeno_horizon);
}

void add_verbosity_flag(CLI::App* command, int* verbosity) {
  command->add_flag("-v", *verbosity, "log each transition (-v) or each step (-vv) to stderr");
}

void add_strategies_option(CLI::App* command, std::vector<std::string>* strategies, const std::string& default_text) {
  command->add_option("--strategies", *strategies, "comma-separated strategy names (default: " + default_text + ")")
      ->delimiter(',');
}

void add_solvers_option(CLI::App* command, std::vector<std::string>* solvers, const std::string& default_text) {
  command->add_option("--solvers", *solvers, "comma-separated solver names (default: " + default_text + ")")
      ->delimiter(',');
}

std::vector<std::string> checked_strategies(const std::vector<std::string>& names) {
  if (names.empty()) {
    std::vector<std::string> all;
    for (const auto& info : strategy_catalog()) all.push_back(info.name);
    return all;
  }
  for (const auto& name : names) parse_strategy(name);
  return names;
}

std::vector<std::string> checked_solvers(const std::vector<std::string>& names) {
  std::vector<std::string> all;
  std::string known;
  for (const auto& info : solver_catalog()) {
    all.push_back(info.name);
    known += (known.empty() ? "" : ", ") + info.name;
  }
  if (names.empty()) return all;
  for (const auto& name : names) {
    if (std::find(all.begin(), all.end(), name) == all.end()) {
      throw InvalidArgument("unknown solver '" + name + "' (known: " + known + ")");
    }
  }
  return names;
}

nlohmann::json options_json(const SimulationOptions& o, const ModelChoice& choice, const ParameterValues& values) {
  nlohmann::json params = nlohmann::json::object();
  for (const auto& [name, text] : values.values()) params[name] = text;
  return {{"t_end", o.t_end},
          {"solver", o.solver},
          {"strategy", o.strategy},
          {"scalar", choice.scalar},
          {"rtol", o.rtol},
          {"atol", o.atol},
          {"initial_step", o.initial_step},
          {"max_step", o.max_step},
          {"min_step", o.min_step},
          {"fixed_step", o.fixed_step},
          {"event_tolerance", o.event_tolerance},
          {"gamma", o.gamma},
          {"h_min", o.h_min},
          {"refine_gamma", o.refine_gamma},
          {"samples", o.samples},
          {"sliding", o.sliding},
          {"zeno_events", o.zeno_events},
          {"zeno_ratio_tolerance", o.zeno_ratio_tolerance},
          {"zeno_horizon", o.zeno_horizon},
          {"chain_limit", o.chain_limit},
          {"event_limit", o.event_limit},
          {"preset", choice.preset},
          {"parameters", params}};
}

nlohmann::json stats_json(const RunStatistics& s, double wall_seconds) {
  return {{"steps_accepted", s.steps_accepted}, {"steps_rejected", s.steps_rejected}, {"rhs_evals", s.rhs_evals},
          {"guard_evals", s.guard_evals},       {"root_iterations", s.root_iterations}, {"events", s.events},
          {"transitions", s.transitions},       {"one_sided_events", s.one_sided_events},
          {"wall_seconds", wall_seconds}};
}

}  // namespace hysim::app
