// The resolver: names to parameters, states and lets; every expression into the model's
// Graph; guards normalised by De Morgan's rules into trees of atoms e REL 0 with symbolic
// rates; and every check of docs/model-language.md, "Errors". It collects every error it
// finds (each with file:line:column) before throwing.
#include <cmath>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "hysim/core/scalar.hpp"
#include "hysim/lang/spec.hpp"
#include "hysim/lang/syntax.hpp"

namespace hysim::lang {

namespace {

// Words that cannot name a parameter, state, let or mode.
const std::set<std::string> kKeywords = {"model", "source", "parameter", "state", "let", "require", "flow", "mode",
                                         "algebraic", "initial", "zeno", "preset", "der", "if", "then",
                                         "else", "prior", "jumping", "t", "pi", "t_end"};

// pi to 40 significant digits: enough for binary128 (34 digits) to round correctly.
constexpr const char* kPi = "3.141592653589793238462643383279502884197";

// Where an expression is written decides what it may read.
enum class Context {
  kConstant,  // initial values: parameters, constants and lets of them
  kInitial,   // conditions of the initial mode: also the initial state
  kField,     // der(x) = ...: t, states, parameters
  kGuard,     // [ ... ]: also prior(x)
  kReset,     // x := ...: t and the a priori state
  kLet,       // let: anything; the use decides
};

const char* context_name(Context c) {
  switch (c) {
    case Context::kConstant: return "an initial value or requirement";
    case Context::kInitial: return "the condition of an initial mode";
    case Context::kField: return "a derivative";
    case Context::kGuard: return "a guard";
    case Context::kReset: return "a reset";
    case Context::kLet: return "a let";
  }
  return "";
}

struct Value {
  NodeId id = -1;
  bool boolean = false;
};

class Resolver {
 public:
  Resolver(const SourceText& source, const ModelSyntax& syntax) : source_(source), syntax_(syntax) {}

  ModelSpec run() {
    spec_.name = syntax_.name;
    spec_.description = syntax_.description;
    spec_.source = syntax_.source;
    spec_.file = source_.name();
    declare_names();
    resolve_lets();
    resolve_states();
    resolve_requirements();
    resolve_modes();
    resolve_transitions();
    resolve_zeno();
    resolve_presets();
    if (!errors_.empty()) throw ModelFileError(source_, std::move(errors_));
    warn_unreachable();
    split_switching_modes(&spec_);
    for (const auto& w : spec_.warnings) spec_.warning_text += render(source_, w);
    return std::move(spec_);
  }

 private:
  // ---- names ------------------------------------------------------------------------------
  enum class NameKind { kParameter, kState, kLet };
  struct NameInfo {
    NameKind kind;
    int index;  // parameter or state index, or index into syntax_.lets
    Location where;
  };

  void error(Location where, std::string message) {
    errors_.push_back(Diagnostic{Severity::kError, where, std::move(message)});
  }

  static const char* kind_name(NameKind k) {
    switch (k) {
      case NameKind::kParameter: return "a parameter";
      case NameKind::kState: return "a state";
      case NameKind::kLet: return "a let";
    }
    return "";
  }

  bool declare(const std::string& name, Location where, NameKind kind, int index) {
    if (kKeywords.count(name) != 0) {
      error(where, "'" + name + "' is a keyword of the language and cannot name " + kind_name(kind));
      return false;
    }
    Op op;
    int arity;
    if (find_function(name, &op, &arity)) {
      error(where, "'" + name + "' is a function of the language and cannot name " + kind_name(kind));
      return false;
    }
    const auto [it, inserted] = names_.emplace(name, NameInfo{kind, index, where});
    if (!inserted) {
      error(where, "'" + name + "' is declared twice: it is already " + kind_name(it->second.kind) + " (line " +
                       std::to_string(it->second.where.line) + ")");
      return false;
    }
    return true;
  }

  std::vector<std::string> known_names() const {
    std::vector<std::string> out = {"t", "pi", "jumping"};
    for (const auto& [name, info] : names_) out.push_back(name);
    return out;
  }

  static bool literal_text(const Expression& e, std::string* text) {
    if (e.kind == Expression::Kind::kNumber) {
      *text = e.text;
      return true;
    }
    if (e.kind == Expression::Kind::kUnary && (e.op == TokenKind::kMinus || e.op == TokenKind::kPlus) &&
        e.arguments[0]->kind == Expression::Kind::kNumber) {
      *text = (e.op == TokenKind::kMinus ? "-" : "") + e.arguments[0]->text;
      return true;
    }
    return false;
  }

