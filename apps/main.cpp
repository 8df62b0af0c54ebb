// hysim: the command-line program (docs/cli.md).
//
//   hysim list [MODEL]                    the catalogs, or one model (or model file) in full
//   hysim check FILE.hym                  parse and check a model file without running it
//   hysim options [--markdown]            the options of a run with their defaults
//   hysim run MODEL [options]             one run: event table, CSV and JSON files (MODEL: a
//                                         built-in name or a model file, here and below)
//   hysim compare MODEL [options]         solvers x strategies against the model's reference
//   hysim reproduce NAME [options]        a published table, beside our strategies (pwm-table1)
//   hysim workprecision MODEL [options]   error against work over a sweep of tolerances
//   hysim sweep MODEL --param ... [--jobs N]  many runs over a grid or a sample of parameters
//
// Each subcommand lives in its own file (apps/commands.hpp). Exit codes: 0 success, 2 bad
// arguments (syntax or hysim::InvalidArgument), 1 a failed run or any other error (out of
// memory included), 130 / 143 / 124 a command stopped by SIGINT / SIGTERM / its --time-limit
// (apps/stop.hpp).
#include <CLI/CLI.hpp>
#include <csignal>
#include <iostream>
#include <new>
#include <set>
#include <string>
#include <vector>

#include "apps/commands.hpp"
#include "apps/stop.hpp"
#include "hysim/core/errors.hpp"
#include "hysim/core/verbosity.hpp"
#include "hysim/lang/source.hpp"
#include "hysim/peers/peers.hpp"

int main(int argc, char** argv) {
  std::signal(SIGPIPE, SIG_IGN);  // a closed pipe is a write error (checked below), not death
  using namespace hysim::app;
  hysim::register_peers();  // the cvode strategy, when this build has SUNDIALS
  CLI::App app{"hysim: simulation of hybrid dynamic systems"};
  app.require_subcommand(1);
  int verbosity = 0;
  app.add_flag("-v", verbosity, "log each transition (-v) or each step (-vv) to stderr");
  const std::vector<Command> commands = {
      add_list_command(app),          add_check_command(app),           add_options_command(app),         add_run_command(app, &verbosity),
      add_compare_command(app, &verbosity), add_reproduce_command(app, &verbosity),
      add_workprecision_command(app, &verbosity), add_sweep_command(app, &verbosity),
  };

  // Every command that runs a model, a reference or user code takes a wall-clock budget.
  double time_limit = 0;
  const std::set<std::string> running = {"run", "compare", "reproduce", "workprecision", "sweep"};
  for (const auto& command : commands) {
    if (running.count(command.parser->get_name()) == 0) continue;
    command.parser->add_option("--time-limit", time_limit,
                               "[s] wall-clock budget: the runs stop there (reason interrupted, files complete), "
                               "exit 124; 0: none");
  }

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e);  // --help
    std::cerr << "hysim: error: " << e.what() << "\n";
    return 2;
  }
  hysim::set_verbosity(verbosity);
  try {
    if (!(time_limit >= 0 && time_limit <= 3.2e7)) {  // NaN too; a year at most
      throw hysim::InvalidArgument("--time-limit: " + std::to_string(time_limit) +
                                   " is not a number of seconds in [0, 3.2e7] (0: none)");
    }
    for (const auto& command : commands) {
      if (!command.parser->parsed()) continue;
      // --out "" would silently write nothing: a folder must be named.
      const CLI::Option* out = command.parser->get_option_no_throw("--out");
      if (out != nullptr && out->count() > 0 && out->as<std::string>().empty()) {
        throw hysim::InvalidArgument("--out: the folder's name is empty");
      }
      int status = 0;
      {
        const StopOnSignals signals;  // SIGINT, SIGTERM: the runs stop at their next step
        const Deadline deadline(time_limit);
        status = command.execute();
      }
      if (status == 0 && stop_cause() != 0) {  // the command ended early, its rows say interrupted
        std::cerr << "hysim: " << stop_cause_text() << ": the command stopped early; runs cut short say interrupted\n";
        status = stop_exit_code();
      }
      // Output to a full disk or a closed pipe fails here, not silently (the files are written
      // by then: SIGPIPE is ignored, so that `hysim run ... | head` still writes stats.json).
      std::cout.flush();
      if (!std::cout) {
        std::cerr << "hysim: error: writing to standard output failed (a full disk or a closed pipe)\n";
        return status == 0 ? 1 : status;
      }
      return status;
    }
    return 2;
  } catch (const hysim::lang::ModelFileError& e) {
    std::cerr << e.what() << "\n";  // file:line:column: error: ..., with the line and a caret
    return 2;
  } catch (const hysim::InvalidArgument& e) {
    std::cerr << "hysim: error: " << e.what() << "\n";
    return 2;
  } catch (const std::bad_alloc&) {
    // The files written so far are closed (flushed) on the way here, each with complete rows.
    std::cerr << "hysim: error: out of memory (std::bad_alloc); the files written so far hold every complete row\n";
    return 1;
  } catch (const std::exception& e) {
    std::cerr << "hysim: error: " << e.what() << "\n";
    return stop_cause() != 0 ? stop_exit_code() : 1;  // e.g. a compiler stopped by SIGINT: 130
  }
}
