// `hysim check FILE.hym`: parses, resolves and builds a model file in every scalar type with
// its defaults (or the given preset and parameters) without running it; prints its
// warnings and a one-line summary. Exit 0 when it is well formed, 2 otherwise.
#include <iostream>
#include <memory>

#include "apps/cli_options.hpp"
#include "apps/commands.hpp"

namespace hysim::app {

namespace {

int check(const ModelChoice& choice) {
  const ModelEntry& entry = choice.entry();  // warnings go to stderr here
  const ParameterValues values = choice.values();
  const Model<double> model = entry.make<double>(values);
  (void)entry.make<long double>(values);
  (void)entry.make<float128>(values);
  std::size_t transitions = 0;
  for (const auto& mode : model.modes) transitions += mode.transitions.size();
  std::cout << choice.model << ": model '" << model.name << "' is well formed: " << model.state_size() << " states, "
            << model.modes.size() << " modes, " << transitions << " transitions, " << entry.parameters.size()
            << " parameters, " << entry.presets.size() << " presets\n";
  return 0;
}

}  // namespace

Command add_check_command(CLI::App& app) {
  auto choice = std::make_shared<ModelChoice>();
  CLI::App* cmd = app.add_subcommand("check", "parse and check a model file without running it");
  cmd->add_option("model", choice->model, "the model file (FILE.hym), or a built-in model")->required();
  cmd->add_option("--param", choice->params, "override a parameter: NAME=VALUE (repeatable)");
  cmd->add_option("--preset", choice->preset, "a named parameter set of the model");
  return {cmd, [choice] { return check(*choice); }};
}

}  // namespace hysim::app
