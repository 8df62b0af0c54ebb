// `hysim check FILE.hym` (or TABLE.rules.tsv): parses, resolves and builds a model file in every scalar type with
// its defaults (or the given preset and parameters) without running it; prints its
// warnings and a one-line summary. Exit 0 when it is well formed, 2 otherwise.
#include <iostream>
#include <memory>

#include "apps/cli_options.hpp"
#include "apps/commands.hpp"
#include "hysim/core/errors.hpp"
#include "hysim/rules/to_model.hpp"
#include "hysim/core/printable.hpp"

namespace hysim::app {

namespace {

// A rule table: read it, and say whether the engine can run it too (docs/rule-tables.md).
int check_rule_table(const std::string& file, bool print_model) {
  const rules::RuleTable table = rules::read_rule_table(file);
  if (print_model) {  // errors go to the caller: exit 2 with the row and column
    std::cout << rules::model_text(table);
    return 0;
  }
  std::size_t states = 0;
  for (const auto& logic : table.logic) states += logic.kind == rules::LogicKind::kPredicate ? 0 : 1;
  std::cout << printable(file) << ": rule table '" << printable(table.name) << "' is well formed: " << table.reals.size()
            << " real variables, " << table.logic.size() - states << " predicates, " << states << " logic states, "
            << table.situation_rules.size() << " situation rules, " << table.init_rules.size() << " init rules, "
            << table.rules.size() << " rules\n";
  try {
    std::string warnings;
    (void)rules::engine_entry(table, &warnings);
    std::cerr << printable_lines(warnings);
    std::cout << "  it runs on the rule interpreter and on the engine (--strategy, --solver or --scalar)\n";
  } catch (const InvalidArgument& e) {
    std::cout << "  it runs on the rule interpreter; not yet on the engine:\n" << printable_lines(e.what()) << "\n";
  }
  return 0;
}

int check(const ModelChoice& choice, bool print_model) {
  if (rules::names_rule_table(choice.model)) return check_rule_table(choice.model, print_model);
  if (print_model) throw InvalidArgument("option --print-model: only a rule table (TABLE.rules.tsv) is translated to a model file");
  const ModelEntry& entry = choice.entry();  // warnings go to stderr here
  const ParameterValues values = choice.values();
  const Model<double> model = entry.make<double>(values);
  (void)entry.make<long double>(values);
  (void)entry.make<float128>(values);
  std::size_t transitions = 0;
  for (const auto& mode : model.modes) transitions += mode.transitions.size();
  std::cout << printable(choice.model) << ": model '" << printable(model.name) << "' is well formed: " << model.state_size() << " states, "
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
  auto print_model = std::make_shared<bool>(false);
  cmd->add_flag("--print-model", *print_model, "a rule table: print the model file the engine runs (docs/rule-tables.md)");
  return {cmd, [choice, print_model] { return check(*choice, *print_model); }};
}

}  // namespace hysim::app
