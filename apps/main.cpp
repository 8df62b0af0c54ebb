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
// memory included), 128 + N a command stopped by signal N (SIGINT 130, SIGTERM 143, SIGHUP
// 129, SIGXFSZ 153), 124 by its --time-limit (hysim/study/stop.hpp).
#include <CLI/CLI.hpp>
#include <csignal>
#include <filesystem>
#include <iostream>
#include <new>

#include "apps/command_line.hpp"
#include "hysim/study/stop.hpp"
#include "hysim/core/errors.hpp"
#include "hysim/core/printable.hpp"
#include "hysim/core/verbosity.hpp"
#include "hysim/lang/native.hpp"
#include "hysim/lang/source.hpp"
#include "hysim/peers/peers.hpp"

int main(int argc, char** argv) {
  std::signal(SIGPIPE, SIG_IGN);  // a closed pipe is a write error (checked below), not death
  using namespace hysim::app;
  using namespace hysim::study;
  hysim::register_peers();  // the cvode strategy, when this build has SUNDIALS
  CommandLine command_line;
  CLI::App& app = command_line.app();
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e);  // --help
    std::cerr << "hysim: error: " << hysim::printable_lines(e.what()) << "\n";
    return 2;
  }
  hysim::set_verbosity(command_line.verbosity());
  // Messages quote names and paths from files and from the command line: shown printable,
  // so that their control bytes never reach the terminal (hysim/core/printable.hpp).
  try {
    const Command& command = command_line.chosen();
    int status = 0;
    {
      const StopOnSignals signals;  // SIGINT, SIGTERM, SIGHUP, SIGXFSZ: the runs stop at their next step
      const Deadline deadline(command_line.time_limit());
      status = command.execute();
    }
    if (status == 0 && stop_cause() != 0) {  // the command ended early, its rows say interrupted
      std::cerr << "hysim: " << stop_cause_text() << ": the command stopped early; runs cut short say interrupted, runs never started say not_run\n";
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
  } catch (const hysim::lang::CompileInterrupted& e) {  // SIGINT, SIGTERM, --time-limit while compiling
    std::cerr << "hysim: " << stop_cause_text() << ": " << hysim::printable_lines(e.what()) << "\n";
    return stop_exit_code();
  } catch (const hysim::lang::ModelFileError& e) {
    std::cerr << hysim::printable_lines(e.what()) << "\n";  // file:line:column: error: ..., with the line and a caret
    return 2;
  } catch (const hysim::InvalidArgument& e) {
    std::cerr << "hysim: error: " << hysim::printable_lines(e.what()) << "\n";
    return 2;
  } catch (const std::filesystem::filesystem_error& e) {
    // A folder or file that cannot be made: its path and why, not the library's wording.
    std::cerr << "hysim: error: '" << hysim::printable(e.path1().string()) << "': " << e.code().message() << "\n";
    return 1;
  } catch (const std::bad_alloc&) {
    // The files written so far are closed (flushed) on the way here, each with complete rows.
    std::cerr << "hysim: error: out of memory (std::bad_alloc); the files written so far hold every complete row\n";
    return 1;
  } catch (const std::exception& e) {
    std::cerr << "hysim: error: " << hysim::printable_lines(e.what()) << "\n";
    return 1;
  }
}