  // A literal that double can hold as a finite number (long double and float128 hold it too).
  bool finite_literal(const std::string& text, Location where, const std::string& what) {
    try {
      (void)parse_decimal<double>(text, what);
      return true;
    } catch (const Error&) {
      error(where, what + " = " + text + " is not a finite number");
      return false;
    }
  }

  void declare_names() {
    for (std::size_t i = 0; i < syntax_.parameters.size(); ++i) {
      const Definition& d = syntax_.parameters[i];
      if (!declare(d.name, d.where, NameKind::kParameter, static_cast<int>(spec_.parameters.size()))) continue;
      std::string text;
      if (!literal_text(*d.value, &text)) {
        error(d.value->where, "the default of parameter '" + d.name +
                                  "' must be a number (a value derived from parameters is a 'let')");
        text = "0";
      }
      finite_literal(text, d.value->where, "parameter '" + d.name + "'");
      spec_.parameters.push_back(ParameterInfo{d.name, text, d.description, d.where});
    }
    for (std::size_t i = 0; i < syntax_.states.size(); ++i) {
      const Definition& d = syntax_.states[i];
      if (!declare(d.name, d.where, NameKind::kState, static_cast<int>(spec_.states.size()))) continue;
      spec_.states.push_back(StateInfo{d.name, -1, d.description, d.where});
    }
    for (std::size_t i = 0; i < syntax_.lets.size(); ++i) {
      declare(syntax_.lets[i].name, syntax_.lets[i].where, NameKind::kLet, static_cast<int>(i));
    }
    if (spec_.states.empty()) error(syntax_.name_where, "the model declares no state: add 'state NAME = VALUE'");
    lets_.assign(syntax_.lets.size(), LetState{});
  }

  // ---- lets -----------------------------------------------------------------------------
  struct LetState {
    enum { kUnvisited, kVisiting, kDone, kFailed } status = kUnvisited;
    Value value;
  };

  void resolve_lets() {
    for (std::size_t i = 0; i < syntax_.lets.size(); ++i) {
      const auto declared = names_.find(syntax_.lets[i].name);  // absent or another: a reported clash
      if (declared == names_.end() || declared->second.kind != NameKind::kLet ||
          declared->second.index != static_cast<int>(i)) {
        continue;
      }
      (void)let_value(static_cast<int>(i), syntax_.lets[i].where);
      const LetState& s = lets_[i];
      if (s.status == LetState::kDone && !s.value.boolean) spec_.lets.push_back({syntax_.lets[i].name, s.value.id, syntax_.lets[i].where});
    }
  }

  bool let_value(int index, Location used_at, Value* out = nullptr) {
    LetState& s = lets_[static_cast<std::size_t>(index)];
    const Definition& d = syntax_.lets[static_cast<std::size_t>(index)];
    if (s.status == LetState::kVisiting) {
      std::string cycle;
      for (int i : let_stack_) cycle += syntax_.lets[static_cast<std::size_t>(i)].name + " -> ";
      error(used_at, "recursion among let names: " + cycle + d.name);
      return false;
    }
    if (s.status == LetState::kUnvisited) {
      s.status = LetState::kVisiting;
      let_stack_.push_back(index);
      Value v;
      const bool ok = expression(*d.value, Context::kLet, &v);
      let_stack_.pop_back();
      lets_[static_cast<std::size_t>(index)].status = ok ? LetState::kDone : LetState::kFailed;
      lets_[static_cast<std::size_t>(index)].value = v;
    }
    if (lets_[static_cast<std::size_t>(index)].status != LetState::kDone) return false;
    if (out != nullptr) *out = lets_[static_cast<std::size_t>(index)].value;
    return true;
  }

  // ---- expressions ------------------------------------------------------------------------
  // Resolves e in context c; false (with the error recorded) when it cannot.
  bool expression(const Expression& e, Context c, Value* out) {
    Graph& g = spec_.graph;
    switch (e.kind) {
      case Expression::Kind::kNumber: *out = {g.constant(e.text), false}; return true;
      case Expression::Kind::kName: return name(e, c, out);
      case Expression::Kind::kCall: return call(e, c, out);
      case Expression::Kind::kUnary: {
        Value a;
        if (!expression(*e.arguments[0], c, &a)) return false;
        if (e.op == TokenKind::kNot) {
          if (!a.boolean) return fail(e.where, "'!' negates a condition, but its operand is a number");
          *out = {g.apply(Op::kNot, {a.id}), true};
          return true;
        }
        if (a.boolean) return fail(e.where, "a condition cannot be used as a number; write 'if ... then ... else ...'");
        *out = {e.op == TokenKind::kMinus ? g.apply(Op::kNegate, {a.id}) : a.id, false};
        return true;
      }
      case Expression::Kind::kBinary: return binary(e, c, out);
      case Expression::Kind::kIf: {
        Value cond, a, b;
        const bool ok = expression(*e.arguments[0], c, &cond) & expression(*e.arguments[1], c, &a) &
                        expression(*e.arguments[2], c, &b);
        if (!ok) return false;
        if (!cond.boolean) return fail(e.arguments[0]->where, "the condition of 'if' must be a comparison, found a number");
        if (a.boolean || b.boolean) return fail(e.where, "the branches of 'if' must be numbers, not conditions");
        *out = {g.apply(Op::kSelect, {cond.id, a.id, b.id}), false};
        return checked_height(e.where, *out);
      }
    }
    return false;
  }

