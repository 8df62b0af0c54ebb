#include "hysim/rules/to_model.hpp"

#include <algorithm>
#include <array>
#include <functional>
#include <map>
#include <memory>
#include <set>

#include "hysim/lang/build.hpp"
#include "hysim/lang/spec.hpp"
#include "hysim/rules/procedures.hpp"

namespace hysim::rules {

using lang::Definition;
using lang::Diagnostic;
using lang::Equation;
using lang::ExpressionPtr;
using lang::ModelFileError;
using lang::Severity;
using lang::TokenKind;

namespace {

// Latin for the Cyrillic letters а..я (ISO 9-like, ASCII only).
constexpr std::array<const char*, 32> kLatin = {"a", "b",  "v",  "g",    "d", "e", "zh", "z",  "i",  "y", "k",
                                                "l", "m",  "n",  "o",    "p", "r", "s",  "t",  "u",  "f", "kh",
                                                "ts", "ch", "sh", "shch", "",  "y", "",   "e",  "yu", "ya"};

}  // namespace

std::string identifier(const std::string& name) {
  std::string out;
  for (std::size_t i = 0; i < name.size(); ++i) {
    const auto c = static_cast<unsigned char>(name[i]);
    if (std::isalnum(c) != 0 || c == '_') {
      out += static_cast<char>(c);
      continue;
    }
    if ((c == 0xD0 || c == 0xD1) && i + 1 < name.size()) {
      const unsigned code = ((c & 0x1Fu) << 6) | (static_cast<unsigned char>(name[i + 1]) & 0x3Fu);
      ++i;
      if (code >= 0x410 && code <= 0x42F) {
        std::string latin = kLatin[code - 0x410];
        if (!latin.empty()) latin[0] = static_cast<char>(latin[0] - 'a' + 'A');
        out += latin;
        continue;
      }
      if (code >= 0x430 && code <= 0x44F) {
        out += kLatin[code - 0x430];
        continue;
      }
      if (code == 0x401 || code == 0x451) {
        out += code == 0x401 ? "E" : "e";
        continue;
      }
    }
    if (!out.empty() && out.back() != '_') out += '_';
  }
  while (!out.empty() && out.back() == '_') out.pop_back();
  if (out.empty() || std::isdigit(static_cast<unsigned char>(out[0])) != 0) out = "v_" + out;
  return out;
}

namespace {

// --- What the translation knows as it goes ---------------------------------------------------

// A rule's value at its place in the cycle: a let of the model.
struct Let {
  std::string name, comment;
  Location where;
  ExpressionPtr expression;
  std::vector<std::pair<std::string, Location>> reads;  // lets it reads, where
};

// The identifiers, which variables are states, the versions of each variable in the cycle's
// order, the lets and derivatives written so far.
struct Translation {
  explicit Translation(const RuleTable& t) : table(t) {}

