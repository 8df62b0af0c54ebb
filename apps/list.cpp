// `hysim list`: the models with their parameters and presets, the solvers, the strategies.
#include <iomanip>
#include <iostream>

#include "apps/commands.hpp"
#include "apps/table.hpp"
#include "hysim/events/strategy.hpp"
#include "hysim/models/catalog.hpp"
#include "hysim/solvers/stepper.hpp"

namespace hysim::app {

namespace {

int list_catalogs() {
  for (const auto& entry : model_catalog()) {
    std::cout << entry.name << "\n  " << entry.summary << "\n  source: " << entry.source << "\n";
    for (const auto& p : entry.parameters) {
      std::cout << "    " << std::left << std::setw(10) << p.name << " = " << std::setw(8) << p.default_value << "  "
                << p.meaning << "\n";
    }
    for (const auto& preset : entry.presets) std::cout << "    preset " << preset.name << ": " << preset.description << "\n";
  }
  std::cout << "\nsolvers:\n";
  Table solvers;
  for (const auto& solver : solver_catalog()) solvers.rows.push_back({"", solver.name, solver.description});
  solvers.print(std::cout);
  std::cout << "\nstrategies:\n";
  Table strategies;
  for (const auto& strategy : strategy_catalog()) {
    strategies.rows.push_back({"", strategy.name, strategy.description + " (" + strategy.source + ")"});
  }
  strategies.print(std::cout);
  return 0;
}

}  // namespace

Command add_list_command(CLI::App& app) {
  return {app.add_subcommand("list", "list the models, their parameters, the solvers and the strategies"),
          list_catalogs};
}

}  // namespace hysim::app
