#include "hysim/rules/to_model.hpp"

#include <algorithm>
#include <array>
#include <functional>
#include <map>
#include <memory>
#include <set>

#include "hysim/lang/build.hpp"
#include "hysim/lang/spec.hpp"

namespace hysim::rules {

using lang::Diagnostic;
using lang::ModelFileError;
using lang::Severity;

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

// What the translation knows as it goes: the identifiers, which variables are states, the
// versions of each variable in the cycle's order, the lets written so far; and how an operand
// or a situation reads at the current point of the cycle.
class TranslationState {
 protected:
  explicit TranslationState(const RuleTable& table) : table_(table) {}

  const RuleTable& table_;
  std::vector<Diagnostic> errors_;
  std::vector<std::string> id_;                 // per real variable
  std::vector<char> state_;                     // per real variable: integrated
  std::vector<char> assigned_;                  // per real variable: set by a cycle rule (let)
  std::map<int, int> version_, init_version_;   // variable -> versions written so far
  std::map<int, int> last_version_;             // variable -> versions after a whole cycle
  struct Let {
    std::string name, expression, comment;
    std::vector<std::pair<std::string, Location>> reads;  // lets it reads, where
  };
  std::vector<Let> lets_;
  std::map<int, std::vector<std::string>> derivative_;  // state -> terms
  std::map<int, std::string> velocity_;                  // oscillatory state -> its y' state
  std::set<int> written_;  // variables a cycle rule has written so far in this pass

  void error(Location where, std::string message) { errors_.push_back({Severity::kError, where, std::move(message)}); }

  [[noreturn]] void throw_errors() {
    throw ModelFileError(lang::SourceText(table_.file, table_.text), errors_);
  }

  static bool is_state_rule(const TransformationRule& r) {
    return r.procedure == Procedure::kIntegral || r.procedure == Procedure::kLag || r.procedure == Procedure::kOscillatory;
  }

  void name_ids() {
    std::set<std::string> used = {"t", "pi", "t_end", "run"};
    for (const auto& v : table_.reals) {
      std::string base = identifier(v.name), id = base;
      for (int n = 2; used.count(id) > 0; ++n) id = base + "_" + std::to_string(n);
      used.insert(id);
      id_.push_back(id);
    }
  }

  void classify() {
    state_.assign(table_.reals.size(), 0);
    assigned_.assign(table_.reals.size(), 0);
    for (const auto& rule : table_.rules) {
      if (is_state_rule(rule)) state_[static_cast<std::size_t>(rule.variable)] = 1;
    }
    for (const auto& rule : table_.rules) {
      const std::string label = "rule " + std::to_string(rule.number);
      if (rule.procedure == Procedure::kDelay) {
        error(rule.where, label + ": the procedure 'delay' has no continuous-time form on the engine (a delay "
                                  "differential equation); run the table on the rule interpreter");
      }
      // The differentiator's limit is the rate of its argument: the field, for a state.
      const bool of_state = rule.a1.variable >= 0 && state_[static_cast<std::size_t>(rule.a1.variable)];
      if (rule.procedure == Procedure::kDifferentiator && !of_state) {
        error(rule.a1.where, label + ": on the engine the differentiator takes the rate of a state (an integral, lag or "
                                     "oscillatory rule's variable); this argument is not one");
      }
    }
    // Situation rules whose situations read predicates only set their states afresh each cycle:
    // on the engine each such state is the disjunction of its rules' conjunctions of predicates.
    // A state that a situation reads with a logic state, that a rule sets False or that starts
    // True has memory (a latch, q & !release -> q): on the engine it is a state q_on of 0 or 1,
    // flipped by transitions when its situation rules, read with the present q_on, say so.
    memory_.assign(table_.logic.size(), 0);
    for (const SituationRule& rule : table_.situation_rules) {
      bool reads_logic = false;
      for (const Literal& l : rule.situation) {
        const LogicKind kind = table_.logic[static_cast<std::size_t>(l.logic)].kind;
        reads_logic = reads_logic || kind != LogicKind::kPredicate;
        if (kind == LogicKind::kEvent) {
          error(rule.where, "situation rule " + std::to_string(rule.number) + ": on the engine, a situation that reads "
                            "the event '" + table_.logic[static_cast<std::size_t>(l.logic)].name + "' is not supported yet");
        }
      }
      for (const Literal& action : rule.actions) {
        const LogicVariable& v = table_.logic[static_cast<std::size_t>(action.logic)];
        if (v.kind == LogicKind::kState && (reads_logic || action.negated || v.initial)) {
          memory_[static_cast<std::size_t>(action.logic)] = 1;
        }
        if (v.kind == LogicKind::kEvent && (action.negated || v.initial)) {
          error(rule.where, "situation rule " + std::to_string(rule.number) + ": on the engine, an event is set True "
                            "by its situations only (not False, and not True at the start)");
        }
      }
    }
    // A rule that sets a state while a logic state or event holds is a pin (002, Fig. 11: the
    // cart's velocity set to 0 at Stop and while Останов): on the engine, a reset when its
    // situation starts and, for a state, a rate of 0 while it holds.
    for (const auto& rule : table_.rules) {
      if (is_state_rule(rule)) continue;
      if (state_[static_cast<std::size_t>(rule.variable)] && pin(rule)) {
        pins_.push_back(&rule);
        if (std::find(pin_logic_.begin(), pin_logic_.end(), rule.condition.logic) == pin_logic_.end()) {
          pin_logic_.push_back(rule.condition.logic);
        }
        continue;
      }
      assigned_[static_cast<std::size_t>(rule.variable)] = 1;
    }
    for (std::size_t i = 0; i < table_.reals.size(); ++i) {
      if (state_[i] && assigned_[i]) {
        error(table_.reals[i].where, "'" + table_.reals[i].name + "' is both integrated and assigned by rules; on "
                                     "the engine a variable is a state or an algebraic value");
      }
    }
  }