  bool fail(Location where, std::string message) {
    error(where, std::move(message));
    return false;
  }

  bool checked_height(Location where, const Value& v) {
    if (spec_.graph.height(v.id) <= Graph::kMaxHeight) return true;
    return fail(where, "expression too deep once its let names are expanded (more than " +
                           std::to_string(Graph::kMaxHeight) + " operations); simplify it");
  }

  bool name(const Expression& e, Context c, Value* out) {
    Graph& g = spec_.graph;
    if (e.text == "t") {
      if (c == Context::kConstant || c == Context::kInitial) {
        return fail(e.where, "initial values, requirements and initial modes cannot depend on t");
      }
      *out = {g.leaf(Op::kTime, -1), false};
      return true;
    }
    if (e.text == "jumping") {
      if (c != Context::kGuard && c != Context::kLet) {
        return fail(e.where, std::string("'jumping' tells a transition chain's tests from continuous evolution; it has a "
                                         "meaning in guards only, not in ") + context_name(c));
      }
      *out = {g.leaf(Op::kJumping, -1), true};
      return true;
    }
    if (e.text == "pi") {
      *out = {g.constant(kPi), false};
      return true;
    }
    const auto found = names_.find(e.text);
    if (found == names_.end()) {
      std::string message = "unknown name '" + e.text + "'";
      const std::string near = closest_name(e.text, known_names());
      if (!near.empty()) message += "; did you mean '" + near + "'?";
      else message += " (not a parameter, state or let of this model)";
      return fail(e.where, message);
    }
    const NameInfo& info = found->second;
    switch (info.kind) {
      case NameKind::kParameter: *out = {g.leaf(Op::kParameter, info.index), false}; return true;
      case NameKind::kState:
        if (c == Context::kConstant) {
          return fail(e.where, "initial values and requirements depend on parameters only, not on the state '" + e.text + "'");
        }
        *out = {g.leaf(Op::kState, info.index), false};
        return true;
      case NameKind::kLet: {
        Value v;
        if (!let_value(info.index, e.where, &v)) return false;
        if (c == Context::kConstant && !g.is_constant(v.id)) {
          return fail(e.where, "initial values and requirements depend on parameters only; the let '" + e.text +
                                   "' reads the state or t");
        }
        if (c != Context::kGuard && c != Context::kLet && g.reads_prior(v.id)) {
          return fail(e.where, std::string("the let '") + e.text + "' reads prior() or jumping, which have a meaning in guards only, not in " +
                                   context_name(c));
        }
        *out = v;
        return true;
      }
    }
    return false;
  }

  bool call(const Expression& e, Context c, Value* out) {
    Graph& g = spec_.graph;
    if (e.text == "der") {
      return fail(e.where, "der() is written only on the left of an equation in a flow or mode block");
    }
    if (e.text == "prior") {
      if (c != Context::kGuard && c != Context::kLet) {
        return fail(e.where, std::string("prior() reads the state before a jump; it has a meaning in guards only, not in ") +
                                 context_name(c));
      }
      if (e.arguments.size() != 1 || e.arguments[0]->kind != Expression::Kind::kName) {
        return fail(e.where, "prior() takes the name of one state, as in prior(saw)");
      }
      const auto found = names_.find(e.arguments[0]->text);
      if (found == names_.end() || found->second.kind != NameKind::kState) {
        return fail(e.arguments[0]->where, "prior() takes a state; '" + e.arguments[0]->text + "' is not one");
      }
      *out = {g.leaf(Op::kPrior, found->second.index), false};
      return true;
    }
    Op op;
    int arity;
    if (!find_function(e.text, &op, &arity)) {
      std::string message = "unknown function '" + e.text + "'";
      std::vector<std::string> candidates = function_names();
      candidates.insert(candidates.end(), {"prior", "der"});
      const std::string near = closest_name(e.text, candidates);
      if (!near.empty()) message += "; did you mean '" + near + "'?";
      else message += " (docs/model-language.md lists the functions)";
      return fail(e.where, message);
    }
    if (static_cast<int>(e.arguments.size()) != arity) {
      return fail(e.where, e.text + "() takes " + std::to_string(arity) + (arity == 1 ? " argument" : " arguments") +
                               ", found " + std::to_string(e.arguments.size()));
    }
    std::vector<NodeId> args;
    bool ok = true;
    for (const auto& a : e.arguments) {
      Value v;
      if (!expression(*a, c, &v)) {
        ok = false;
        continue;
      }
      if (v.boolean) ok = fail(a->where, e.text + "() takes numbers, not conditions");
      args.push_back(v.id);
    }
    if (!ok) return false;
    *out = {g.apply(op, std::move(args)), false};
    return checked_height(e.where, *out);
  }

