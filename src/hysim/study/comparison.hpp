// The data behind `hysim compare`: the runs, measured against the reference, before they
// become a table. The program prints and writes them; the Python module returns them as dicts
// (docs/python.md).
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "hysim/study/model.hpp"
#include "hysim/study/evaluation.hpp"

namespace hysim::study {

// Every (solver, strategy) combination of one model, against its reference (hysim compare).
struct Comparison {
  Comparison(ModelChoice choice_, ParameterValues values_) : choice(std::move(choice_)), values(std::move(values_)) {}

  ModelChoice choice;
  ParameterValues values;
  SimulationOptions base;  // the options shared by the runs (solver: the first one)
  std::vector<std::string> solvers, strategies;
  std::optional<Reference> reference;
  std::string why_no_reference;  // when there is none
  ErrorColumns errors;           // events 1 and 7 of the reference, every state
  std::vector<Evaluation> runs;  // solver by solver, strategy by strategy

  const Reference* reference_or_null() const { return reference ? &*reference : nullptr; }
  // compare.json (docs/cli.md, `hysim compare`).
  nlohmann::json json() const;
};

struct CompareRequest {
  ModelChoice choice;
  SimulationOptions options;            // everything but solver and strategy
  std::vector<std::string> strategies;  // empty: every strategy
  std::vector<std::string> solvers;     // empty: options.solver alone
  SettingsByStrategy settings;          // registered strategies' own options, by strategy name
  std::string out_dir;                  // the program's: compare.csv and compare.json there
  int jobs = 0;                         // threads (0: every core)
};

// Checks the choice, the names and the options (InvalidArgument), then runs every combination.
Comparison compare_runs(const CompareRequest& request);

// One run as compare.json holds it: solver, strategy, outcome, note, stats, one_sided_share,
// and against a reference matching, max_abs_dt and errors by column name.
nlohmann::json run_json(const Evaluation& run, const ErrorColumns& errors, const Reference* reference);

}  // namespace hysim::study