  // Whether a rule on a state sets it to a constant while a logic state or event holds.
  bool pin(const TransformationRule& rule) const {
    if (rule.condition.logic < 0 || !rule.condition.must_be) return false;
    if (table_.logic[static_cast<std::size_t>(rule.condition.logic)].kind == LogicKind::kPredicate) return false;
    if (memory_[static_cast<std::size_t>(rule.condition.logic)]) return false;  // not yet: a state with memory
    const auto constant = [&](const Operand& o) {
      return o.variable < 0 || table_.reals[static_cast<std::size_t>(o.variable)].parameter;
    };
    const bool memoryless = rule.procedure != Procedure::kDelay && rule.procedure != Procedure::kDifferentiator &&
                            rule.procedure != Procedure::kRelay;
    return memoryless && constant(rule.a1) && (!rule.a2 || constant(*rule.a2));
  }

  static constexpr std::size_t kMostMemories = 5;  // 32 modes
  std::vector<char> memory_;  // per logic variable: a state with memory (q_on on the engine)
  std::vector<int> held_;     // variables that keep their value while no rule writes them
  std::set<int> rate_of_;     // states whose rate a differentiator reads (let rate_of_NAME)
  std::vector<const TransformationRule*> pins_;  // rules that pin a state
  std::vector<int> pin_logic_;                   // the logic variables they hold under

  // A logic variable as a boolean expression at this point of the cycle: a predicate (3) as the
  // conjunction of its range tests; a state as the disjunction of the situations that set it
  // (read with the values at the start of the cycle, which in the limit are the current ones).
  std::string logic_text(int logic, Let* let) {
    const LogicVariable& v = table_.logic[static_cast<std::size_t>(logic)];
    if (v.kind == LogicKind::kPredicate) {
      std::string out;
      for (const RangeTerm& term : v.terms) {
        static const char* const kRelation[] = {"<", "<=", ">", ">="};
        Operand x1, x2;
        x1.variable = term.x1;
        x2.variable = term.x2;
        std::string right = format_scalar(term.a, 17);
        if (term.x2 >= 0) right = "(" + right + ") + " + read(x2, let, false);
        out += (out.empty() ? "" : " && ") + std::string("(") + read(x1, let, false) + " " +
               kRelation[static_cast<int>(term.relation)] + " " + right + ")";
      }
      return out.empty() ? "(0 < 1)" : "(" + out + ")";
    }
    if (v.kind == LogicKind::kEvent) return "(1 < 0)";  // an instant: never during the flow
    if (v.kind == LogicKind::kCommand) return "(" + command_parameter(logic) + " > 0.5)";
    if (memory_[static_cast<std::size_t>(logic)]) return "(" + memory_state(logic) + " > 0.5)";
    return level_text(logic, let);
  }