  static Op binary_op(TokenKind k) {
    switch (k) {
      case TokenKind::kPlus: return Op::kAdd;
      case TokenKind::kMinus: return Op::kSubtract;
      case TokenKind::kStar: return Op::kMultiply;
      case TokenKind::kSlash: return Op::kDivide;
      case TokenKind::kCaret: return Op::kPower;
      case TokenKind::kLess: return Op::kLess;
      case TokenKind::kLessEqual: return Op::kLessEqual;
      case TokenKind::kGreater: return Op::kGreater;
      case TokenKind::kGreaterEqual: return Op::kGreaterEqual;
      case TokenKind::kEqual: return Op::kEqual;
      case TokenKind::kNotEqual: return Op::kNotEqual;
      case TokenKind::kAnd: return Op::kAnd;
      default: return Op::kOr;
    }
  }

  bool binary(const Expression& e, Context c, Value* out) {
    Value a, b;
    const bool ok = expression(*e.arguments[0], c, &a) & expression(*e.arguments[1], c, &b);
    if (!ok) return false;
    const Op op = binary_op(e.op);
    const std::string spelled = op_spelling(op);
    if (op == Op::kAnd || op == Op::kOr) {
      if (!a.boolean || !b.boolean) return fail(e.where, "'" + spelled + "' joins conditions, but an operand is a number");
      *out = {spec_.graph.apply(op, {a.id, b.id}), true};
      return checked_height(e.where, *out);
    }
    if (a.boolean || b.boolean) {
      return fail(e.where, "'" + spelled + "' takes numbers, but an operand is a condition" +
                               (is_comparison(op) ? " (comparisons do not chain)" : ""));
    }
    *out = {spec_.graph.apply(op, {a.id, b.id}), is_comparison(op)};
    return checked_height(e.where, *out);
  }

  // A numeric expression of context c (initial values, derivatives, resets).
  bool number(const Expression& e, Context c, NodeId* out, const std::string& what) {
    Value v;
    if (!expression(e, c, &v)) return false;
    if (v.boolean) return fail(e.where, what + " must be a number, found a condition; write 'if ... then ... else ...'");
    *out = v.id;
    return true;
  }

  void resolve_requirements() {
    for (const RequirementSyntax& r : syntax_.requirements) {
      Value v;
      if (!expression(*r.condition, Context::kConstant, &v)) continue;
      if (!v.boolean) {
        error(r.condition->where, "'require' takes a condition on the parameters, as in require g > 0, found a number");
        continue;
      }
      spec_.requirements.push_back(RequirementSpec{v.id, spec_.print(v.id), r.message, r.where});
    }
  }

  // ---- states, modes ------------------------------------------------------------------------
  void resolve_states() {
    for (std::size_t i = 0; i < spec_.states.size(); ++i) {
      const Definition& d = *find_definition(syntax_.states, spec_.states[i].name);
      number(*d.value, Context::kConstant, &spec_.states[i].initial, "the initial value of '" + d.name + "'");
    }
  }

  static const Definition* find_definition(const std::vector<Definition>& list, const std::string& name) {
    for (const auto& d : list) {
      if (d.name == name) return &d;
    }
    return nullptr;
  }

  int state_index(const std::string& name, Location where, const char* use) {
    const auto found = names_.find(name);
    if (found != names_.end() && found->second.kind == NameKind::kState) return found->second.index;
    if (found != names_.end()) {
      error(where, std::string(use) + " applies to states; '" + name + "' is " + kind_name(found->second.kind));
    } else {
      std::vector<std::string> states;
      for (const auto& s : spec_.states) states.push_back(s.name);
      const std::string near = closest_name(name, states);
      error(where, std::string(use) + " of an unknown state '" + name + "'" +
                       (near.empty() ? "" : "; did you mean '" + near + "'?"));
    }
    return -1;
  }

