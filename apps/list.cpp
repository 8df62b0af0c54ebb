// `hysim list`: the models with their parameters and presets, the solvers, the strategies.
// `hysim list MODEL`: one model (built-in or file) in full: states, parameters, presets,
// modes and transitions in priority order.
#include <iomanip>
#include <iostream>
#include <memory>

#include "apps/cli_options.hpp"
#include "apps/commands.hpp"
#include "apps/table.hpp"
#include "hysim/events/strategy.hpp"
#include "hysim/models/catalog.hpp"
#include "hysim/run/decimal.hpp"
#include "hysim/solvers/stepper.hpp"
#include "hysim/core/printable.hpp"

namespace hysim::app {

namespace {

// Names, descriptions and values come from model files: shown printable.
void print_header(const ModelEntry& entry) {
  std::cout << printable(entry.name) << "\n  " << printable(entry.summary) << "\n  source: " << printable(entry.source)
            << "\n";
  for (const auto& p : entry.parameters) {
    std::cout << "    " << std::left << std::setw(10) << printable(p.name) << " = " << std::setw(8)
              << printable(p.default_value) << "  " << printable(p.meaning);
    // The declared range, which `hysim sweep --declared-ranges` draws from (docs/sweeps.md).
    if (p.has_range()) std::cout << "  in [" << printable(p.low) << ", " << printable(p.high) << "]";
    std::cout << "\n";
  }
  for (const auto& preset : entry.presets) {
    std::cout << "    preset " << printable(preset.name) << ": " << printable(preset.description);
    for (const auto& [name, value] : preset.values) std::cout << " " << printable(name) << "=" << printable(value);
    if (preset.t_end > 0) {  // as the file wrote it, or the double's shortest form
      std::cout << " t_end=" << printable(preset.t_end_text.empty() ? Decimal(preset.t_end).str() : preset.t_end_text);
    }
    std::cout << "\n";
  }
}

int list_catalogs() {
  for (const auto& entry : model_catalog()) print_header(entry);
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

int list_model(const ModelChoice& choice) {
  const ModelEntry& entry = choice.entry();
  const Model<double> model = entry.make<double>(choice.values());
  print_header(entry);
  std::cout << "\nstates (initial value):\n";
  Table states;
  for (std::size_t i = 0; i < model.state_size(); ++i) {
    states.rows.push_back({"", model.state_names[i], format_scalar(model.x0[i])});
  }
  states.print(std::cout);
  std::cout << "\nmodes (initial: " << printable(model.modes[static_cast<std::size_t>(model.initial_mode)].name) << "):\n";
  Table modes;
  for (const auto& mode : model.modes) {
    modes.rows.push_back({"", mode.name, mode.field ? "" : "algebraic", mode.description});
  }
  modes.print(std::cout);
  std::cout << "\ntransitions, in priority order within each mode:\n";
  Table transitions;
  for (const auto& mode : model.modes) {
    for (const auto& tr : mode.transitions) {
      transitions.rows.push_back({"", mode.name + " -> " + tr.target_name, tr.name, "[" + tr.guard.to_string() + "]",
                                  tr.reset ? "with reset" : ""});
    }
  }
  transitions.print(std::cout);
  if (!model.zeno.mode_name.empty()) std::cout << "\nzeno -> " << printable(model.zeno.mode_name) << "\n";
  return 0;
}

}  // namespace

Command add_list_command(CLI::App& app) {
  auto choice = std::make_shared<ModelChoice>();
  CLI::App* cmd = app.add_subcommand("list", "list the models, solvers and strategies, or describe one model (or file)");
  cmd->add_option("model", choice->model, "a built-in model or a model file (FILE.hym) to describe in full");
  cmd->add_option("--param", choice->params, "override a parameter: NAME=VALUE (repeatable)");
  cmd->add_option("--preset", choice->preset, "a named parameter set of the model");
  return {cmd, [choice] { return choice->model.empty() ? list_catalogs() : list_model(*choice); }};
}

}  // namespace hysim::app
