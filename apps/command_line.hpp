// The program's command line: CLI11's parser with every subcommand and the options they
// share, built in one place for `hysim` (apps/main.cpp) and for the option fuzzer
// (tests/fuzz/cli_options_target.hpp), which parses and checks but never executes.
#pragma once

#include <CLI/CLI.hpp>
#include <vector>

#include "apps/commands.hpp"

namespace hysim::app {

class CommandLine {
 public:
  CommandLine();
  // The parsers hold pointers to the fields below.
  CommandLine(const CommandLine&) = delete;
  CommandLine& operator=(const CommandLine&) = delete;

  CLI::App& app() { return app_; }
  int verbosity() const { return verbosity_; }
  double time_limit() const { return time_limit_; }
  // After app().parse(): the chosen command, once the checks that need no model passed
  // (--time-limit in range, --out not empty). Throws InvalidArgument naming the option.
  const Command& chosen() const;

 private:
  CLI::App app_{"hysim: simulation of hybrid dynamic systems"};
  int verbosity_ = 0;
  double time_limit_ = 0;
  std::vector<Command> commands_;
};

}  // namespace hysim::app