  // der(x) = ... equations into `field`, one per state; a second equation for x is an error.
  void derivatives(const std::vector<Equation>& equations, std::vector<NodeId>* field, const char* block) {
    std::vector<bool> seen(spec_.states.size(), false);
    for (const Equation& eq : equations) {
      const int s = state_index(eq.state, eq.where, "der()");
      if (s < 0) continue;
      if (seen[static_cast<std::size_t>(s)]) {
        error(eq.where, "der(" + eq.state + ") is given twice in " + block);
        continue;
      }
      seen[static_cast<std::size_t>(s)] = true;
      if (!number(*eq.value, Context::kField, &(*field)[static_cast<std::size_t>(s)], "der(" + eq.state + ")")) {
        (*field)[static_cast<std::size_t>(s)] = spec_.graph.constant("0");  // reported; no follow-up error
      }
    }
  }

  void resolve_modes() {
    std::vector<NodeId> shared(spec_.states.size(), -1);
    derivatives(syntax_.flow, &shared, "the flow block");
    if (syntax_.modes.empty()) error(syntax_.name_where, "the model declares no mode: add 'mode NAME { ... }'");
    for (const ModeSyntax& m : syntax_.modes) {
      if (mode_index_.count(m.name) != 0) {
        error(m.where, "mode '" + m.name + "' is declared twice (line " +
                           std::to_string(spec_.modes[static_cast<std::size_t>(mode_index_[m.name])].where.line) + ")");
        continue;
      }
      ModeSpec mode{m.name, m.description, m.algebraic, {}, m.where};
      if (!m.algebraic) {
        mode.field = shared;
        derivatives(m.derivatives, &mode.field, ("mode '" + m.name + "'").c_str());
        for (std::size_t s = 0; s < spec_.states.size(); ++s) {
          if (mode.field[s] >= 0) continue;
          error(m.where, "mode '" + m.name + "' gives no derivative for state '" + spec_.states[s].name +
                             "' (write der(" + spec_.states[s].name + ") in the flow block or in the mode, or mark "
                             "the mode algebraic)");
        }
      }
      mode_index_[m.name] = static_cast<int>(spec_.modes.size());
      spec_.modes.push_back(std::move(mode));
    }
    for (const InitialSyntax& i : syntax_.initial) {
      const int mode = mode_of(i.mode, i.where);
      if (mode >= 0 && spec_.modes[static_cast<std::size_t>(mode)].algebraic) {
        error(i.where, "the initial mode '" + i.mode + "' is algebraic: a run cannot rest in it");
      }
      NodeId condition = -1;
      if (i.condition) {
        Value v;
        if (!expression(*i.condition, Context::kInitial, &v)) continue;
        if (!v.boolean) {
          error(i.condition->where, "the condition of 'initial " + i.mode + "' must be a comparison, found a number");
          continue;
        }
        condition = v.id;
      }
      if (mode >= 0) spec_.initial.push_back(ModelSpec::Initial{mode, condition, i.where});
    }
    if (spec_.initial.empty() && !spec_.modes.empty()) spec_.initial.push_back(ModelSpec::Initial{0, -1, {}});
  }

  int mode_of(const std::string& name, Location where) {
    const auto found = mode_index_.find(name);
    if (found != mode_index_.end()) return found->second;
    std::vector<std::string> modes;
    for (const auto& m : spec_.modes) modes.push_back(m.name);
    const std::string near = closest_name(name, modes);
    error(where, "unknown mode '" + name + "'" + (near.empty() ? "" : "; did you mean '" + near + "'?"));
    return -1;
  }

  // ---- guards ---------------------------------------------------------------------------

