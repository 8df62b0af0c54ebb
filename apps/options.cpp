// `hysim options`: the options of a run, one per field of SimulationOptions, from their table
// (hysim/run/option_table.hpp): flag, kind, default and meaning. With --markdown, as a Markdown
// table: the one in docs/cli.md (tests/cli_test.sh checks that the document holds it).
#include <iostream>
#include <memory>
#include <string>
#include <variant>

#include "apps/commands.hpp"
#include "apps/table.hpp"
#include "hysim/run/option_table.hpp"

namespace hysim::app {

namespace {

int print_options(bool markdown) {
  const SimulationOptions defaults;
  const std::string q = markdown ? "`" : "";  // Markdown shows flags and defaults as code
  Table table;
  table.header = {"option", "kind", "default", "meaning"};
  for (const OptionInfo& info : option_table()) {
    std::string flags = q + info.flag() + q;
    std::string default_text = option_text(defaults, info);
    if (std::holds_alternative<bool SimulationOptions::*>(info.member)) {  // --name / --no-name
      flags += ", " + q + info.negated_flag() + q;
      default_text = defaults.*std::get<bool SimulationOptions::*>(info.member) ? info.flag() : info.negated_flag();
    }
    table.rows.push_back({flags, info.kind(), q + default_text + q, info.description()});
  }
  if (markdown) {
    table.print_markdown(std::cout);
  } else {
    table.print(std::cout);
  }
  return 0;
}

}  // namespace

Command add_options_command(CLI::App& app) {
  auto markdown = std::make_shared<bool>(false);
  CLI::App* cmd = app.add_subcommand("options", "list the options of a run (hysim run) with their defaults");
  cmd->add_flag("--markdown", *markdown, "as a Markdown table: the one in docs/cli.md");
  return {cmd, [markdown] { return print_options(*markdown); }};
}

}  // namespace hysim::app
