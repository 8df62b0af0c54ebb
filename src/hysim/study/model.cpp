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
    for (const auto& info : strategy_catalog()) all.push_back(info.name);
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
  return json;
}

}  // namespace hysim::study