  // Adds the guard expression (negated when `negate`) to tr's tree; returns its node index or
  // -1. De Morgan: !(a && b) = !a || !b, !(a || b) = !a && !b, and !(e < 0) is e >= 0.
  int guard_node(const Expression& e, bool negate, TransitionSpec* tr) {
    if (e.kind == Expression::Kind::kUnary && e.op == TokenKind::kNot) return guard_node(*e.arguments[0], !negate, tr);
    if (e.kind == Expression::Kind::kBinary && (e.op == TokenKind::kAnd || e.op == TokenKind::kOr)) {
      const int a = guard_node(*e.arguments[0], negate, tr);
      const int b = guard_node(*e.arguments[1], negate, tr);
      if (a < 0 || b < 0) return -1;
      const bool conjunction = (e.op == TokenKind::kAnd) != negate;
      tr->guard.push_back(GuardNode{conjunction ? GuardNode::Kind::kAnd : GuardNode::Kind::kOr, -1, {a, b}});
      return static_cast<int>(tr->guard.size()) - 1;
    }
    if (e.kind == Expression::Kind::kBinary && binary_op(e.op) >= Op::kLess && binary_op(e.op) <= Op::kNotEqual) {
      AtomSpec atom;
      if (!comparison_atom(e, negate, &atom)) return -1;
      tr->atoms.push_back(std::move(atom));
      tr->guard.push_back(GuardNode{GuardNode::Kind::kAtom, static_cast<int>(tr->atoms.size()) - 1, {}});
      return static_cast<int>(tr->guard.size()) - 1;
    }
    if (e.kind == Expression::Kind::kIf) {
      fail(e.where, "a guard joins comparisons with &&, || and !; 'if' belongs in numbers");
      return -1;
    }
    Value v;
    if (!expression(e, Context::kGuard, &v)) return -1;
    if (v.boolean) {  // a let holding a condition is not expanded into atoms
      fail(e.where, "a guard's conditions are written in the guard itself (a let holds numbers)");
    } else {
      fail(e.where, "a guard must be a condition (comparisons joined with &&, || and !), found a number");
    }
    return -1;
  }

  bool comparison_atom(const Expression& e, bool negate, AtomSpec* atom) {
    Graph& g = spec_.graph;
    Value a, b;
    const bool ok = expression(*e.arguments[0], Context::kGuard, &a) & expression(*e.arguments[1], Context::kGuard, &b);
    if (!ok) return false;
    if (a.boolean || b.boolean) return fail(e.where, "a comparison takes numbers, but an operand is a condition");
    const Op op = binary_op(e.op);
    atom->where = e.where;
    atom->reads_prior = g.reads_prior(a.id) || g.reads_prior(b.id);
    if (op == Op::kEqual || op == Op::kNotEqual) {
      // A discrete test: e = -1 when it holds, +1 otherwise, with e < 0. Never located.
      if (!atom->reads_prior) {
        return fail(e.where, "'" + std::string(op_spelling(op)) + "' compares continuous values, whose equality "
                             "cannot be located in time; write <= or >=, or compare prior(v) with v to ask whether "
                             "v jumped");
      }
      const bool equal = (op == Op::kEqual) != negate;
      const NodeId test = g.apply(equal ? Op::kEqual : Op::kNotEqual, {a.id, b.id});
      atom->e = g.apply(Op::kSelect, {test, g.constant("-1"), g.constant("1")});
      atom->discrete_test = test;
      atom->relation = Relation::kLess;
      atom->name = spec_.print(atom->e);
      return true;
    }
    const bool reads_prior = atom->reads_prior;
    *atom = lang::comparison_atom(&spec_, op, a.id, b.id, negate);
    atom->where = e.where;
    atom->reads_prior = reads_prior;
    return checked_height(e.where, Value{atom->rate, false});
  }

  // A discrete atom D that always holds during continuous evolution (prior(v) == v) and is
  // and-ed with a conjunction C is folded into C's last atom A, as its jump form: across a
  // jump A reads "if D fails then A does not hold, else A"; during continuous evolution A is
  // unchanged, rate included. The guard keeps its truth values everywhere and evaluates one
  // atom less at every point (the C++ models write their jump forms this way).
  void fold_discrete_atoms(TransitionSpec* tr, int index) {
    GuardNode& node = tr->guard[static_cast<std::size_t>(index)];
    if (node.kind == GuardNode::Kind::kAtom) return;
    for (int child : std::vector<int>(node.children)) fold_discrete_atoms(tr, child);
    if (node.kind != GuardNode::Kind::kAnd) return;
    for (std::size_t side = 0; side < 2; ++side) {
      const GuardNode& d = tr->guard[static_cast<std::size_t>(node.children[side])];
      if (d.kind != GuardNode::Kind::kAtom) continue;
      const AtomSpec& discrete = tr->atoms[static_cast<std::size_t>(d.atom)];
      if (discrete.discrete_test < 0 || !holds_in_flow(discrete.discrete_test)) continue;
      const int other = node.children[1 - side];
      const int target = last_atom_of_conjunction(*tr, other);
      if (target < 0) continue;
      AtomSpec& a = tr->atoms[static_cast<std::size_t>(target)];
      if (a.discrete_test >= 0) continue;
      Graph& g = spec_.graph;
      const bool less = a.relation == Relation::kLess || a.relation == Relation::kLessEqual;
      const NodeId fails = g.apply(Op::kAnd, {g.leaf(Op::kJumping, -1), g.apply(Op::kNot, {discrete.discrete_test})});
      a.e = g.apply(Op::kSelect, {fails, g.constant(less ? "1" : "-1"), a.e});
      a.reads_prior = true;
      tr->guard[static_cast<std::size_t>(index)] = tr->guard[static_cast<std::size_t>(other)];
      return;
    }
  }