  // A command (an external logic input) is a parameter, 1 or 0 (--param command_NAME=1).
  std::string command_parameter(int logic) const {
    return "command_" + identifier(table_.logic[static_cast<std::size_t>(logic)].name);
  }

  std::string memory_state(int logic) const { return identifier(table_.logic[static_cast<std::size_t>(logic)].name) + "_on"; }

  // Rule (4) for a state with memory: what its situation rules make of it, in order (a later
  // rule overrides an earlier one), from its initial value, read with the present states.
  std::string next_text(int logic) {
    std::string value = table_.logic[static_cast<std::size_t>(logic)].initial ? "(0 < 1)" : "(1 < 0)";
    for (const SituationRule& rule : table_.situation_rules) {
      for (const Literal& action : rule.actions) {
        if (action.logic != logic) continue;
        std::string all;
        for (const Literal& l : rule.situation) {
          all += (all.empty() ? "" : " && ") + std::string(l.negated ? "!" : "") + logic_text(l.logic, nullptr);
        }
        value = action.negated ? "(!(" + all + ") && " + value + ")" : "((" + all + ") || " + value + ")";
      }
    }
    return value;
  }

  // The disjunction of the situations that set a logic state or event.
  std::string level_text(int logic, Let* let) {
    std::string any;
    for (const SituationRule& rule : table_.situation_rules) {
      bool sets = false;
      for (const Literal& action : rule.actions) sets = sets || action.logic == logic;
      if (!sets) continue;
      std::string all;
      for (const Literal& l : rule.situation) {
        all += (all.empty() ? "" : " && ") + std::string(l.negated ? "!" : "") + logic_text(l.logic, let);
      }
      any += (any.empty() ? "" : " || ") + std::string("(") + all + ")";
    }
    return any.empty() ? "(1 < 0)" : "(" + any + ")";
  }

  std::string condition_text(const Condition& c, Let* let) {
    const std::string l = logic_text(c.logic, let);
    return c.must_be ? l : "!" + l;
  }

  std::string version_name(int variable, int version) const {
    return id_[static_cast<std::size_t>(variable)] + (version == 0 ? "" : "__" + std::to_string(version));
  }

  void count_version(const TransformationRule& rule) {
    if (!is_state_rule(rule)) ++version_[rule.variable];
    last_version_ = version_;
  }

  // The text of an operand at this point of the cycle, and the let it reads (if any).
  std::string read(const Operand& o, Let* let, bool init) {
    if (o.variable < 0) return "(" + (o.text.empty() ? format_scalar(o.number, 17) : o.text) + ")";
    const auto v = static_cast<std::size_t>(o.variable);
    if (state_[v] || table_.reals[v].parameter) return id_[v];
    const auto written = version_.find(o.variable);
    if (written != version_.end() && written->second > 0) {
      const std::string name = version_name(o.variable, written->second);
      if (let) let->reads.emplace_back(name, o.where);
      return name;
    }
    if (!init && assigned_[v]) {  // written further down: its last value
      const std::string name = version_name(o.variable, last_version_.at(o.variable));
      if (let) let->reads.emplace_back(name, o.where);
      return name;
    }
    return id_[v];  // a constant: its [initial] value
  }
};

// The table's rules as lets and derivatives, in order.
class RuleLets : protected TranslationState {
 protected:
  explicit RuleLets(const RuleTable& table) : TranslationState(table) {}

  bool pinned(const TransformationRule& rule) const { return std::find(pins_.begin(), pins_.end(), &rule) != pins_.end(); }

