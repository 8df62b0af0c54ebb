// The procedures of transformation rules (rule (5)) in one table: each one's name, its
// arguments, what the rule interpreter does with it in a cycle (rules/interpreter.hpp) and
// its continuous-time form on the engine (rules/to_model.hpp), side by side.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "hysim/lang/syntax.hpp"
#include "hysim/rules/table.hpp"

namespace hysim::rules {

// What the interpreter keeps of a rule between cycles.
struct RuleMemory {
  double previous_a1 = 0;          // the differentiator's last argument
  double velocity = 0;             // the oscillatory link's y'
  std::vector<double> delay_line;  // the delay's a1 over tau, a ring
  std::size_t delay_head = 0;
};

// A rule's values in one cycle: its variable y (read and written), k, a1, a2 and the step.
struct CycleValues {
  double& y;
  double k, a1, a2, dt;
};

// A rule's parts on the engine, as syntax at the table's cells.
struct EngineParts {
  const TransformationRule& rule;
  lang::ExpressionPtr k, a1, a2;  // a2: 0 when the rule has none
  lang::ExpressionPtr y, y_rate;  // a state's own value, and the oscillatory link's y' state
  std::function<lang::ExpressionPtr()> rate_of_a1;  // the differentiator: a1's rate (a1 a state)

  // A named parameter (TransformationRule::parameter) as a literal at the rule's row.
  lang::ExpressionPtr parameter(const std::string& key, double fallback) const;
};

// What a procedure is on the engine: the continuous limit of its cycle (dt -> 0).
enum class EngineForm {
  kLet,    // y = value(k, a1, a2), an algebraic value
  kState,  // der(y) = ..., a state (and der(y') for the oscillatory link)
  kNone,   // none: the delay is a delay differential equation
};

struct ProcedureInfo {
  Procedure procedure;
  const char* name;  // English
  int arguments;     // 2: Argument 2 is required
  bool evolves;      // it remembers past cycles (not for init rules, which run once)
  bool memoryless;   // y depends on the present arguments alone (the relay keeps y at 0)
  EngineForm engine;
  // y after one cycle of the interpreter.
  void (*cycle)(const TransformationRule& rule, CycleValues v, RuleMemory& memory);
  // kLet: y's value on the engine.
  lang::ExpressionPtr (*value)(EngineParts& parts);
  // kState: the terms of der(y) and der(y') that this rule adds, from k a1 while its situation
  // holds (0 otherwise).
  void (*rates)(EngineParts& parts, lang::ExpressionPtr ka1, std::vector<lang::ExpressionPtr>* y_terms,
                std::vector<lang::ExpressionPtr>* rate_terms);
};

const ProcedureInfo& procedure_info(Procedure procedure);

// The memory of a rule before its first cycle, with a1 its argument's value then.
RuleMemory start_memory(const TransformationRule& rule, double a1, double dt);

// A number of the table (its text as written, '.' for ','; else its value) as a literal at
// `where`: a sign is a unary operator, as the language reads it. Empty when `text` is no
// number of the model language (0x10): the caller reports it at the cell.
lang::ExpressionPtr literal_syntax(const std::string& text, double value, lang::Location where);

}  // namespace hysim::rules
