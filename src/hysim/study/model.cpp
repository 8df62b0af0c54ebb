#include "hysim/study/model.hpp"

#include <algorithm>
#include <iostream>
#include <map>

#include "hysim/core/errors.hpp"
#include "hysim/core/printable.hpp"
#include "hysim/events/strategy.hpp"
#include "hysim/lang/build.hpp"
#include "hysim/output/run_report.hpp"
#include "hysim/rules/to_model.hpp"
#include "hysim/solvers/stepper.hpp"
#include "hysim/study/stop.hpp"

namespace hysim::study {

ResolvedModel resolve_model(const std::string& name, const ResolveOptions& options) {
  ResolvedModel out;
  if (rules::names_rule_table(name)) {  // a rule table on the engine (rules/to_model.hpp)
    out.entry = std::make_shared<const ModelEntry>(rules::engine_entry(rules::read_rule_table(name), &out.warnings));
  } else if (lang::names_model_file(name)) {
    lang::NativeOptions native = lang::NativeOptions::from_environment();
    native.stop = options.stop;
    out.entry = std::make_shared<const ModelEntry>(lang::load_model_file(name, &out.warnings, native, &out.backend));
  } else {
    // The catalog's own entry, not a copy: it lives as long as the process.
    out.entry = std::shared_ptr<const ModelEntry>(std::shared_ptr<const ModelEntry>(), &find_model(name));
  }
  return out;
}

const ModelEntry& model_entry(const std::string& name) {
  static std::map<std::string, ResolvedModel> resolved;
  auto found = resolved.find(name);
  if (found == resolved.end()) {
    found = resolved.emplace(name, resolve_model(name, {&stop_flag()})).first;
    const ResolvedModel& model = found->second;
    std::cerr << printable_lines(model.warnings);  // they quote the file's names
    // Without native code the file still runs, on the register tape, about 2.5 times slower.
    if (model.backend.rfind("tape (", 0) == 0) {
      std::cerr << "hysim: note: " << printable(name) << " runs on the " << printable(model.backend) << "\n";
    }
  }
  return *found->second.entry;
}

const ModelEntry& ModelChoice::entry() const { return loaded ? *loaded : model_entry(model); }

ParameterValues ModelChoice::values() const {
  const ModelEntry& chosen = entry();
  ParameterValues result = chosen.default_values();
  if (!preset.empty()) result.apply_preset(chosen.presets, preset);
  for (const auto& assignment : params) result.set_assignment(assignment);
  return result;
}

template <class S>
void apply_start(const StartChoice& start, Model<S>* model) {
  const std::string where = "model '" + model->name + "'";
  if (!start.t0.empty()) model->t0 = parse_decimal<S>(start.t0, "--t0");
  for (const std::string& assignment : start.initial) {
    const std::size_t eq = assignment.find('=');
    if (eq == std::string::npos || eq == 0) {
      throw InvalidArgument("--initial " + printable(assignment) + ": expected NAME=VALUE, NAME a state of " + where);
    }
    const std::string name = assignment.substr(0, eq);
    const auto found = std::find(model->state_names.begin(), model->state_names.end(), name);
    if (found == model->state_names.end()) {
      std::string states;
      for (const auto& state : model->state_names) states += (states.empty() ? "" : ", ") + state;
      throw InvalidArgument("--initial " + printable(name) + ": " + where + " has no state of that name (its states: " +
                            states + ")");
    }
    model->x0[static_cast<std::size_t>(found - model->state_names.begin())] =
        parse_decimal<S>(assignment.substr(eq + 1), "--initial " + name);
  }
  if (!start.mode.empty()) {
    const int mode = model->find_mode(start.mode);
    if (mode < 0) {
      std::string modes;
      for (const auto& m : model->modes) modes += (modes.empty() ? "" : ", ") + m.name;
      throw InvalidArgument("--initial-mode " + printable(start.mode) + ": " + where +
                            " has no mode of that name (its modes: " + modes + ")");
    }
    model->initial_mode = mode;
  }
}

template void apply_start<double>(const StartChoice&, Model<double>*);
template void apply_start<long double>(const StartChoice&, Model<long double>*);
template void apply_start<float128>(const StartChoice&, Model<float128>*);

Decimal ModelChoice::t_end_or(const Decimal& fallback) const {
  if (preset.empty()) return fallback;
  for (const Preset& p : entry().presets) {
    if (p.name != preset || !(p.t_end > 0)) continue;
    return p.t_end_text.empty() ? Decimal(p.t_end) : Decimal(p.t_end_text, "t_end of preset '" + p.name + "'");
  }
  return fallback;
}

std::vector<std::string> checked_strategies(const std::vector<std::string>& names) {
  if (names.empty()) {
    std::vector<std::string> all;
    for (const auto& info : strategy_catalog()) {
      if (!info.opt_in) all.push_back(info.name);
    }
    return all;
  }
  for (const auto& name : names) find_strategy(name);
  return names;
}

std::vector<std::string> checked_strategies(const std::vector<std::string>& names, const SimulationOptions& options,
                                            const SettingsByStrategy& settings) {
  std::vector<std::string> checked = checked_strategies(names);
  for (const auto& [name, own] : settings) {
    if (std::find(checked.begin(), checked.end(), name) == checked.end()) {
      throw InvalidArgument("settings for strategy '" + name + "', which is not among the strategies run");
    }
  }
  for (const auto& name : checked) {
    const auto own = settings.find(name);
    find_strategy(name).check(options, own == settings.end() ? StrategySettings{} : own->second);
  }
  return checked;
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

nlohmann::json request_options_json(const SimulationOptions& options, const ModelChoice& choice,
                                    const ParameterValues& values) {
  nlohmann::json params = nlohmann::json::object();
  for (const auto& [name, text] : values.values()) params[name] = text;
  nlohmann::json json = hysim::options_json(options);
  json["scalar"] = choice.scalar;
  json["preset"] = choice.preset;
  json["parameters"] = params;
  if (choice.start.moved()) {  // only when moved: the files of a plain run keep their keys
    nlohmann::json start = nlohmann::json::object();
    if (!choice.start.t0.empty()) start["t0"] = choice.start.t0;
    if (!choice.start.initial.empty()) start["initial"] = choice.start.initial;
    if (!choice.start.mode.empty()) start["mode"] = choice.start.mode;
    json["start"] = start;
  }
  return json;
}

}  // namespace hysim::study
