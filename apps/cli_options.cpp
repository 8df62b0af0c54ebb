#include "apps/cli_options.hpp"

#include <algorithm>
#include <charconv>
#include <type_traits>
#include <variant>

#include "hysim/core/errors.hpp"

namespace hysim::app {

void add_model_options(CLI::App* command, ModelChoice* choice) {
  command->add_option("model", choice->model, "a built-in model (see `hysim list`) or a model file (FILE.hym)")->required();
  command->add_option("--scalar", choice->scalar, "double, long-double or float128")->default_val("double");
  command->add_option("--param", choice->params, "override a parameter: NAME=VALUE (repeatable)");
  command->add_option("--preset", choice->preset, "a named parameter set of the model");
}

void add_start_options(CLI::App* command, StartChoice* start) {
  command->add_option("--t0", start->t0, "[s] start the run at this time instead of the model's t0");
  command->add_option("--initial", start->initial,
                      "start a state at this value instead of the model's: NAME=VALUE (repeatable)");
  command->add_option("--initial-mode", start->mode, "start in this mode instead of the model's initial mode");
}

namespace {

// --atol VALUE or --atol NAME=VALUE, repeatable: the scalar, or the tolerance of one state.
void add_atol_option(CLI::App* command, SimulationOptions* options, const OptionInfo& info) {
  const auto read = [options](const std::string& text) {
    const auto equals = text.find('=');
    if (equals == std::string::npos) {
      options->atol = Decimal(text, "option atol");
    } else {
      const std::string name = text.substr(0, equals);
      options->atol_states.emplace_back(name, Decimal(text.substr(equals + 1), "option atol of " + name));
    }
  };
  command
      ->add_option_function<std::vector<std::string>>(
          info.flag(),
          [read](const std::vector<std::string>& items) {
            for (const std::string& item : items) read(item);
          },
          info.description())
      ->type_name("FLOAT|NAME=FLOAT")
      ->default_str(option_text(*options, info))
      ->check(CLI::Validator(
          [read, options](std::string& text) -> std::string {
            const SimulationOptions kept = *options;
            try {
              read(text);
            } catch (const InvalidArgument& error) {
              *options = kept;
              return error.what();
            }
            *options = kept;
            return "";
          },
          ""));
}

}  // namespace

void add_simulation_options(CLI::App* command, SimulationOptions* options, std::initializer_list<OptionGroup> groups) {
  for (const OptionInfo& info : option_table()) {
    if (groups.size() > 0 && std::find(groups.begin(), groups.end(), info.group) == groups.end()) continue;
    std::visit(
        [&]<class T>(T SimulationOptions::*member) {
          if constexpr (std::is_same_v<T, bool>) {
            command->add_flag(info.flag() + ",!" + info.negated_flag(), options->*member, info.description());
          } else if constexpr (std::is_integral_v<T>) {
            // A whole number that does not fit is refused, not clamped.
            command->add_option(info.flag(), options->*member, info.description())
                ->default_str(option_text(*options, info))
                ->check(CLI::Validator(
                    [](std::string& text) -> std::string {
                      T value{};
                      const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
                      if (error == std::errc::result_out_of_range) return "'" + text + "' is out of range";
                      if (error != std::errc{} || end != text.data() + text.size()) return "'" + text + "' is not a whole number";
                      return "";
                    },
                    "INTEGER"));
          } else if constexpr (std::is_same_v<T, Decimal>) {
            // Kept as typed: each run parses the text in its own scalar type (run/decimal.hpp).
            const std::string what = std::string("option ") + info.name;
            Decimal* field = &(options->*member);
            if (field == &options->atol) {
              add_atol_option(command, options, info);
              return;
            }
            command
                ->add_option_function<std::string>(
                    info.flag(), [field, what](const std::string& text) { *field = Decimal(text, what); },
                    info.description())
                ->type_name("FLOAT")
                ->default_str(option_text(*options, info))
                ->check(CLI::Validator(
                    [what](std::string& text) -> std::string {
                      try {
                        (void)Decimal(text, what);
                      } catch (const InvalidArgument& error) {
                        return error.what();
                      }
                      return "";
                    },
                    ""));
          } else {
            command->add_option(info.flag(), options->*member, info.description())
                ->default_str(option_text(*options, info));
          }
        },
        info.member);
  }
}

void add_reference_option(CLI::App* command, ModelChoice* choice) {
  command->add_option("--reference", choice->reference_file,
                      "measure against the events.csv of an earlier run (e.g. --scalar float128 with tight "
                      "tolerances) instead of the model's exact reference");
}

void add_verbosity_flag(CLI::App* command, int* verbosity) {
  command->add_flag("-v", *verbosity, "log each transition (-v) or each step (-vv) to stderr");
}

void add_strategies_option(CLI::App* command, std::vector<std::string>* strategies, const std::string& default_text) {
  command->add_option("--strategies", *strategies, "comma-separated strategy names (default: " + default_text + ")")
      ->delimiter(',');
}

void add_solvers_option(CLI::App* command, std::vector<std::string>* solvers, const std::string& default_text) {
  command->add_option("--solvers", *solvers, "comma-separated solver names (default: " + default_text + ")")
      ->delimiter(',');
}

}  // namespace hysim::app
