// A model as a study names it: a built-in model of the catalog, a model file (.hym) or a rule
// table (.rules.tsv), with its scalar type, preset and parameter values; and the checks of the
// strategy and solver names a study runs.
#pragma once

#include <atomic>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "hysim/core/parameters.hpp"
#include "hysim/core/scalar.hpp"
#include "hysim/events/strategy.hpp"
#include "hysim/models/catalog.hpp"
#include "hysim/run/decimal.hpp"
#include "hysim/simulator.hpp"

namespace hysim::study {

// A model turned from its name, with what reading it said.
struct ResolvedModel {
  std::shared_ptr<const ModelEntry> entry;
  std::string warnings;  // "file:line:column: warning: ..." lines of a model file or rule table
  std::string backend;   // how a model file runs ("native", "tape (...)"); "" otherwise
};

struct ResolveOptions {
  const std::atomic<bool>* stop = nullptr;  // raised: a model file's compiler stops
};

// A rule table (names_rule_table: .rules.tsv) on the engine, a model file (names_model_file:
// .hym or a path) compiled afresh, or else the built-in model of that name. Throws
// InvalidArgument naming what it could not read.
ResolvedModel resolve_model(const std::string& name, const ResolveOptions& options = {});

// resolve_model once per process for each name (a model file is compiled once), with the
// process's stop flag (hysim/study/stop.hpp); its warnings, and a note when a model file runs
// on the register tape, go to stderr the first time.
const ModelEntry& model_entry(const std::string& name);

// Where a run starts when not where the model does: --t0, --initial NAME=VALUE (repeatable) and
// --initial-mode MODE on the command line, t0=, x0= and mode= in Python. The values are read in
// the run's scalar type, as parameters are.
struct StartChoice {
  std::string t0;                    // "": the model's t0
  std::vector<std::string> initial;  // NAME=VALUE for states, applied in order after the model's x0
  std::string mode;                  // "": the model's initial mode
  bool moved() const { return !t0.empty() || !initial.empty() || !mode.empty(); }
};

// Applies `start` to a built model. Throws InvalidArgument naming an unknown state (with the
// model's states) or mode (with its modes), or a value that is not a finite number.
template <class S>
void apply_start(const StartChoice& start, Model<S>* model);

// A model as a study chose it.
struct ModelChoice {
  std::string model;
  std::string scalar = "double";
  std::string preset;
  std::vector<std::string> params;  // NAME=VALUE, applied in order after the preset
  std::string reference_file;       // an events.csv to measure against (compare, workprecision)
  std::shared_ptr<const ModelEntry> loaded;  // when set, the model itself (else model_entry(model))

  StartChoice start;                // where the runs start (default: where the model does)

  const ModelEntry& entry() const;
  // The model's defaults, then the preset, then each of params. Throws InvalidArgument.
  ParameterValues values() const;
  // The model built from `values`, started where `start` says.
  template <class S>
  Model<S> make(const ParameterValues& values) const {
    Model<S> built = entry().make<S>(values);
    apply_start(start, &built);
    return built;
  }
  ScalarKind scalar_kind() const { return parse_scalar_kind(scalar); }
  // The preset's end time, when it names one (Preset::t_end > 0), as its file wrote it, else
  // `fallback`.
  Decimal t_end_or(const Decimal& fallback) const;
};

// Checks each name against strategy_catalog() / solver_catalog(); throws InvalidArgument
// naming the first unknown one. An empty list means every entry of the catalog.
std::vector<std::string> checked_strategies(const std::vector<std::string>& names);
// ... and each strategy's own tuning in `options` (gamma, refine_gamma, samples, ...), so that a
// bad value is refused before any run, not once per run of the strategies that read it.
// `settings` holds the own options of registered strategies by strategy name (StrategySettings,
// events/strategy.hpp); a name there that is not among the strategies run is refused.
using SettingsByStrategy = std::map<std::string, StrategySettings, std::less<>>;
std::vector<std::string> checked_strategies(const std::vector<std::string>& names, const SimulationOptions& options,
                                            const SettingsByStrategy& settings = {});
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

}  // namespace hysim::study
