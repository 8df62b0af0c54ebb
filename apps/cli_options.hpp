// Options that several `hysim` subcommands share: the model with its scalar type, preset and
// parameters (hysim/study/model.hpp); the fields of SimulationOptions, from their table
// (hysim/run/option_table.hpp); verbosity; strategies and solvers.
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
#include "hysim/study/model.hpp"

namespace hysim::app {

// The program is a client of the library layer (src/hysim/study): its names are the program's.
using namespace hysim::study;

// MODEL (positional, required), --scalar, --param, --preset.
void add_model_options(CLI::App* command, ModelChoice* choice);
// --t0, --initial NAME=VALUE (repeatable), --initial-mode MODE: where the runs start.
void add_start_options(CLI::App* command, StartChoice* start);
// One flag per option of option_table() in `groups` (none given: every option), bound to
// its field of *options, which holds the default: --t-end X, ...; a bool option is the pair
// --sliding / --no-sliding.
void add_simulation_options(CLI::App* command, SimulationOptions* options,
                            std::initializer_list<OptionGroup> groups = {});
// --reference FILE (hysim/study/reference_file.hpp).
void add_reference_option(CLI::App* command, ModelChoice* choice);
// -v / -vv.
void add_verbosity_flag(CLI::App* command, int* verbosity);
// --strategies a,b,... and --solvers x,y,... (comma-separated lists).
void add_strategies_option(CLI::App* command, std::vector<std::string>* strategies, const std::string& default_text);
void add_solvers_option(CLI::App* command, std::vector<std::string>* solvers, const std::string& default_text);

}  // namespace hysim::app
