// What the rule-table fuzzer does with one input, shared by the libFuzzer binary
// (tests/fuzz/rule_table_fuzzer.cpp, scripts/fuzz.sh rule_table) and the regression test that
// replays its corpus (tests/rule_table_fuzz_test.cpp): read the table, and when it is valid,
// run the interpreter for 20 cycles and translate it for the engine (rules/to_model.hpp) and
// compile that text (lang/spec.hpp; no native code). Any input must end in a value or a hysim::Error; a crash,
// a hang or a sanitizer report is a bug.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "hysim/core/errors.hpp"
#include "hysim/lang/spec.hpp"
#include "hysim/rules/interpreter.hpp"
#include "hysim/rules/to_model.hpp"

namespace hysim::fuzz {

// 0: rejected with a diagnostic; 1: read and run.
inline int check_rule_table_text(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    const rules::RuleTable table = rules::parse_rule_table(lang::SourceText("fuzz.rules.tsv", text));
    rules::InterpreterOptions options;
    options.t_end = 20 * table.dt;
    (void)rules::Interpreter(table, options).run();
    try {
      (void)lang::compile_text("fuzz (on the engine)", rules::model_text(table));
    } catch (const Error&) {
      // not translatable yet, or rejected by the language: a message, not a crash
    }
    return 1;
  } catch (const Error&) {
    return 0;
  }
}

}  // namespace hysim::fuzz