  const RuleTable& table;
  std::vector<Diagnostic> errors;
  std::vector<std::string> id;                // per real variable
  std::vector<char> state;                    // per real variable: integrated
  std::vector<char> assigned;                 // per real variable: set by a cycle rule (let)
  std::vector<char> memory;                   // per logic variable: a state with memory (q_on)
  std::map<int, int> version, init_version;   // variable -> versions written so far
  std::map<int, int> last_version;            // variable -> versions after a whole cycle
  std::vector<Let> lets;
  std::map<int, std::vector<ExpressionPtr>> derivative;  // state -> terms; -1 - state: its y' terms
  std::map<int, std::string> velocity;                   // oscillatory state -> its y' state
  std::set<int> written;   // variables a cycle rule has written so far in this pass
  std::vector<int> held;   // variables that keep their value while no rule writes them
  std::set<int> rate_of;   // states whose rate a differentiator reads (let rate_of_NAME)
  std::vector<const TransformationRule*> pins;  // rules that pin a state
  std::vector<int> pin_logic;                   // the logic variables they hold under
};

constexpr std::size_t kMostMemories = 5;  // 32 modes

void error(Translation& tr, Location where, std::string message) {
  tr.errors.push_back({Severity::kError, where, std::move(message)});
}

[[noreturn]] void throw_errors(const Translation& tr) {
  throw ModelFileError(lang::SourceText(tr.table.file, tr.table.text), tr.errors);
}

bool is_state_rule(const TransformationRule& r) { return procedure_info(r.procedure).engine == EngineForm::kState; }

const LogicVariable& logic_of(const Translation& tr, int logic) { return tr.table.logic[static_cast<std::size_t>(logic)]; }
const RealVariable& real_of(const Translation& tr, int variable) { return tr.table.reals[static_cast<std::size_t>(variable)]; }

// --- Syntax at the table's cells ------------------------------------------------------------

ExpressionPtr name(std::string text, Location at) { return lang::name_syntax(std::move(text), at); }
ExpressionPtr number(const char* text, Location at) { return lang::number_syntax(text, at); }
ExpressionPtr binary(TokenKind op, ExpressionPtr a, ExpressionPtr b, Location at) {
  return lang::binary_syntax(op, std::move(a), std::move(b), at);
}
ExpressionPtr negation(ExpressionPtr a, Location at) { return lang::unary_syntax(TokenKind::kNot, std::move(a), at); }
// True as (0 < 1), False as (1 < 0).
ExpressionPtr truth(bool value, Location at) {
  return binary(TokenKind::kLess, number(value ? "0" : "1", at), number(value ? "1" : "0", at), at);
}
// a OP b OP c ..., from the left; null when `terms` is empty.
ExpressionPtr chain(TokenKind op, std::vector<ExpressionPtr> terms, Location at) {
  ExpressionPtr out;
  for (ExpressionPtr& term : terms) out = out ? binary(op, std::move(out), std::move(term), at) : std::move(term);
  return out;
}
ExpressionPtr copy(const ExpressionPtr& e) { return lang::copy_syntax(*e); }
std::vector<ExpressionPtr> copies(const std::vector<ExpressionPtr>& terms) {
  std::vector<ExpressionPtr> out;
  for (const ExpressionPtr& term : terms) out.push_back(copy(term));
  return out;
}

// A number of the table as a literal; one the language cannot write (0x10) is reported at its cell.
ExpressionPtr literal(Translation& tr, const std::string& text, double value, Location where) {
  ExpressionPtr e = literal_syntax(text, value, where);
  if (e) return e;
  error(tr, where, "'" + text + "' is a number the engine does not read: write it in decimals (as 16 or 1.5e-3)");
  return number("0", where);
}

// --- Names, and what each variable is on the engine ------------------------------------------

void name_ids(Translation& tr) {
  std::set<std::string> used = {"t", "pi", "t_end", "run"};
  for (const auto& v : tr.table.reals) {
    std::string base = identifier(v.name), id = base;
    for (int n = 2; used.count(id) > 0; ++n) id = base + "_" + std::to_string(n);
    used.insert(id);
    tr.id.push_back(id);
  }
}

// A command (an external logic input) is a parameter, 1 or 0 (--param command_NAME=1).
std::string command_parameter(const Translation& tr, int logic) { return "command_" + identifier(logic_of(tr, logic).name); }

std::string memory_state(const Translation& tr, int logic) { return identifier(logic_of(tr, logic).name) + "_on"; }

// Whether a rule on a state sets it to a constant while a logic state or event holds.
bool pin(const Translation& tr, const TransformationRule& rule) {
  if (rule.condition.logic < 0 || !rule.condition.must_be) return false;
  if (logic_of(tr, rule.condition.logic).kind == LogicKind::kPredicate) return false;
  if (tr.memory[static_cast<std::size_t>(rule.condition.logic)]) return false;  // not yet: a state with memory
  const auto constant = [&](const Operand& o) { return o.variable < 0 || real_of(tr, o.variable).parameter; };
  return procedure_info(rule.procedure).memoryless && constant(rule.a1) && (!rule.a2 || constant(*rule.a2));
}

// Rules the engine cannot run: delays, differentiators of algebraic values.
void check_procedures(Translation& tr) {
  for (const auto& rule : tr.table.rules) {
    const std::string label = "rule " + std::to_string(rule.number);
    if (procedure_info(rule.procedure).engine == EngineForm::kNone) {
      error(tr, rule.where, label + ": the procedure '" + procedure_name(rule.procedure) + "' has no continuous-time "
                            "form on the engine (a delay differential equation); run the table on the rule interpreter");
    }
    // The differentiator's limit is the rate of its argument: the field, for a state.
    const bool of_state = rule.a1.variable >= 0 && tr.state[static_cast<std::size_t>(rule.a1.variable)];
    if (rule.procedure == Procedure::kDifferentiator && !of_state) {
      error(tr, rule.a1.where, label + ": on the engine the differentiator takes the rate of a state (an integral, lag "
                               "or oscillatory rule's variable); this argument is not one");
    }
  }
}

// Situation rules whose situations read predicates only set their states afresh each cycle:
// on the engine each such state is the disjunction of its rules' conjunctions of predicates.
// A state that a situation reads with a logic state, that a rule sets False or that starts
// True has memory (a latch, q & !release -> q): on the engine it is a state q_on of 0 or 1,
// flipped by transitions when its situation rules, read with the present q_on, say so.
void find_memories(Translation& tr) {
  tr.memory.assign(tr.table.logic.size(), 0);
  for (const SituationRule& rule : tr.table.situation_rules) {
    bool reads_logic = false;
    for (const Literal& l : rule.situation) {
      const LogicKind kind = logic_of(tr, l.logic).kind;
      reads_logic = reads_logic || kind != LogicKind::kPredicate;
      if (kind == LogicKind::kEvent) {
        error(tr, rule.where, "situation rule " + std::to_string(rule.number) + ": on the engine, a situation that "
                              "reads the event '" + logic_of(tr, l.logic).name + "' is not supported yet");
      }
    }
    for (const Literal& action : rule.actions) {
      const LogicVariable& v = logic_of(tr, action.logic);
      if (v.kind == LogicKind::kState && (reads_logic || action.negated || v.initial)) {
        tr.memory[static_cast<std::size_t>(action.logic)] = 1;
      }
      if (v.kind == LogicKind::kEvent && (action.negated || v.initial)) {
        error(tr, rule.where, "situation rule " + std::to_string(rule.number) + ": on the engine, an event is set "
                              "True by its situations only (not False, and not True at the start)");
      }
    }
  }
}

// States and algebraic values; the pins: a rule that sets a state while a logic state or
// event holds (002, Fig. 11: the cart's velocity set to 0 at Stop and while Останов) is, on
// the engine, a reset when its situation starts and, for a state, a rate of 0 while it holds.
void classify(Translation& tr) {
  tr.state.assign(tr.table.reals.size(), 0);
  tr.assigned.assign(tr.table.reals.size(), 0);
  for (const auto& rule : tr.table.rules) {
    if (is_state_rule(rule)) tr.state[static_cast<std::size_t>(rule.variable)] = 1;
  }
  check_procedures(tr);
  find_memories(tr);
  for (const auto& rule : tr.table.rules) {
    if (is_state_rule(rule)) continue;
    if (tr.state[static_cast<std::size_t>(rule.variable)] && pin(tr, rule)) {
      tr.pins.push_back(&rule);
      if (std::find(tr.pin_logic.begin(), tr.pin_logic.end(), rule.condition.logic) == tr.pin_logic.end()) {
        tr.pin_logic.push_back(rule.condition.logic);
      }
      continue;
    }
    tr.assigned[static_cast<std::size_t>(rule.variable)] = 1;
  }
  for (std::size_t i = 0; i < tr.table.reals.size(); ++i) {
    if (tr.state[i] && tr.assigned[i]) {
      error(tr, tr.table.reals[i].where, "'" + tr.table.reals[i].name + "' is both integrated and assigned by rules; "
                                         "on the engine a variable is a state or an algebraic value");
    }
  }
}

// --- Operands and situations at the current point of the cycle -------------------------------

std::string version_name(const Translation& tr, int variable, int version) {
  return tr.id[static_cast<std::size_t>(variable)] + (version == 0 ? "" : "__" + std::to_string(version));
}

// An operand at this point of the cycle; the let it reads (if any) is recorded in *let.
ExpressionPtr read(Translation& tr, const Operand& o, Let* let, bool init) {
  if (o.variable < 0) return literal(tr, o.text, o.number, o.where);
  const auto v = static_cast<std::size_t>(o.variable);
  if (tr.state[v] || tr.table.reals[v].parameter) return name(tr.id[v], o.where);
  const auto written = tr.version.find(o.variable);
  int version = -1;
  if (written != tr.version.end() && written->second > 0) version = written->second;
  else if (!init && tr.assigned[v]) version = tr.last_version.at(o.variable);  // written further down: its last value
  if (version < 0) return name(tr.id[v], o.where);  // a constant: its [initial] value
  const std::string read_name = version_name(tr, o.variable, version);
  if (let) let->reads.emplace_back(read_name, o.where);
  return name(read_name, o.where);
}

ExpressionPtr logic_syntax(Translation& tr, int logic, Let* let);

// Rule (3): the conjunction of x1 REL a [+ x2].
ExpressionPtr predicate_syntax(Translation& tr, const LogicVariable& v, Let* let) {
  std::vector<ExpressionPtr> tests;
  for (const RangeTerm& term : v.terms) {
    static const TokenKind kRelation[] = {TokenKind::kLess, TokenKind::kLessEqual, TokenKind::kGreater,
                                          TokenKind::kGreaterEqual};
    Operand x1, x2;
    x1.variable = term.x1;
    x1.where = x2.where = term.where;
    x2.variable = term.x2;
    ExpressionPtr left = read(tr, x1, let, false);
    ExpressionPtr right = literal(tr, "", term.a, term.where);
    if (term.x2 >= 0) right = binary(TokenKind::kPlus, std::move(right), read(tr, x2, let, false), term.where);
    tests.push_back(binary(kRelation[static_cast<int>(term.relation)], std::move(left), std::move(right), term.where));
  }
  return tests.empty() ? truth(true, v.where) : chain(TokenKind::kAnd, std::move(tests), v.where);
}

// A situation S_j: the conjunction of its literals.
ExpressionPtr situation_syntax(Translation& tr, const SituationRule& rule, Let* let) {
  std::vector<ExpressionPtr> all;
  for (const Literal& l : rule.situation) {
    ExpressionPtr e = logic_syntax(tr, l.logic, let);
    all.push_back(l.negated ? negation(std::move(e), rule.where) : std::move(e));
  }
  return all.empty() ? truth(true, rule.where) : chain(TokenKind::kAnd, std::move(all), rule.where);
}

// The disjunction of the situations that set a logic state or event.
ExpressionPtr level_syntax(Translation& tr, int logic, Let* let) {
  std::vector<ExpressionPtr> any;
  for (const SituationRule& rule : tr.table.situation_rules) {
    bool sets = false;
    for (const Literal& action : rule.actions) sets = sets || action.logic == logic;
    if (sets) any.push_back(situation_syntax(tr, rule, let));
  }
  return any.empty() ? truth(false, logic_of(tr, logic).where) : chain(TokenKind::kOr, std::move(any), logic_of(tr, logic).where);
}

// A logic variable as a boolean expression at this point of the cycle: a predicate (3) as the
// conjunction of its range tests; a state as the disjunction of the situations that set it
// (read with the values at the start of the cycle, which in the limit are the current ones).
ExpressionPtr logic_syntax(Translation& tr, int logic, Let* let) {
  const LogicVariable& v = logic_of(tr, logic);
  switch (v.kind) {
    case LogicKind::kPredicate: return predicate_syntax(tr, v, let);
    case LogicKind::kEvent: return truth(false, v.where);  // an instant: never during the flow
    case LogicKind::kCommand:
      return binary(TokenKind::kGreater, name(command_parameter(tr, logic), v.where), number("0.5", v.where), v.where);
    case LogicKind::kState: break;
  }
  if (tr.memory[static_cast<std::size_t>(logic)]) {
    return binary(TokenKind::kGreater, name(memory_state(tr, logic), v.where), number("0.5", v.where), v.where);
  }
  return level_syntax(tr, logic, let);
}

// Rule (4) for a state with memory: what its situation rules make of it, in order (a later
// rule overrides an earlier one), from its initial value, read with the present states.
ExpressionPtr next_syntax(Translation& tr, int logic) {
  ExpressionPtr value = truth(logic_of(tr, logic).initial, logic_of(tr, logic).where);
  for (const SituationRule& rule : tr.table.situation_rules) {
    for (const Literal& action : rule.actions) {
      if (action.logic != logic) continue;
      ExpressionPtr all = situation_syntax(tr, rule, nullptr);
      value = action.negated ? binary(TokenKind::kAnd, negation(std::move(all), rule.where), std::move(value), rule.where)
                             : binary(TokenKind::kOr, std::move(all), std::move(value), rule.where);
    }
  }
  return value;
}

ExpressionPtr condition_syntax(Translation& tr, const Condition& c, Let* let) {
  ExpressionPtr l = logic_syntax(tr, c.logic, let);
  return c.must_be ? std::move(l) : negation(std::move(l), c.where);
}

// `when` while the condition holds, else `otherwise`. A state with memory is 0 or 1 between
// events, so its choice is a blend, not a switch for the compiler to split modes on.
ExpressionPtr choose(Translation& tr, const Condition& c, ExpressionPtr when, ExpressionPtr otherwise, Let* let) {
  const Location at = c.where;
  if (tr.memory[static_cast<std::size_t>(c.logic)]) {
    const std::string on = memory_state(tr, c.logic);
    const auto off = [&] { return binary(TokenKind::kMinus, number("1", at), name(on, at), at); };
    ExpressionPtr first = c.must_be ? name(on, at) : off();
    ExpressionPtr second = c.must_be ? off() : name(on, at);
    return binary(TokenKind::kPlus, binary(TokenKind::kStar, std::move(first), std::move(when), at),
                  binary(TokenKind::kStar, std::move(second), std::move(otherwise), at), at);
  }
  ExpressionPtr condition = condition_syntax(tr, c, let);
  return lang::if_syntax(std::move(condition), std::move(when), std::move(otherwise), at);
}

// --- The rules as lets and derivatives, in order ---------------------------------------------

bool pinned(const Translation& tr, const TransformationRule& rule) {
  return std::find(tr.pins.begin(), tr.pins.end(), &rule) != tr.pins.end();
}

// y's value by the rule's procedure (rules/procedures.hpp), its operands read at this point.
ExpressionPtr rule_value(Translation& tr, const TransformationRule& r, Let* let, bool init) {
  ExpressionPtr k = literal(tr, r.coefficient_text, r.coefficient, r.where);
  ExpressionPtr a1 = read(tr, r.a1, let, init);
  ExpressionPtr a2 = r.a2 ? read(tr, *r.a2, let, init) : number("0", r.where);
  EngineParts parts{r, std::move(k), std::move(a1), std::move(a2), nullptr, nullptr, [&tr, &r] {
                      const std::string rate = "rate_of_" + tr.id[static_cast<std::size_t>(r.a1.variable)];
                      tr.rate_of.insert(r.a1.variable);
                      return name(rate, r.a1.where);
                    }};
  return procedure_info(r.procedure).value(parts);
}

// y := tau while the rule's situation holds. Otherwise y keeps the value an earlier rule of
// this cycle wrote, or the next rule on y takes over when its situation is the complement
// (001, Fig. 1, rules 1 and 2); else it keeps the previous cycle's value.
void conditional(Translation& tr, const TransformationRule& rule, Let* let) {
  if (tr.written.count(rule.variable) > 0) {
    const std::string previous = version_name(tr, rule.variable, tr.version[rule.variable]);
    let->reads.emplace_back(previous, rule.where);
    let->expression = choose(tr, rule.condition, std::move(let->expression), name(previous, rule.where), let);
    return;
  }
  const auto self = static_cast<std::size_t>(&rule - tr.table.rules.data());
  for (std::size_t next = self + 1; next < tr.table.rules.size(); ++next) {
    const TransformationRule& other = tr.table.rules[next];
    if (other.variable != rule.variable) continue;
    if (other.condition.logic == rule.condition.logic && other.condition.must_be != rule.condition.must_be) {
      ExpressionPtr otherwise = rule_value(tr, other, let, false);
      let->expression = choose(tr, rule.condition, std::move(let->expression), std::move(otherwise), let);
      return;
    }
    break;
  }
  // Otherwise y keeps the value of the previous cycle: in the limit, its last version now when
  // some rule writes it at every instant; else the value it had when the last of its rules
  // stopped, a state y_held that a transition sets then (held below).
  bool always = false;
  for (const TransformationRule& other : tr.table.rules) {
    always = always || (other.variable == rule.variable && other.condition.logic < 0 && !is_state_rule(other));
  }
  if (always) {
    const std::string last = version_name(tr, rule.variable, tr.last_version.at(rule.variable));
    let->reads.emplace_back(last, rule.where);
    let->expression = choose(tr, rule.condition, std::move(let->expression), name(last, rule.where), let);
    return;
  }
  if (logic_of(tr, rule.condition.logic).kind == LogicKind::kEvent) {
    error(tr, rule.where, "rule " + std::to_string(rule.number) + ": '" + real_of(tr, rule.variable).name +
                              "' is written at an event only and held otherwise; on the engine this is not supported yet");
    return;
  }
  if (std::find(tr.held.begin(), tr.held.end(), rule.variable) == tr.held.end()) tr.held.push_back(rule.variable);
  let->expression = choose(tr, rule.condition, std::move(let->expression),
                           name(tr.id[static_cast<std::size_t>(rule.variable)] + "_held", rule.where), let);
}

void assign(Translation& tr, const TransformationRule& rule, bool init) {
  Let let;
  let.where = rule.where;
  let.expression = rule_value(tr, rule, &let, init);
  if (!init && rule.condition.logic >= 0) conditional(tr, rule, &let);
  if (!init) tr.written.insert(rule.variable);
  const int version = ++tr.version[rule.variable];
  let.name = version_name(tr, rule.variable, version);
  let.comment = (init ? "init rule " : "rule ") + std::to_string(rule.number) + ": " + real_of(tr, rule.variable).name;
  tr.lets.push_back(std::move(let));
}

// A held variable: whether some rule writes it at this instant (the disjunction of their
// situations).
ExpressionPtr written_syntax(Translation& tr, int variable) {
  std::vector<ExpressionPtr> any;
  for (const TransformationRule& rule : tr.table.rules) {
    if (rule.variable != variable || is_state_rule(rule)) continue;
    any.push_back(condition_syntax(tr, rule.condition, nullptr));
  }
  return chain(TokenKind::kOr, std::move(any), real_of(tr, variable).where);
}

// A state rule's terms of der(y) (and of der(y') for the oscillatory link).
void add_derivative(Translation& tr, const TransformationRule& rule) {
  Let ignored;
  const std::string y = tr.id[static_cast<std::size_t>(rule.variable)];
  ExpressionPtr ka1 = binary(TokenKind::kStar, literal(tr, rule.coefficient_text, rule.coefficient, rule.where),
                             read(tr, rule.a1, &ignored, false), rule.where);
  if (rule.condition.logic >= 0) ka1 = choose(tr, rule.condition, std::move(ka1), number("0", rule.where), &ignored);
  if (rule.procedure == Procedure::kOscillatory) tr.velocity[rule.variable] = y + "_rate";
  EngineParts parts{rule, nullptr, nullptr, nullptr, name(y, rule.where), name(y + "_rate", rule.where), nullptr};
  std::vector<ExpressionPtr> rate_terms;
  procedure_info(rule.procedure).rates(parts, std::move(ka1), &tr.derivative[rule.variable], &rate_terms);
  for (ExpressionPtr& term : rate_terms) tr.derivative[-1 - rule.variable].push_back(std::move(term));
}

// An algebraic loop: a let that reaches itself through the lets it reads.
void find_loops(Translation& tr) {
  std::map<std::string, const Let*> by_name;
  for (const auto& let : tr.lets) by_name[let.name] = &let;
  std::map<std::string, int> seen;  // 0 unseen, 1 on the path, 2 done
  std::function<bool(const Let&)> visit = [&](const Let& let) -> bool {
    seen[let.name] = 1;
    for (const auto& [read_name, where] : let.reads) {
      const auto found = by_name.find(read_name);
      if (found == by_name.end()) continue;
      if (seen[read_name] == 1) {
        error(tr, where, let.comment + ": an algebraic loop: this argument depends on the rule's own result through "
                                       "rules that read values written further down (cyclic algebraic rules)");
        return true;
      }
      if (seen[read_name] == 0 && visit(*found->second)) return true;
    }
    seen[let.name] = 2;
    return false;
  };
  for (const auto& let : tr.lets) {
    if (seen[let.name] == 0 && visit(let)) return;
  }
}

// Init rules as lets of the parameters, in order; then the cycle: a first pass finds each
// variable's last version, the second writes the lets and derivatives.
void translate_rules(Translation& tr) {
  for (const auto& rule : tr.table.init_rules) assign(tr, rule, true);
  tr.init_version = tr.version;
  for (const auto& rule : tr.table.rules) {
    if (pinned(tr, rule)) continue;
    if (!is_state_rule(rule)) ++tr.version[rule.variable];
    tr.last_version = tr.version;
  }
  tr.version = tr.init_version;
  for (const auto& rule : tr.table.rules) {
    if (is_state_rule(rule)) add_derivative(tr, rule);
    else if (!pinned(tr, rule)) assign(tr, rule, false);
  }
  find_loops(tr);
}

// --- The model: its declarations, modes and transitions --------------------------------------

Definition definition(std::string name, Location where, ExpressionPtr value, std::string description) {
  Definition d;
  d.name = std::move(name);
  d.where = where;
  d.value = std::move(value);
  d.description = std::move(description);
  return d;
}

// Parameters: the variables no rule integrates (a variable rules assign starts from its
// [initial] value too) and the commands.
void declare_parameters(Translation& tr, lang::ModelSyntax* model) {
  for (std::size_t i = 0; i < tr.table.reals.size(); ++i) {
    const RealVariable& v = tr.table.reals[i];
    if (tr.state[i]) continue;
    model->parameters.push_back(definition(tr.id[i], v.where, literal(tr, "", v.initial, v.where), v.name));
    model->parameters.back().low = v.low;
    model->parameters.back().high = v.high;
    model->parameters.back().range_where = v.where;
  }
  for (std::size_t q = 0; q < tr.table.logic.size(); ++q) {
    const LogicVariable& v = tr.table.logic[q];
    if (v.kind != LogicKind::kCommand) continue;
    model->parameters.push_back(definition(command_parameter(tr, static_cast<int>(q)), v.where,
                                           number(v.initial ? "1" : "0", v.where),
                                           v.name + ": a command, 1 (True) or 0 (False)"));
  }
}

// States: the integrated variables (from their init rules' values), the oscillatory links'
// rates, the logic states with memory and the held values.
void declare_states(Translation& tr, lang::ModelSyntax* model) {
  bool any_state = false;
  for (std::size_t i = 0; i < tr.table.reals.size(); ++i) {
    if (!tr.state[i]) continue;
    any_state = true;
    const RealVariable& v = tr.table.reals[i];
    const auto init = tr.init_version.find(static_cast<int>(i));
    ExpressionPtr initial = init != tr.init_version.end() && init->second > 0
                                ? name(version_name(tr, static_cast<int>(i), init->second), v.where)
                                : literal(tr, "", v.initial, v.where);
    model->states.push_back(definition(tr.id[i], v.where, std::move(initial), v.name));
    const auto velocity = tr.velocity.find(static_cast<int>(i));
    if (velocity != tr.velocity.end()) model->states.push_back(definition(velocity->second, v.where, number("0", v.where), ""));
  }
  for (std::size_t q = 0; q < tr.table.logic.size(); ++q) {
    if (!tr.memory[q]) continue;
    const LogicVariable& v = tr.table.logic[q];
    model->states.push_back(definition(memory_state(tr, static_cast<int>(q)), v.where, number(v.initial ? "1" : "0", v.where),
                                       v.name + ": 1 while it holds"));
  }
  for (const int held : tr.held) {
    const RealVariable& v = real_of(tr, held);
    model->states.push_back(definition(tr.id[static_cast<std::size_t>(held)] + "_held", v.where,
                                       literal(tr, "", v.initial, v.where), v.name + ": its value when its rules last stopped"));
  }
  if (!any_state) {
    error(tr, Location{1, 1}, "the table has no integral, lag or oscillatory rule: nothing evolves on the engine");
    throw_errors(tr);
  }
}

// Lets: the rules' values, then the rates that differentiators read.
void declare_lets(Translation& tr, lang::ModelSyntax* model) {
  for (Let& let : tr.lets) {
    model->lets.push_back(definition(let.name, let.where, std::move(let.expression), let.comment));
  }
  for (const int v : tr.rate_of) {
    for (const TransformationRule* pin : tr.pins) {
      if (pin->variable != v) continue;
      error(tr, pin->where, "rule " + std::to_string(pin->number) + ": a differentiator reads the rate of '" +
                                real_of(tr, v).name + "', which this rule pins; on the engine this is not supported");
      throw_errors(tr);
    }
    const Location at = real_of(tr, v).where;
    ExpressionPtr sum = chain(TokenKind::kPlus, copies(tr.derivative[v]), at);
    model->lets.push_back(definition("rate_of_" + tr.id[static_cast<std::size_t>(v)], at, sum ? std::move(sum) : number("0", at),
                                     "d/dt of " + real_of(tr, v).name + ", for a differentiator"));
  }
}

// What the modes remember: each is a bit of the mode, set while its level holds, with the
// resets of its start and of its end.
struct Memory {
  std::string name;  // for mode names
  Location where;    // the logic or real variable it remembers
  ExpressionPtr level;
  std::vector<Equation> start, end;
  std::vector<int> frozen;  // states whose rate is 0 while it holds (pinned by a logic state)
  std::string start_label, end_label;
};

Equation equation(std::string state, Location where, ExpressionPtr value) {
  return Equation{std::move(state), where, std::move(value)};
}

std::vector<Equation> copies(const std::vector<Equation>& equations) {
  std::vector<Equation> out;
  for (const Equation& e : equations) out.push_back(equation(e.state, e.where, copy(e.value)));
  return out;
}

// The memories of the table: situations that pin states, states with memory, held values.
std::vector<Memory> memories(Translation& tr) {
  std::vector<Memory> out;
  for (const int logic : tr.pin_logic) {
    const LogicVariable& v = logic_of(tr, logic);
    const std::string id = identifier(v.name);
    Memory m{id, v.where, level_syntax(tr, logic, nullptr), {}, {}, {}, id, id + "_ends"};
    for (const TransformationRule* rule : tr.pins) {
      if (rule->condition.logic != logic) continue;
      m.start.push_back(equation(tr.id[static_cast<std::size_t>(rule->variable)], rule->where,
                                 rule_value(tr, *rule, nullptr, false)));
      if (v.kind == LogicKind::kState) m.frozen.push_back(rule->variable);
    }
    out.push_back(std::move(m));
  }
  // A state with memory flips when its situation rules, read with its present value, say so.
  for (std::size_t q = 0; q < tr.table.logic.size(); ++q) {
    if (!tr.memory[q]) continue;
    const LogicVariable& v = tr.table.logic[q];
    const std::string on = memory_state(tr, static_cast<int>(q)), id = identifier(v.name);
    Memory m{id, v.where, next_syntax(tr, static_cast<int>(q)), {}, {}, {}, id + "_on", id + "_off"};
    m.start.push_back(equation(on, v.where, number("1", v.where)));
    m.end.push_back(equation(on, v.where, number("0", v.where)));
    out.push_back(std::move(m));
  }
  // A held variable keeps the value its rules gave last, from when the last of them stops.
  for (const int held : tr.held) {
    const std::string y = tr.id[static_cast<std::size_t>(held)];
    const Location at = real_of(tr, held).where;
    Memory m{y + "_written", at, written_syntax(tr, held), {}, {}, {}, y + "_written", y + "_held"};
    m.end.push_back(equation(y + "_held", at, name(version_name(tr, held, tr.last_version.at(held)), at)));
    out.push_back(std::move(m));
  }
  return out;
}

// One mode's derivatives: the rules' sums, 0 for a state frozen while it holds and for the
// states that change by transitions only.
std::vector<Equation> mode_derivatives(Translation& tr, const std::set<int>& frozen, const std::vector<std::string>& extra) {
  std::vector<Equation> out;
  for (const auto& [variable, terms] : tr.derivative) {
    const bool rate = variable < 0;
    const int index = rate ? -1 - variable : variable;
    const Location at = real_of(tr, index).where;
    ExpressionPtr sum = chain(TokenKind::kPlus, copies(terms), at);
    if (!sum || (!rate && frozen.count(index) > 0)) sum = number("0", at);
    out.push_back(equation(rate ? tr.velocity[index] : tr.id[static_cast<std::size_t>(index)], at, std::move(sum)));
  }
  const Location at = tr.table.rules.empty() ? Location{1, 1} : tr.table.rules.front().where;
  for (const std::string& state : extra) out.push_back(equation(state, at, number("0", at)));
  return out;
}

// The states with memory that start True start in their modes; a mode leaves for its
// neighbour when one of its bits' levels starts or ends.
void write_transitions(const Translation& tr, const std::vector<Memory>& bits, const std::vector<std::string>& names,
                       lang::ModelSyntax* model) {
  std::size_t initial = 0, bit = tr.pin_logic.size();
  for (std::size_t q = 0; q < tr.table.logic.size(); ++q) {
    if (!tr.memory[q]) continue;
    if (tr.table.logic[q].initial) initial |= std::size_t{1} << bit;
    ++bit;
  }
  const Location rules_where = tr.table.rules.empty() ? Location{1, 1} : tr.table.rules.front().where;
  model->initial.push_back(lang::InitialSyntax{names[initial], rules_where, nullptr});
  for (std::size_t mask = 0; mask < names.size(); ++mask) {
    for (std::size_t i = 0; i < bits.size(); ++i) {
      const Memory& m = bits[i];
      const bool holds = (mask >> i) & 1u;
      lang::TransitionSyntax t;
      t.from.emplace_back(names[mask], m.where);
      t.to = names[holds ? mask & ~(std::size_t{1} << i) : mask | (std::size_t{1} << i)];
      t.label = holds ? m.end_label : m.start_label;
      t.to_where = t.label_where = m.where;
      t.guard = holds ? negation(copy(m.level), m.where) : copy(m.level);
      t.resets = copies(holds ? m.end : m.start);
      model->transitions.push_back(std::move(t));
    }
  }
}

// One mode per combination of the memories (just `run` when there are none); transitions
// between them when a level starts or ends, with its resets. A state frozen by a memory that
// holds has rate 0.
void write_modes(Translation& tr, lang::ModelSyntax* model) {
  const std::vector<Memory> bits = memories(tr);
  if (bits.size() > kMostMemories) {
    error(tr, Location{1, 1}, "on the engine each combination of the situations that pin states, the states with "
                              "memory and the held values is a mode; this table has " + std::to_string(bits.size()) +
                              ", more than " + std::to_string(kMostMemories));
    throw_errors(tr);
  }
  const std::size_t modes = std::size_t{1} << bits.size();
  const Location rules_where = tr.table.rules.empty() ? Location{1, 1} : tr.table.rules.front().where;
  std::vector<std::string> names;
  for (std::size_t mask = 0; mask < modes; ++mask) {
    std::string text = "run";
    for (std::size_t i = 0; i < bits.size(); ++i) {
      if ((mask >> i) & 1u) text += "_" + bits[i].name;
    }
    names.push_back(text);
  }
  std::vector<std::string> extra;
  for (std::size_t q = 0; q < tr.table.logic.size(); ++q) {
    if (tr.memory[q]) extra.push_back(memory_state(tr, static_cast<int>(q)));
  }
  for (const int v : tr.held) extra.push_back(tr.id[static_cast<std::size_t>(v)] + "_held");
  for (std::size_t mask = 0; mask < modes; ++mask) {
    std::set<int> frozen;
    lang::ModeSyntax mode;
    mode.name = names[mask];
    mode.where = rules_where;
    for (std::size_t i = 0; i < bits.size(); ++i) {
      if (((mask >> i) & 1u) == 0) continue;
      frozen.insert(bits[i].frozen.begin(), bits[i].frozen.end());
      mode.where = bits[i].where;
    }
    mode.description = "the table's rules" + (mask == 0 ? "" : ", " + mode.name.substr(4) + " holding");
    mode.derivatives = mode_derivatives(tr, frozen, extra);
    model->modes.push_back(std::move(mode));
  }
  write_transitions(tr, bits, names, model);
}

lang::ModelSyntax translate(const RuleTable& table) {
  Translation tr(table);
  name_ids(tr);
  classify(tr);
  if (!tr.errors.empty()) throw_errors(tr);
  translate_rules(tr);
  if (!tr.errors.empty()) throw_errors(tr);
  lang::ModelSyntax model;
  model.name = identifier(table.name.empty() ? "rule_table" : table.name);
  model.name_where = Location{1, 1};
  model.description = table.title.empty() ? table.name : table.title;
  model.source = table.source;
  declare_parameters(tr, &model);
  declare_states(tr, &model);
  declare_lets(tr, &model);
  write_modes(tr, &model);
  if (!tr.errors.empty()) throw_errors(tr);
  return model;
}

}  // namespace

lang::ModelSyntax model_syntax(const RuleTable& table) { return translate(table); }

std::string model_text(const RuleTable& table) {
  std::string file = table.file;
  std::replace(file.begin(), file.end(), '\n', ' ');
  std::replace(file.begin(), file.end(), '\r', ' ');
  return "# " + file + " on the engine (src/hysim/rules/to_model.cpp)\n" + lang::print(translate(table));
}

ModelEntry engine_entry(const RuleTable& table, std::string* warnings) {
  const lang::ModelSyntax syntax = translate(table);
  auto spec = std::make_shared<const lang::ModelSpec>(lang::resolve(lang::SourceText(table.file, table.text), syntax));
  if (warnings != nullptr) *warnings += spec->warning_text;
  return lang::model_entry(spec);
}

}  // namespace hysim::rules