  std::string expression(const TransformationRule& r, Let* let, bool init) {
    const std::string k = "(" + r.coefficient_text + ")";
    const std::string a1 = read(r.a1, let, init);
    const std::string a2 = r.a2 ? read(*r.a2, let, init) : "0";
    const auto param = [&](const std::string& key, double fallback) {
      std::string text = "(";
      append_scalar(text, r.parameter(key, fallback), 17);
      text += ')';
      return text;
    };
    switch (r.procedure) {
      case Procedure::kProportional: return k + "*" + a1;
      case Procedure::kSum:
        return k + "*(" + a1 + " + " + param("k2", 1.0) +
               "*" + a2 + ")";
      case Procedure::kMultiplication: return k + "*" + a1 + "*" + a2;
      case Procedure::kDivision: return k + "*" + a1 + "/" + a2;
      case Procedure::kAbsolute: return k + "*abs(" + a1 + ")";
      case Procedure::kRelay:
        return "if " + k + "*" + a1 + " > 0 then " +
               param("upper", 1.0) + " else " +
               param("lower", -1.0);
      case Procedure::kSine: return k + "*sin(" + a1 + "*pi/180)";  // degrees, as EnviCon
      case Procedure::kCosine: return k + "*cos(" + a1 + "*pi/180)";
      case Procedure::kIntegral: return k + "*" + a1;
      case Procedure::kDifferentiator: {  // k da1/dt, a1 a state: its field (rate_lets_)
        const std::string rate = "rate_of_" + id_[static_cast<std::size_t>(r.a1.variable)];
        rate_of_.insert(r.a1.variable);
        return k + "*" + rate;
      }
      default: return "0";
    }
  }

  void assign(const TransformationRule& rule, bool init) {
    Let let;
    let.expression = expression(rule, &let, init);
    if (!init && rule.condition.logic >= 0) conditional(rule, &let);
    if (!init) written_.insert(rule.variable);
    const int version = ++version_[rule.variable];
    let.name = version_name(rule.variable, version);
    let.comment = (init ? "init rule " : "rule ") + std::to_string(rule.number) + ": " +
                  table_.reals[static_cast<std::size_t>(rule.variable)].name;
    lets_.push_back(std::move(let));
  }

  // `when` while the condition holds, else `otherwise`. A state with memory is 0 or 1 between
  // events, so its choice is a blend, not a switch for the compiler to split modes on.
  std::string choose(const Condition& c, const std::string& when, const std::string& otherwise, Let* let) {
    if (memory_[static_cast<std::size_t>(c.logic)]) {
      const std::string on = memory_state(c.logic), off = "(1 - " + on + ")";
      return (c.must_be ? on : off) + "*(" + when + ") + " + (c.must_be ? off : on) + "*(" + otherwise + ")";
    }
    return "if " + condition_text(c, let) + " then " + when + " else " + otherwise;
  }

  // y := tau while the rule's situation holds. Otherwise y keeps the value an earlier rule of
  // this cycle wrote, or the next rule on y takes over when its situation is the complement
  // (001, Fig. 1, rules 1 and 2); a value held from the previous cycle needs a state the
  // translation does not make yet.
  void conditional(const TransformationRule& rule, Let* let) {
    if (written_.count(rule.variable) > 0) {
      const std::string previous = version_name(rule.variable, version_[rule.variable]);
      let->reads.emplace_back(previous, rule.where);
      let->expression = choose(rule.condition, let->expression, previous, let);
      return;
    }
    const auto self = static_cast<std::size_t>(&rule - table_.rules.data());
    for (std::size_t next = self + 1; next < table_.rules.size(); ++next) {
      const TransformationRule& other = table_.rules[next];
      if (other.variable != rule.variable) continue;
      if (other.condition.logic == rule.condition.logic && other.condition.must_be != rule.condition.must_be) {
        let->expression = choose(rule.condition, let->expression, expression(other, let, false), let);
        return;
      }
      break;
    }
    // Otherwise y keeps the value of the previous cycle: in the limit, its last version now when
    // some rule writes it at every instant; else the value it had when the last of its rules
    // stopped, a state y_held that a transition sets then (held_ below).
    bool always = false;
    for (const TransformationRule& other : table_.rules) {
      always = always || (other.variable == rule.variable && other.condition.logic < 0 && !is_state_rule(other));
    }
    if (always) {
      const std::string last = version_name(rule.variable, last_version_.at(rule.variable));
      let->reads.emplace_back(last, rule.where);
      let->expression = choose(rule.condition, let->expression, last, let);
      return;
    }
    if (table_.logic[static_cast<std::size_t>(rule.condition.logic)].kind == LogicKind::kEvent) {
      error(rule.where, "rule " + std::to_string(rule.number) + ": '" +
                            table_.reals[static_cast<std::size_t>(rule.variable)].name +
                            "' is written at an event only and held otherwise; on the engine this is not supported yet");
      return;
    }
    if (std::find(held_.begin(), held_.end(), rule.variable) == held_.end()) held_.push_back(rule.variable);
    let->expression = choose(rule.condition, let->expression, id_[static_cast<std::size_t>(rule.variable)] + "_held", let);
  }

