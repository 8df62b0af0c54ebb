// The subcommands of `hysim`, one file each (apps/<name>.cpp). Each add_*_command registers
// its options on the program's CLI11 parser and returns what to run when it was chosen.
#pragma once

#include <CLI/CLI.hpp>
#include <functional>

namespace hysim::app {

struct Command {
  CLI::App* parser = nullptr;    // the subcommand's own parser
  std::function<int()> execute;  // runs it after parsing; returns the exit code
};

// `verbosity` collects -v flags; main applies it before executing.
Command add_list_command(CLI::App& app);
Command add_check_command(CLI::App& app);
Command add_options_command(CLI::App& app);
Command add_run_command(CLI::App& app, int* verbosity);
Command add_compare_command(CLI::App& app, int* verbosity);
Command add_reproduce_command(CLI::App& app, int* verbosity);
Command add_workprecision_command(CLI::App& app, int* verbosity);
Command add_sweep_command(CLI::App& app, int* verbosity);

}  // namespace hysim::app
