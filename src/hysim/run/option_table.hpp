// One description of every field of SimulationOptions: its name, a pointer to the field (whose
// type is the option's kind), unit, group and one-line help. The command line
// (apps/cli_options.cpp), the "options" of the JSON reports and the options table of
// docs/cli.md (`hysim options --markdown`) are made from it. The defaults are those of a
// default-constructed SimulationOptions; they are not written here.
#pragma once

#include <cstdint>
#include <string>
#include <variant>
#include <vector>

#include "hysim/run/options.hpp"

namespace hysim {

// What an option is about; each subcommand takes the groups that apply to it.
enum class OptionGroup {
  kEnd,        // t_end
  kTolerance,  // rtol, atol
  kMethod,     // solver, strategy
  kStep,       // step sizes and the width of the location bracket
  kTuning,     // the strategies' tuning, sliding and Zeno
  kLimit,      // chain_limit, event_limit
};

// A pointer to the field. Its type is the option's kind: double (a Decimal: a double or
// decimal text, run/decimal.hpp), int, int64, bool, string.
using OptionMember = std::variant<Decimal SimulationOptions::*, int SimulationOptions::*,
                                  std::int64_t SimulationOptions::*, bool SimulationOptions::*,
                                  std::string SimulationOptions::*>;

struct OptionInfo {
  const char* name;  // the field's name: the JSON key; on the command line --name with '-' for '_'
  OptionMember member;
  const char* unit;  // "s" for times, "" otherwise
  OptionGroup group;
  const char* help;  // one line

  std::string flag() const;          // "--t-end"
  std::string negated_flag() const;  // "--no-sliding": sets a bool option to false
  const char* kind() const;          // "number" (a Decimal), "int", "int64", "bool" or "string"
  std::string description() const;  // the help, after "[s] " when the option has a unit
};

// Every field of SimulationOptions, in the order of the struct.
const std::vector<OptionInfo>& option_table();

// The field's value as text: a real as typed, or its double in the fewest digits that read
// back to it ("1e-06"); a bool as true or false.
std::string option_text(const SimulationOptions& options, const OptionInfo& info);

// Calls f(info, field) for every option, with field a reference of the field's own type to
// the member of `options` (const when `options` is const).
template <class Options, class F>
void visit_options(Options& options, F&& f) {
  for (const OptionInfo& info : option_table()) {
    std::visit([&](auto member) { f(info, options.*member); }, info.member);
  }
}

}  // namespace hysim
