#include "apps/command_line.hpp"

#include <charconv>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "apps/table.hpp"
#include "hysim/core/errors.hpp"
#include "hysim/core/printable.hpp"

namespace hysim::app {

namespace {

// The number options CLI11 converts itself are held to the documented syntax: decimal only
// (it reads 0x1p3 as 8) and whole numbers within their type (it wraps -1 and clamps
// 99999999999999999999 into an unsigned one).
void strict_numbers(CLI::App* app) {
  for (CLI::Option* option : app->get_options()) {
    const std::string type = option->get_type_name();
    if (type.rfind("FLOAT", 0) == 0) {
      option->check(CLI::Validator(
          [](std::string& text) -> std::string {
            const std::size_t at = !text.empty() && (text[0] == '+' || text[0] == '-') ? 1 : 0;
            if (text.size() > at + 1 && text[at] == '0' && (text[at + 1] == 'x' || text[at + 1] == 'X')) {
              return "'" + text + "' is a hexadecimal number; write it in decimal";
            }
            return "";
          },
          ""));
    } else if (type.rfind("UINT", 0) == 0 || type.rfind("INT", 0) == 0) {
      const bool is_unsigned = type.rfind("UINT", 0) == 0;
      option->check(CLI::Validator(
          [is_unsigned](std::string& text) -> std::string {
            const char* first = text.data();
            const char* last = text.data() + text.size();
            std::from_chars_result parsed{};
            if (is_unsigned) {
              unsigned long long value = 0;
              parsed = std::from_chars(first, last, value);
            } else {
              long long value = 0;
              parsed = std::from_chars(first, last, value);
            }
            const auto [end, error] = parsed;
            if (error == std::errc::result_out_of_range) return "'" + text + "' is out of range";
            if (error != std::errc{} || end != last) {
              return "'" + text + "' is not a whole number" + (is_unsigned ? " >= 0" : "") + " in decimal";
            }
            return "";
          },
          ""));
    }
  }
  for (CLI::App* sub : app->get_subcommands([](CLI::App*) { return true; })) strict_numbers(sub);
}

}  // namespace

CommandLine::CommandLine() {
  app_.require_subcommand(1);
  app_.set_version_flag("--version", std::string("hysim ") + HYSIM_VERSION, "print the version and exit");
  app_.add_flag("-v", verbosity_, "log each transition (-v) or each step (-vv) to stderr");
  commands_ = {
      add_list_command(app_),          add_check_command(app_),           add_options_command(app_),
      add_run_command(app_, &verbosity_), add_compare_command(app_, &verbosity_), add_reproduce_command(app_, &verbosity_),
      add_workprecision_command(app_, &verbosity_), add_sweep_command(app_, &verbosity_),
  };
  // Every command that runs a model, a reference or user code takes a wall-clock budget.
  const std::set<std::string> running = {"run", "compare", "reproduce", "workprecision", "sweep"};
  for (const auto& command : commands_) {
    if (running.count(command.parser->get_name()) == 0) continue;
    command.parser->add_option("--time-limit", time_limit_,
                               "[s] wall-clock budget: the runs stop there (reason interrupted, files complete), "
                               "exit 124; 0: none");
  }
  strict_numbers(&app_);
}

const Command& CommandLine::chosen() const {
  if (!(time_limit_ >= 0 && time_limit_ <= 3.2e7)) {  // NaN too; a year at most
    throw InvalidArgument("--time-limit: " + format_shortest(time_limit_) +
                          " is not a number of seconds in [0, 3.2e7] (0: none)");
  }
  for (const auto& command : commands_) {
    if (!command.parser->parsed()) continue;
    // --out "" would silently write nothing: a folder must be named.
    const CLI::Option* out = command.parser->get_option_no_throw("--out");
    if (out != nullptr && out->count() > 0 && out->as<std::string>().empty()) {
      throw InvalidArgument("--out: the folder's name is empty");
    }
    // A parameter given twice would silently take its last value.
    const CLI::Option* params = command.parser->get_option_no_throw("--param");
    if (params != nullptr && params->count() > 1) {
      std::map<std::string, std::string> seen;  // name -> its first assignment
      for (const std::string& assignment : params->as<std::vector<std::string>>()) {
        const std::string name = assignment.substr(0, assignment.find('='));
        const auto [at, first] = seen.emplace(name, assignment);
        if (!first) {
          throw InvalidArgument("--param: parameter '" + printable(name) + "' is given twice ('" +
                                printable(at->second) + "', then '" + printable(assignment) + "')");
        }
      }
    }
    return command;
  }
  throw InvalidArgument("no command was given (list, check, options, run, compare, reproduce, workprecision, sweep)");
}

}  // namespace hysim::app
