// Shpakov's logic-dynamic specification as a file: a rule table (docs/rule-tables.md).
//
// The formalism (000, section 2; 001, "Логико-динамическая спецификация"):
//   real variables X    parameters (constants) and the outputs of transformation rules;
//   predicates G        rule (3): (x_j1 >= a_k + x_j2) && (x_j3 <= b_k + x_j4) -> g_k, a
//                       conjunction of range tests of the real variables;
//   situations Q        logic states, set by situation rules (4): S_j -> q'_1, ..., q'_m, where
//                       the situation S_j is a conjunction of logic variables or their negations
//                       (a disjunction is written as several rules with the same action);
//   transformation      rule (5): S_j -> x'_k = tau_k(x_k, x): one row of the papers' tables
//   rules               (001, Figs. 1, 5, 7, 9), a procedure of one or two arguments with a
//                       coefficient and named parameters, done when its situation holds;
//   init rules          rules of the same form, done once before the first cycle.
//
// The file is UTF-8 text in sections; each table section is tab-separated, with a header row
// naming its columns in English or as the papers print them, so that a table copied from the
// paper is a valid section. Names are free text (the paper's Russian names, spaces, '*' and
// parentheses included) and are matched exactly after trimming.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "hysim/lang/source.hpp"

namespace hysim::rules {

using lang::Location;

// The procedures of transformation rules. y is the rule's variable, k its coefficient, a1 and
// a2 its arguments, dt the cycle's step (docs/rule-tables.md gives each transition relation).
enum class Procedure {
  kProportional,    // y = k a1
  kSum,             // y = k (a1 + k2 a2)                  k2: "2-ой коэффициент", default 1
  kMultiplication,  // y = k a1 a2
  kDivision,        // y = k a1 / a2
  kIntegral,        // y += k a1 dt                        (a state)
  kAbsolute,        // y = k |a1|
  kRelay,           // y = upper if k a1 > 0, lower if k a1 < 0, unchanged at 0
  kSine,            // y = k sin(a1 degrees)               (EnviCon's unit: 002, Fig. 6)
  kCosine,          // y = k cos(a1 degrees)               (002, Fig. 7)
  kLag,             // T y' + y = k a1                     aperiodic link, T: "постоянная времени"
  kOscillatory,     // T^2 y'' + 2 xi T y' + y = k a1      oscillatory link (T, xi)
  kDelay,           // y(t) = k a1(t - tau)                pure delay (tau)
  kDifferentiator,  // y = k (a1 - a1_prev) / dt           the difference quotient of one cycle
};

// The name of a procedure (English), and every spelling the reader accepts.
const char* procedure_name(Procedure procedure);
std::vector<std::pair<std::string, Procedure>> procedure_spellings();

// An argument: a real variable, or a number.
struct Operand {
  int variable = -1;  // index into RuleTable::reals, or -1 for a number
  double number = 0;
  std::string text;   // a number as written ('.' for ','), kept for float128 runs on the engine
  Location where;
};

// When a rule is done: always ("Ever True"), or while a logic variable is True or False.
struct Condition {
  int logic = -1;  // index into RuleTable::logic; -1: always
  bool must_be = true;
  Location where;
};

// Rule (5): one row of a transformation table.
struct TransformationRule {
  int number = 0;  // as written in the № column
  Location where;  // the row
  int variable = -1;
  Procedure procedure = Procedure::kProportional;
  double coefficient = 1;
  std::string coefficient_text = "1";  // as written ('.' for ',')
  Operand a1;
  std::optional<Operand> a2;
  Condition condition;
  std::vector<std::pair<std::string, double>> parameters;  // by key: k2, upper, lower, T, xi, tau
  int priority = 1;

  // A named parameter by its key (rules/spelling.hpp maps the row's spelling to it), or
  // `fallback`.
  double parameter(const std::string& key, double fallback) const;
};

// Rule (3): x1 REL a + x2 for every term; the predicate is their conjunction.
enum class RangeRelation { kLess, kLessEqual, kGreater, kGreaterEqual };
struct RangeTerm {
  int x1 = -1;
  RangeRelation relation = RangeRelation::kGreaterEqual;
  double a = 0;
  int x2 = -1;  // -1: none
  Location where;
};

// A logic variable or its negation.
struct Literal {
  int logic = -1;
  bool negated = false;
};

// Rule (4): when every literal of `situation` holds, the actions set their logic states
// (a negated action sets False).
struct SituationRule {
  int number = 0;
  Location where;
  std::vector<Literal> situation;
  std::vector<Literal> actions;
};

// A state holds while its situation rules say so (002's Останов, at rest at a limiter); an
// event is True only in the cycle in which they first say so: it acts at one instant (002,
// Figs. 10-11: Stop, the cart stopped and sent back at once).
enum class LogicKind { kPredicate, kState, kCommand, kEvent };

struct LogicVariable {
  std::string name;
  LogicKind kind = LogicKind::kState;
  bool initial = false;
  std::vector<RangeTerm> terms;  // a predicate's conjunction
  Location where;
};

struct RealVariable {
  std::string name;
  bool parameter = false;  // a constant of [parameters]
  double initial = 0;      // its value, or a state's initial value ([initial])
  std::string meaning;
  Location where;
  std::string low{}, high{};  // a parameter's declared range (decimal text); both empty: none
};

struct RuleTable {
  std::string file;
  std::string text;  // the file's text, for messages that point into it
  std::string name, title, source;
  double dt = 1e-3;   // the interpreter's cycle in model time
  double t_end = 1;   // the run's end in model time
  std::vector<RealVariable> reals;
  std::vector<LogicVariable> logic;
  std::vector<SituationRule> situation_rules;
  std::vector<TransformationRule> init_rules, rules;

  int real_index(const std::string& wanted) const;   // -1 when unknown
  int logic_index(const std::string& wanted) const;  // -1 when unknown
};

// Reads a rule table. Throws lang::ModelFileError (an InvalidArgument) naming
// file:line:column, the section, the rule and the column of every problem.
RuleTable read_rule_table(const std::string& path);
RuleTable parse_rule_table(const lang::SourceText& source);

// A command-line model argument names a rule table when it ends in ".rules" or ".rules.tsv".
bool names_rule_table(const std::string& argument);

}  // namespace hysim::rules
