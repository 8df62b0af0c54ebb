// Options and JSON fragments that several `hysim` subcommands share: the model with its
// scalar type, preset and parameters; the fields of SimulationOptions, from their table
// (hysim/run/option_table.hpp); verbosity; the options and statistics blocks of the JSON
// reports; and dispatch on the scalar type.
#pragma once

#include <CLI/CLI.hpp>
#include <initializer_list>
#include <nlohmann/json.hpp>

#include "hysim/output/run_report.hpp"
#include <memory>
#include <string>
#include <vector>

#include "hysim/core/parameters.hpp"
#include "hysim/core/scalar.hpp"
#include "hysim/simulator.hpp"
#include "hysim/models/catalog.hpp"
#include "hysim/run/option_table.hpp"

namespace hysim::app {

// A model as the command line chose it.
struct ModelChoice {
  std::string model;
  std::string scalar = "double";
  std::string preset;
  std::vector<std::string> params;  // NAME=VALUE, applied in order after the preset
  std::string reference_file;       // --reference: an events.csv to measure against (compare, workprecision)
  std::shared_ptr<const ModelEntry> loaded;  // when set, the model itself (the Python module's)

  // `loaded`, else the built-in model of that name, or the model file at that path
  // (lang/build.hpp names_model_file), compiled once per program run; its warnings go to
  // stderr then.
  const ModelEntry& entry() const;
  // The model's defaults, then the preset, then each --param. Throws InvalidArgument.
  ParameterValues values() const;
  ScalarKind scalar_kind() const { return parse_scalar_kind(scalar); }
  // The preset's end time, when it names one (Preset::t_end > 0), as its file wrote it, else
  // `fallback`.
  Decimal t_end_or(const Decimal& fallback) const;
};

// A built-in model by name, or a model file by path (ending in .hym or holding a '/'), whose
// compile warnings go to stderr the first time it is loaded. Throws InvalidArgument.
const ModelEntry& model_entry(const std::string& name);

// MODEL (positional, required), --scalar, --param, --preset.
void add_model_options(CLI::App* command, ModelChoice* choice);
// One flag per option of option_table() in `groups` (none given: every option), bound to
// its field of *options, which holds the default: --t-end X, ...; a bool option is the pair
// --sliding / --no-sliding.
void add_simulation_options(CLI::App* command, SimulationOptions* options,
                            std::initializer_list<OptionGroup> groups = {});
// --reference FILE (apps/reference_file.hpp).
void add_reference_option(CLI::App* command, ModelChoice* choice);
// -v / -vv.
void add_verbosity_flag(CLI::App* command, int* verbosity);
// --strategies a,b,... and --solvers x,y,... (comma-separated lists).
void add_strategies_option(CLI::App* command, std::vector<std::string>* strategies, const std::string& default_text);
void add_solvers_option(CLI::App* command, std::vector<std::string>* solvers, const std::string& default_text);

// Checks each name against strategy_catalog() / solver_catalog(); throws InvalidArgument
// naming the first unknown one. An empty list means every entry of the catalog.
std::vector<std::string> checked_strategies(const std::vector<std::string>& names);
std::vector<std::string> checked_solvers(const std::vector<std::string>& names);

// Every field of SimulationOptions (hysim::options_json) with the model choice: scalar, preset
// and every parameter's text.
nlohmann::json request_options_json(const SimulationOptions& options, const ModelChoice& choice,
                                    const ParameterValues& values);

// Calls body.template operator()<S>() with S the scalar type of `kind`, returning its result.
template <class Body>
decltype(auto) with_scalar(ScalarKind kind, Body&& body) {
  switch (kind) {
    case ScalarKind::kLongDouble: return body.template operator()<long double>();
    case ScalarKind::kFloat128: return body.template operator()<float128>();
    case ScalarKind::kDouble: break;
  }
  return body.template operator()<double>();
}

}  // namespace hysim::app