  // "a == b" whose two sides coincide once prior(x) is read as x.
  bool holds_in_flow(NodeId test) {
    Graph& g = spec_.graph;
    const Node& n = g[test];
    if (n.op != Op::kEqual) return false;
    const NodeId a = n.args[0];
    const NodeId b = n.args[1];
    return g.without_prior(a) == g.without_prior(b);
  }

  // The atom of the node when it is an atom, or the last atom of an AND chain; -1 otherwise.
  static int last_atom_of_conjunction(const TransitionSpec& tr, int index) {
    const GuardNode& n = tr.guard[static_cast<std::size_t>(index)];
    if (n.kind == GuardNode::Kind::kAtom) return n.atom;
    if (n.kind == GuardNode::Kind::kAnd) return last_atom_of_conjunction(tr, n.children.back());
    return -1;
  }

  std::vector<std::pair<int, NodeId>> resets(const std::vector<Equation>& equations, const std::string& where) {
    std::vector<std::pair<int, NodeId>> out;
    std::set<int> seen;
    for (const Equation& eq : equations) {
      const int s = state_index(eq.state, eq.where, "a reset");
      if (s < 0) continue;
      if (!seen.insert(s).second) {
        error(eq.where, "'" + eq.state + "' is reset twice in " + where);
        continue;
      }
      NodeId value = -1;
      if (number(*eq.value, Context::kReset, &value, "the reset of '" + eq.state + "'")) out.emplace_back(s, value);
    }
    return out;
  }

  void resolve_transitions() {
    for (const TransitionSyntax& t : syntax_.transitions) {
      TransitionSpec tr;
      tr.label = t.label;
      tr.where = t.label_where;
      tr.to = mode_of(t.to, t.to_where);
      const int root = guard_node(*t.guard, false, &tr);
      if (root >= 0) fold_discrete_atoms(&tr, root);
      tr.resets = resets(t.resets, "transition '" + t.label + "'");
      std::vector<int> sources;
      if (t.from.empty()) {  // "*": every mode, in declaration order
        for (std::size_t m = 0; m < spec_.modes.size(); ++m) sources.push_back(static_cast<int>(m));
      }
      for (const auto& [name, where] : t.from) sources.push_back(mode_of(name, where));
      for (int from : sources) {
        if (from < 0 || tr.to < 0 || root < 0) continue;
        tr.from = from;
        spec_.transitions.push_back(tr);
      }
    }
  }

  void resolve_zeno() {
    if (!syntax_.zeno) return;
    ZenoSpec z;
    z.mode = mode_of(syntax_.zeno->target, syntax_.zeno->where);
    if (z.mode >= 0 && spec_.modes[static_cast<std::size_t>(z.mode)].algebraic) {
      error(syntax_.zeno->where, "the Zeno continuation enters '" + syntax_.zeno->target +
                                     "', which is algebraic: a run must rest in it");
    }
    z.resets = resets(syntax_.zeno->resets, "the zeno continuation");
    if (z.mode >= 0) spec_.zeno = std::move(z);
  }

  void resolve_presets() {
    std::set<std::string> names;
    for (const PresetSyntax& p : syntax_.presets) {
      if (!names.insert(p.name).second) error(p.where, "preset '" + p.name + "' is declared twice");
      PresetSpec preset{p.name, p.description, {}, {}};
      std::set<std::string> keys;
      for (const Definition& d : p.values) {
        if (!keys.insert(d.name).second) error(d.where, "'" + d.name + "' is set twice in preset '" + p.name + "'");
        std::string text;
        if (!literal_text(*d.value, &text)) {
          error(d.value->where, "a preset sets numbers: '" + d.name + "' needs a literal value");
          continue;
        }
        if (d.name == "t_end") {
          if (finite_literal(text, d.value->where, "t_end") && parse_decimal<double>(text, "t_end") <= 0) {
            error(d.value->where, "t_end of preset '" + p.name + "' must be positive");
          }
          preset.t_end = text;
          continue;
        }
        const auto found = names_.find(d.name);
        if (found == names_.end() || found->second.kind != NameKind::kParameter) {
          std::vector<std::string> parameters = {"t_end"};
          for (const auto& q : spec_.parameters) parameters.push_back(q.name);
          const std::string near = closest_name(d.name, parameters);
          error(d.where, "preset '" + p.name + "' sets '" + d.name + "', which is not a parameter" +
                             (near.empty() ? "" : "; did you mean '" + near + "'?"));
          continue;
        }
        finite_literal(text, d.value->where, "parameter '" + d.name + "' in preset '" + p.name + "'");
        preset.values.emplace_back(d.name, text);
      }
      spec_.presets.push_back(std::move(preset));
    }
  }

