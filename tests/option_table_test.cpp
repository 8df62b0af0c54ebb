// The table of SimulationOptions (hysim/run/option_table.hpp): one entry per field, and every
// field round-trips through the command line (apps/cli_options.cpp) and the JSON of the
// reports. (tests/cli_test.sh checks that docs/cli.md holds `hysim options --markdown`.)
#include <gtest/gtest.h>

#include <CLI/CLI.hpp>
#include <cstddef>
#include <stdexcept>
#include <string>
#include <type_traits>

#include "apps/cli_options.hpp"
#include "hysim/run/option_table.hpp"

namespace hysim {
namespace {

// Converts to any field's type, to count the fields of an aggregate (unevaluated only).
struct AnyField {
  template <class T>
  operator T() const;
};

// The number of fields of the aggregate T: the most initializers T{...} takes.
template <class T, class... Fields>
constexpr std::size_t field_count() {
  if constexpr (requires { T{Fields{}..., AnyField{}}; }) {
    return field_count<T, Fields..., AnyField>();
  } else {
    return sizeof...(Fields);
  }
}

// Every field as name=text: equal texts, equal options (doubles are written to round-trip).
std::string all_text(const SimulationOptions& options) {
  std::string text;
  for (const OptionInfo& info : option_table()) text += std::string(info.name) + "=" + option_text(options, info) + " ";
  return text;
}

// The defaults with the field of `info` changed: a double scaled (0 becomes 0.1, so that
// every value needs 17 digits), an integer + 3, a bool negated, a string extended.
SimulationOptions with_changed(const OptionInfo& info) {
  SimulationOptions options;
  std::visit(
      [&]<class T>(T SimulationOptions::*member) {
        T& value = options.*member;
        if constexpr (std::is_same_v<T, Decimal>) {
          value = value == 0 ? 0.1 : value * 3.7;
        } else if constexpr (std::is_same_v<T, bool>) {
          value = !value;
        } else if constexpr (std::is_same_v<T, std::string>) {
          value += "-x";
        } else {
          value += 3;
        }
      },
      info.member);
  return options;
}

// What `hysim run` makes of `command_line`.
SimulationOptions parsed(const std::string& command_line) {
  CLI::App app;
  SimulationOptions options;
  app::add_simulation_options(&app, &options);
  app.parse(command_line, false);
  return options;
}

const OptionInfo& option_named(const std::string& name) {
  for (const OptionInfo& info : option_table()) {
    if (info.name == name) return info;
  }
  throw std::out_of_range("no option " + name);
}

// One entry per field of SimulationOptions, no name or field twice, each with its help.
TEST(OptionTable, DescribesEveryFieldOnce) {
  const auto& table = option_table();
  // Two fields are not rows of their own: atol_states, the NAME=VALUE form of --atol (the CLI
  // and Python read it with atol), and output_times, a list (Python's t_eval).
  constexpr std::size_t kCompanions = 2;
  EXPECT_EQ(table.size() + kCompanions, field_count<SimulationOptions>());
  for (std::size_t i = 0; i < table.size(); ++i) {
    EXPECT_NE(std::string(table[i].help), "") << table[i].name;
    for (std::size_t j = 0; j < i; ++j) {
      EXPECT_NE(std::string(table[i].name), table[j].name);
      EXPECT_FALSE(table[i].member == table[j].member) << table[i].name << " and " << table[j].name;
    }
  }
}

// The spellings on the command line, the kinds, the unit before the help, the values as text.
TEST(OptionTable, Spellings) {
  EXPECT_EQ(option_named("zeno_ratio_tolerance").flag(), "--zeno-ratio-tolerance");
  EXPECT_EQ(option_named("sliding").negated_flag(), "--no-sliding");
  EXPECT_STREQ(option_named("rtol").kind(), "number");
  EXPECT_STREQ(option_named("samples").kind(), "int");
  EXPECT_STREQ(option_named("event_limit").kind(), "int64");
  EXPECT_STREQ(option_named("sliding").kind(), "bool");
  EXPECT_STREQ(option_named("solver").kind(), "string");
  EXPECT_EQ(option_named("max_step").description(), "[s] largest step; 0: unlimited");
  SimulationOptions options;
  options.h_min = 0.1;
  EXPECT_EQ(option_text(options, option_named("h_min")), "0.1");
  EXPECT_EQ(option_text(options, option_named("rtol")), "1e-06");
  EXPECT_EQ(option_text(options, option_named("sliding")), "true");
}

// Without flags the command line leaves every field at its default.
TEST(OptionTable, CommandLineDefaults) { EXPECT_EQ(all_text(parsed("")), all_text(SimulationOptions{})); }

// Each field set on the command line to a value other than its default arrives exactly, and
// the other fields keep their defaults; a bool through its flag pair (--no-sliding).
TEST(OptionTable, EveryFieldRoundTripsThroughTheCommandLine) {
  for (const OptionInfo& info : option_table()) {
    const SimulationOptions changed = with_changed(info);
    std::string command_line = info.flag() + " " + option_text(changed, info);
    if (std::holds_alternative<bool SimulationOptions::*>(info.member)) {
      command_line = option_text(changed, info) == "true" ? info.flag() : info.negated_flag();
    }
    EXPECT_EQ(all_text(parsed(command_line)), all_text(changed)) << command_line;
  }
}

// Each field written to JSON text with a value other than its default reads back exactly,
// under the field's name; the options block has exactly the table's keys.
TEST(OptionTable, EveryFieldRoundTripsThroughTheJson) {
  for (const OptionInfo& info : option_table()) {
    const SimulationOptions changed = with_changed(info);
    const nlohmann::json json = nlohmann::json::parse(hysim::options_json(changed).dump());
    EXPECT_EQ(json.size(), option_table().size());
    SimulationOptions back;
    visit_options(back, [&](const OptionInfo& field_info, auto& field) {
      field = json.at(field_info.name).get<std::remove_reference_t<decltype(field)>>();
    });
    EXPECT_EQ(all_text(back), all_text(changed)) << info.name;
  }
}

}  // namespace
}  // namespace hysim