  // A held variable: whether some rule writes it at this instant (the disjunction of their
  // situations).
  std::string written_text(int variable) {
    std::string any;
    for (const TransformationRule& rule : table_.rules) {
      if (rule.variable != variable || is_state_rule(rule)) continue;
      any += (any.empty() ? "" : " || ") + std::string("(") + condition_text(rule.condition, nullptr) + ")";
    }
    return "(" + any + ")";
  }

  void add_derivative(const TransformationRule& rule) {
    Let ignored;
    const std::string y = id_[static_cast<std::size_t>(rule.variable)];
    std::string ka1 = "(" + rule.coefficient_text + ")*" + read(rule.a1, &ignored, false);
    if (rule.condition.logic >= 0) ka1 = "(" + choose(rule.condition, ka1, "0", &ignored) + ")";
    switch (rule.procedure) {
      case Procedure::kIntegral: derivative_[rule.variable].push_back(ka1); break;
      case Procedure::kLag: {
        const std::string T = format_scalar(rule.parameter("T", 1.0), 17);
        derivative_[rule.variable].push_back("(" + ka1 + " - " + y + ")/(" + T + ")");
        break;
      }
      case Procedure::kOscillatory: {
        const std::string T = format_scalar(rule.parameter("T", 1.0), 17);
        const std::string xi = format_scalar(rule.parameter("xi", 0.0), 17);
        const std::string v = y + "_rate";
        velocity_[rule.variable] = v;
        derivative_[rule.variable].push_back(v);
        derivative_[-1 - rule.variable].push_back("(" + ka1 + " - " + y + " - 2*(" + xi + ")*(" + T + ")*" + v + ")/((" +
                                                  T + ")*(" + T + "))");
        break;
      }
      default: break;
    }
  }

  // An algebraic loop: a let that reaches itself through the lets it reads.
  void find_loops() {
    std::map<std::string, const Let*> by_name;
    for (const auto& let : lets_) by_name[let.name] = &let;
    std::map<std::string, int> state;  // 0 unseen, 1 on the path, 2 done
    std::function<bool(const Let&)> visit = [&](const Let& let) -> bool {
      state[let.name] = 1;
      for (const auto& [name, where] : let.reads) {
        const auto found = by_name.find(name);
        if (found == by_name.end()) continue;
        if (state[name] == 1) {
          error(where, let.comment + ": an algebraic loop: this argument depends on the rule's own result through "
                                     "rules that read values written further down (cyclic algebraic rules)");
          return true;
        }
        if (state[name] == 0 && visit(*found->second)) return true;
      }
      state[let.name] = 2;
      return false;
    };
    for (const auto& let : lets_) {
      if (state[let.name] == 0 && visit(let)) return;
    }
  }
};

// The lets and derivatives, then the model file's text: the modes and their transitions.
class Translator final : private RuleLets {
 public:
  explicit Translator(const RuleTable& table) : RuleLets(table) {}

  std::string text() {
    name_ids();
    classify();
    if (!errors_.empty()) throw_errors();
    // Init rules: lets of the parameters, in order (each reads the versions before it).
    for (const auto& rule : table_.init_rules) assign(rule, true);
    init_version_ = version_;
    // The cycle: first pass finds each variable's last version, the second writes them.
    for (const auto& rule : table_.rules) {
      if (!pinned(rule)) count_version(rule);
    }
    version_ = init_version_;
    for (const auto& rule : table_.rules) {
      if (is_state_rule(rule)) add_derivative(rule);
      else if (!pinned(rule)) assign(rule, false);
    }
    find_loops();
    if (!errors_.empty()) throw_errors();
    return write();
  }

 private:
  std::string quoted(const std::string& text) const {
    std::string out = "\"";
    for (const char c : text) {
      if (c == '"' || c == '\\') out += '\\';
      if (c != '\n') out += c;
    }
    return out + "\"";
  }

