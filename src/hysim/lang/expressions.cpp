// The resolver's expressions (lang/expressions.hpp): names to parameters, states and lets,
// and every expression into the model's Graph.
#include "hysim/lang/expressions.hpp"

#include <set>

#include "hysim/core/scalar.hpp"

namespace hysim::lang {

namespace {

// Words that cannot name a parameter, state, let or mode.
const std::set<std::string> kKeywords = {"model", "source", "parameter", "state", "let", "require", "flow", "mode",
                                         "algebraic", "initial", "zeno", "preset", "der", "if", "then",
                                         "else", "prior", "jumping", "t", "pi", "t_end"};

// pi to 40 significant digits: enough for binary128 (34 digits) to round correctly.
constexpr const char* kPi = "3.141592653589793238462643383279502884197";

}  // namespace

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

Op binary_op(TokenKind k) {
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

bool literal_text(const Expression& e, std::string* text) {
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

ExpressionResolver::ExpressionResolver(const std::vector<Definition>& lets, ModelSpec* spec,
                                       std::vector<Diagnostic>* errors)
    : lets_syntax_(lets), spec_(*spec), errors_(*errors), lets_(lets.size(), LetState{}) {}

void ExpressionResolver::error(Location where, std::string message) {
  errors_.push_back(Diagnostic{Severity::kError, where, std::move(message)});
}

bool ExpressionResolver::fail(Location where, std::string message) {
  error(where, std::move(message));
  return false;
}

// ---- names ------------------------------------------------------------------------------
bool ExpressionResolver::declare(const std::string& name, Location where, NameKind kind, int index) {
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

const NameInfo* ExpressionResolver::find_name(const std::string& name) const {
  const auto found = names_.find(name);
  return found == names_.end() ? nullptr : &found->second;
}

std::vector<std::string> ExpressionResolver::known_names() const {
  std::vector<std::string> out = {"t", "pi", "jumping"};
  for (const auto& [name, info] : names_) out.push_back(name);
  return out;
}

bool ExpressionResolver::finite_literal(const std::string& text, Location where, const std::string& what) {
  try {
    (void)parse_decimal<double>(text, what);
    return true;
  } catch (const Error& e) {
    error(where, e.what());  // malformed, or out of range: it overflows or underflows
    return false;
  }
}

// ---- lets -----------------------------------------------------------------------------
void ExpressionResolver::resolve_lets() {
  for (std::size_t i = 0; i < lets_syntax_.size(); ++i) {
    const auto declared = names_.find(lets_syntax_[i].name);  // absent or another: a reported clash
    if (declared == names_.end() || declared->second.kind != NameKind::kLet ||
        declared->second.index != static_cast<int>(i)) {
      continue;
    }
    (void)let_value(static_cast<int>(i), lets_syntax_[i].where);
    const LetState& s = lets_[i];
    if (s.status == LetState::kDone && !s.value.boolean) {
      spec_.lets.push_back({lets_syntax_[i].name, s.value.id, lets_syntax_[i].where});
    }
  }
}

bool ExpressionResolver::let_value(int index, Location used_at, Value* out) {
  LetState& s = lets_[static_cast<std::size_t>(index)];
  const Definition& d = lets_syntax_[static_cast<std::size_t>(index)];
  if (s.status == LetState::kVisiting) {
    std::string cycle;
    for (int i : let_stack_) cycle += lets_syntax_[static_cast<std::size_t>(i)].name + " -> ";
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
bool ExpressionResolver::expression(const Expression& e, Context c, Value* out) {
  if (depth_ >= kMaxDepth) return too_deep(e.where);
  struct Nesting {
    int& depth;
    explicit Nesting(int& d) : depth(d) { ++depth; }
    ~Nesting() { --depth; }
    Nesting(const Nesting&) = delete;
    Nesting& operator=(const Nesting&) = delete;
  } nesting(depth_);
  Graph& g = spec_.graph;
  switch (e.kind) {
    case Expression::Kind::kNumber:
      // Every model also builds in double: a literal beyond its range is reported here, where
      // it stands, not when a tape is built.
      if (!finite_literal(e.text, e.where, "a literal")) return false;
      *out = {g.constant(e.text), false};
      return true;
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

// Out of expression(), whose frame each level of nesting repeats.
bool ExpressionResolver::too_deep(Location where) {
  std::string chain;  // the innermost lets being resolved
  for (std::size_t i = let_stack_.size() >= 3 ? let_stack_.size() - 3 : 0; i < let_stack_.size(); ++i) {
    chain += (chain.empty() ? "" : " -> ") + lets_syntax_[static_cast<std::size_t>(let_stack_[i])].name;
  }
  return fail(where, "expression nested more than " + std::to_string(kMaxDepth) + " levels deep once its let names are " +
                         "expanded (through " + std::to_string(let_stack_.size()) + " let names" +
                         (chain.empty() ? "" : ": ... -> " + chain) + "); simplify it");
}

bool ExpressionResolver::checked_height(Location where, const Value& v) {
  if (spec_.graph.height(v.id) <= Graph::kMaxHeight) return true;
  return fail(where, "expression too deep once its let names are expanded (more than " +
                         std::to_string(Graph::kMaxHeight) + " operations); simplify it");
}

bool ExpressionResolver::name(const Expression& e, Context c, Value* out) {
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

bool ExpressionResolver::call(const Expression& e, Context c, Value* out) {
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

bool ExpressionResolver::binary(const Expression& e, Context c, Value* out) {
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

bool ExpressionResolver::number(const Expression& e, Context c, NodeId* out, const std::string& what) {
  Value v;
  if (!expression(e, c, &v)) return false;
  if (v.boolean) return fail(e.where, what + " must be a number, found a condition; write 'if ... then ... else ...'");
  *out = v.id;
  return true;
}

}  // namespace hysim::lang
