#include "apps/cli_options.hpp"

#include "hysim/rules/to_model.hpp"

#include <algorithm>
#include <charconv>
#include <iostream>
#include <map>
#include <type_traits>
#include <variant>

#include "apps/stop.hpp"
#include "hysim/core/errors.hpp"
#include "hysim/events/strategy.hpp"
#include "hysim/lang/build.hpp"
#include "hysim/solvers/stepper.hpp"
#include "hysim/core/printable.hpp"

namespace hysim::app {

const ModelEntry& ModelChoice::entry() const { return loaded ? *loaded : model_entry(model); }

const ModelEntry& model_entry(const std::string& name) {
  if (rules::names_rule_table(name)) {  // a rule table on the engine (rules/to_model.hpp)
    static std::map<std::string, ModelEntry> tables;
    auto found = tables.find(name);
    if (found == tables.end()) {
      std::string warnings;
      found = tables.emplace(name, rules::engine_entry(rules::read_rule_table(name), &warnings)).first;
      std::cerr << printable_lines(warnings);  // they quote the file's names
    }
    return found->second;
  }
  if (!lang::names_model_file(name)) return find_model(name);
  static std::map<std::string, ModelEntry> loaded;
  auto found = loaded.find(name);
  if (found == loaded.end()) {
    std::string warnings, backend;
    lang::NativeOptions native = lang::NativeOptions::from_environment();
    native.stop = &stop_flag();  // SIGINT, SIGTERM, --time-limit stop the compiler too
    found = loaded.emplace(name, lang::load_model_file(name, &warnings, native, &backend)).first;
    std::cerr << printable_lines(warnings);  // they quote the file's names
    // Without native code the file still runs, on the register tape, about 2.5 times slower.
    if (backend.rfind("tape (", 0) == 0) std::cerr << "hysim: note: " << printable(name) << " runs on the " << printable(backend) << "\n";
  }
  return found->second;
}

ParameterValues ModelChoice::values() const {
  const ModelEntry& model_entry = entry();
  ParameterValues result = model_entry.default_values();
  if (!preset.empty()) result.apply_preset(model_entry.presets, preset);
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

void add_model_options(CLI::App* command, ModelChoice* choice) {
  command->add_option("model", choice->model, "a built-in model (see `hysim list`) or a model file (FILE.hym)")->required();
  command->add_option("--scalar", choice->scalar, "double, long-double or float128")->default_val("double");
  command->add_option("--param", choice->params, "override a parameter: NAME=VALUE (repeatable)");
  command->add_option("--preset", choice->preset, "a named parameter set of the model");
}

void add_simulation_options(CLI::App* command, SimulationOptions* options, std::initializer_list<OptionGroup> groups) {
  for (const OptionInfo& info : option_table()) {
    if (groups.size() > 0 && std::find(groups.begin(), groups.end(), info.group) == groups.end()) continue;
    std::visit(
        [&]<class T>(T SimulationOptions::*member) {
          if constexpr (std::is_same_v<T, bool>) {
            command->add_flag(info.flag() + ",!" + info.negated_flag(), options->*member, info.description());
          } else if constexpr (std::is_integral_v<T>) {
            // A whole number that does not fit is refused, not clamped.
            command->add_option(info.flag(), options->*member, info.description())
                ->default_str(option_text(*options, info))
                ->check(CLI::Validator(
                    [](std::string& text) -> std::string {
                      T value{};
                      const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
                      if (error == std::errc::result_out_of_range) return "'" + text + "' is out of range";
                      if (error != std::errc{} || end != text.data() + text.size()) return "'" + text + "' is not a whole number";
                      return "";
                    },
                    "INTEGER"));
          } else if constexpr (std::is_same_v<T, Decimal>) {
            // Kept as typed: each run parses the text in its own scalar type (run/decimal.hpp).
            const std::string what = std::string("option ") + info.name;
            Decimal* field = &(options->*member);
            command
                ->add_option_function<std::string>(
                    info.flag(), [field, what](const std::string& text) { *field = Decimal(text, what); },
                    info.description())
                ->type_name("FLOAT")
                ->default_str(option_text(*options, info))
                ->check(CLI::Validator(
                    [what](std::string& text) -> std::string {
                      try {
                        (void)Decimal(text, what);
                      } catch (const InvalidArgument& error) {
                        return error.what();
                      }
                      return "";
                    },
                    ""));
          } else {
            command->add_option(info.flag(), options->*member, info.description())
                ->default_str(option_text(*options, info));
          }
        },
        info.member);
  }
}

void add_reference_option(CLI::App* command, ModelChoice* choice) {
  command->add_option("--reference", choice->reference_file,
                      "measure against the events.csv of an earlier run (e.g. --scalar float128 with tight "
                      "tolerances) instead of the model's exact reference");
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
  for (const auto& name : names) find_strategy(name);
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

}  // namespace hysim::app