  std::string write() {
    std::string out;
    out += "# " + table_.file + " on the engine (src/hysim/rules/to_model.cpp)\n";
    out += "model " + identifier(table_.name.empty() ? "rule_table" : table_.name) + " " +
           quoted(table_.title.empty() ? table_.name : table_.title) + "\n";
    if (!table_.source.empty()) out += "source " + quoted(table_.source) + "\n";
    for (std::size_t i = 0; i < table_.reals.size(); ++i) {
      const auto& v = table_.reals[i];
      if (state_[i]) continue;  // a variable rules assign starts from its [initial] value too
      out += "parameter " + id_[i] + " = " + format_scalar(v.initial, 17) + " " + quoted(v.name) + "\n";
    }
    for (std::size_t q = 0; q < table_.logic.size(); ++q) {
      if (table_.logic[q].kind != LogicKind::kCommand) continue;
      out += "parameter " + command_parameter(static_cast<int>(q)) + " = " + (table_.logic[q].initial ? "1" : "0") + " " +
             quoted(table_.logic[q].name + ": a command, 1 (True) or 0 (False)") + "\n";
    }
    bool any_state = false;
    for (std::size_t i = 0; i < table_.reals.size(); ++i) {
      if (!state_[i]) continue;
      any_state = true;
      const auto init = init_version_.find(static_cast<int>(i));
      const std::string initial = init != init_version_.end() && init->second > 0
                                      ? version_name(static_cast<int>(i), init->second)
                                      : format_scalar(table_.reals[i].initial, 17);
      out += "state " + id_[i] + " = " + initial + " " + quoted(table_.reals[i].name) + "\n";
      if (velocity_.count(static_cast<int>(i)) > 0) out += "state " + velocity_[static_cast<int>(i)] + " = 0\n";
    }
    for (std::size_t q = 0; q < table_.logic.size(); ++q) {
      if (!memory_[q]) continue;
      out += "state " + memory_state(static_cast<int>(q)) + " = " + (table_.logic[q].initial ? "1" : "0") + " " +
             quoted(table_.logic[q].name + ": 1 while it holds") + "\n";
    }
    for (const int v : held_) {
      const auto i = static_cast<std::size_t>(v);
      out += "state " + id_[i] + "_held = " + format_scalar(table_.reals[i].initial, 17) + " " +
             quoted(table_.reals[i].name + ": its value when its rules last stopped") + "\n";
    }
    if (!any_state) {
      error(Location{1, 1}, "the table has no integral, lag or oscillatory rule: nothing evolves on the engine");
      throw_errors();
    }
    for (const auto& let : lets_) out += "let " + let.name + " = " + let.expression + "   # " + let.comment + "\n";
    for (const int v : rate_of_) {
      for (const TransformationRule* pin : pins_) {
        if (pin->variable == v) {
          error(pin->where, "rule " + std::to_string(pin->number) + ": a differentiator reads the rate of '" +
                                table_.reals[static_cast<std::size_t>(v)].name + "', which this rule pins; on the engine "
                                "this is not supported");
          throw_errors();
        }
      }
      std::string sum;
      for (const auto& term : derivative_[v]) sum += (sum.empty() ? "" : " + ") + term;
      out += "let rate_of_" + id_[static_cast<std::size_t>(v)] + " = " + (sum.empty() ? "0" : sum) + "   # d/dt of " +
             table_.reals[static_cast<std::size_t>(v)].name + ", for a differentiator\n";
    }
    write_modes(&out);
    return out;
  }

  // What the modes remember: each is a bit of the mode, set while its level holds, with the
  // resets of its start and of its end.
  struct Memory {
    std::string name;               // for mode names
    std::string level;              // a condition of the state
    std::string start, end;         // resets (model-file text)
    std::vector<int> frozen;        // states whose rate is 0 while it holds (pinned by a logic state)
    std::string start_label, end_label;  // the transitions' names
  };

  // The memories of the table: situations that pin states, states with memory, held values.
  std::vector<Memory> memories() {
    std::vector<Memory> out;
    for (const int logic : pin_logic_) {
      const std::string name = identifier(table_.logic[static_cast<std::size_t>(logic)].name);
      Memory m{name, level_text(logic, nullptr), "", "", {}, name, name + "_ends"};
      for (const TransformationRule* rule : pins_) {
        if (rule->condition.logic != logic) continue;
        m.start += " " + id_[static_cast<std::size_t>(rule->variable)] + " := " + expression(*rule, nullptr, false) + ";";
        if (table_.logic[static_cast<std::size_t>(logic)].kind == LogicKind::kState) m.frozen.push_back(rule->variable);
      }
      out.push_back(std::move(m));
    }
    // A state with memory flips when its situation rules, read with its present value, say so.
    for (std::size_t q = 0; q < table_.logic.size(); ++q) {
      if (!memory_[q]) continue;
      const std::string on = memory_state(static_cast<int>(q));
      const std::string name = identifier(table_.logic[q].name);
      out.push_back({name, next_text(static_cast<int>(q)), " " + on + " := 1;", " " + on + " := 0;", {}, name + "_on", name + "_off"});
    }
    // A held variable keeps the value its rules gave last, from when the last of them stops.
    for (const int v : held_) {
      const std::string y = id_[static_cast<std::size_t>(v)];
      out.push_back({y + "_written", written_text(v), "", " " + y + "_held := " + version_name(v, last_version_.at(v)) + ";", {},
                     y + "_written", y + "_held"});
    }
    return out;
  }