  // A mode that no transition (nor the Zeno continuation) enters from the initial mode is
  // dead text: a warning, since a user may be building the model up.
  void warn_unreachable() {
    std::vector<bool> reached(spec_.modes.size(), false);
    std::vector<int> queue;
    for (const auto& i : spec_.initial) {
      if (!reached[static_cast<std::size_t>(i.mode)]) queue.push_back(i.mode);
      reached[static_cast<std::size_t>(i.mode)] = true;
    }
    if (spec_.zeno && !reached[static_cast<std::size_t>(spec_.zeno->mode)]) {
      reached[static_cast<std::size_t>(spec_.zeno->mode)] = true;
      queue.push_back(spec_.zeno->mode);
    }
    while (!queue.empty()) {
      const int m = queue.back();
      queue.pop_back();
      for (const auto& tr : spec_.transitions) {
        if (tr.from == m && !reached[static_cast<std::size_t>(tr.to)]) {
          reached[static_cast<std::size_t>(tr.to)] = true;
          queue.push_back(tr.to);
        }
      }
    }
    for (std::size_t m = 0; m < spec_.modes.size(); ++m) {
      if (reached[m]) continue;
      spec_.warnings.push_back(Diagnostic{Severity::kWarning, spec_.modes[m].where,
                                          "mode '" + spec_.modes[m].name + "' is unreachable from the initial mode" +
                                              (spec_.initial.size() > 1 ? "s" : "")});
    }
  }

  const SourceText& source_;
  const ModelSyntax& syntax_;
  ModelSpec spec_;
  std::map<std::string, NameInfo> names_;
  std::map<std::string, int> mode_index_;
  std::vector<LetState> lets_;
  std::vector<int> let_stack_;
  std::vector<Diagnostic> errors_;
};

}  // namespace

AtomSpec comparison_atom(ModelSpec* spec, Op op, NodeId a, NodeId b, bool negate) {
  Graph& g = spec->graph;
  const auto relation_of = [](Op o) {
    switch (o) {
      case Op::kLess: return Relation::kLess;
      case Op::kLessEqual: return Relation::kLessEqual;
      case Op::kGreater: return Relation::kGreater;
      default: return Relation::kGreaterEqual;
    }
  };
  const auto is_zero = [&](NodeId id) { return g[id].op == Op::kConstant && g[id].text == "0"; };
  AtomSpec atom;
  Relation relation = relation_of(op);
  if (is_zero(b)) {
    atom.e = a;
  } else if (is_zero(a)) {  // 0 < b is b > 0: the relation mirrored
    atom.e = b;
    static const std::map<Relation, Relation> kMirror = {{Relation::kLess, Relation::kGreater},
                                                         {Relation::kLessEqual, Relation::kGreaterEqual},
                                                         {Relation::kGreater, Relation::kLess},
                                                         {Relation::kGreaterEqual, Relation::kLessEqual}};
    relation = kMirror.at(relation);
  } else {
    atom.e = g.apply(Op::kSubtract, {a, b});
  }
  atom.relation = negate ? negated(relation) : relation;
  atom.rate = g.rate(atom.e);
  atom.time_root = g.time_root(atom.e);
  atom.reads_prior = g.reads_prior(atom.e);
  atom.name = spec->print(atom.e);
  return atom;
}

std::string ModelSpec::print(NodeId id) const {
  return graph.print(id, [this](const Node& n) -> std::string {
    switch (n.op) {
      case Op::kParameter: return parameters[static_cast<std::size_t>(n.index)].name;
      case Op::kState:
      case Op::kPrior: return states[static_cast<std::size_t>(n.index)].name;
      case Op::kFieldValue: return "der(" + states[static_cast<std::size_t>(n.index)].name + ")";
      case Op::kTime: return "t";
      default: return "?";
    }
  });
}

ModelSpec resolve(const SourceText& source, const ModelSyntax& syntax) { return Resolver(source, syntax).run(); }

ModelSpec compile_text(const std::string& name, const std::string& text) {
  const SourceText source(name, text);
  return resolve(source, parse(source));
}

ModelSpec compile_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InvalidArgument("cannot read the model file '" + path + "'");
  std::stringstream buffer;
  buffer << in.rdbuf();
  return compile_text(path, buffer.str());
}

}  // namespace hysim::lang