  // One mode per combination of the memories (just `run` when there are none); transitions
  // between them when a level starts or ends, with its resets. A state frozen by a memory that
  // holds has rate 0.
  void write_modes(std::string* out) {
    const std::vector<Memory> bits = memories();
    if (bits.size() > kMostMemories) {
      error(Location{1, 1}, "on the engine each combination of the situations that pin states, the states with memory "
                            "and the held values is a mode; this table has " + std::to_string(bits.size()) +
                            ", more than " + std::to_string(kMostMemories));
      throw_errors();
    }
    const std::size_t modes = std::size_t{1} << bits.size();
    const auto mode_name = [&](std::size_t mask) {
      std::string name = "run";
      for (std::size_t i = 0; i < bits.size(); ++i) {
        if ((mask >> i) & 1u) name += "_" + bits[i].name;
      }
      return name;
    };
    std::vector<std::string> extra_states;
    for (std::size_t q = 0; q < table_.logic.size(); ++q) {
      if (memory_[q]) extra_states.push_back(memory_state(static_cast<int>(q)));
    }
    for (const int v : held_) extra_states.push_back(id_[static_cast<std::size_t>(v)] + "_held");
    for (std::size_t mask = 0; mask < modes; ++mask) {
      std::set<int> frozen;
      for (std::size_t i = 0; i < bits.size(); ++i) {
        if ((mask >> i) & 1u) frozen.insert(bits[i].frozen.begin(), bits[i].frozen.end());
      }
      *out += "mode " + mode_name(mask) + " \"the table's rules" + (mask == 0 ? "" : ", " + mode_name(mask).substr(4) + " holding") + "\" {";
      for (const auto& [variable, terms] : derivative_) {
        const bool rate = variable < 0;
        const int index = rate ? -1 - variable : variable;
        std::string sum;
        for (const auto& term : terms) sum += (sum.empty() ? "" : " + ") + term;
        if (!rate && frozen.count(index) > 0) sum = "0";
        *out += " der(" + (rate ? velocity_[index] : id_[static_cast<std::size_t>(index)]) + ") = " + sum + ";";
      }
      for (const std::string& state : extra_states) *out += " der(" + state + ") = 0;";
      *out += " }\n";
    }
    // The states with memory that start True start in their modes.
    std::size_t initial = 0, bit = pin_logic_.size();
    for (std::size_t q = 0; q < table_.logic.size(); ++q) {
      if (!memory_[q]) continue;
      if (table_.logic[q].initial) initial |= std::size_t{1} << bit;
      ++bit;
    }
    *out += "initial " + mode_name(initial) + "\n";
    for (std::size_t mask = 0; mask < modes; ++mask) {
      for (std::size_t i = 0; i < bits.size(); ++i) {
        const Memory& m = bits[i];
        if ((mask >> i) & 1u) {
          *out += mode_name(mask) + " -> " + mode_name(mask & ~(std::size_t{1} << i)) + " " + m.end_label + " [!" + m.level +
                  "] {" + m.end + " }\n";
        } else {
          *out += mode_name(mask) + " -> " + mode_name(mask | (std::size_t{1} << i)) + " " + m.start_label + " [" + m.level + "] {" +
                  m.start + " }\n";
        }
      }
    }
  }};

}  // namespace

std::string model_text(const RuleTable& table) { return Translator(table).text(); }

ModelEntry engine_entry(const RuleTable& table, std::string* warnings) {
  const std::string text = model_text(table);
  auto spec = std::make_shared<const lang::ModelSpec>(lang::compile_text(table.file + " (on the engine)", text));
  if (warnings != nullptr) *warnings += spec->warning_text;
  return lang::model_entry(spec);
}

}  // namespace hysim::rules
