#include "hysim/lang/syntax.hpp"

#include <algorithm>
#include <cctype>

namespace hysim::lang {

namespace {

ExpressionPtr node(Expression::Kind kind, std::string text, TokenKind op, Location where,
                   std::vector<ExpressionPtr> arguments) {
  auto e = std::make_unique<Expression>();
  e->kind = kind;
  e->text = std::move(text);
  e->op = op;
  e->where = where;
  e->arguments = std::move(arguments);
  for (const auto& a : e->arguments) e->height = std::max(e->height, a->height + 1);
  return e;
}

std::vector<ExpressionPtr> list(ExpressionPtr a, ExpressionPtr b = nullptr, ExpressionPtr c = nullptr) {
  std::vector<ExpressionPtr> out;
  for (ExpressionPtr* e : {&a, &b, &c}) {
    if (*e) out.push_back(std::move(*e));
  }
  return out;
}

}  // namespace

ExpressionPtr number_syntax(std::string text, Location where) {
  return node(Expression::Kind::kNumber, std::move(text), TokenKind::kNumber, where, {});
}
ExpressionPtr name_syntax(std::string name, Location where) {
  return node(Expression::Kind::kName, std::move(name), TokenKind::kName, where, {});
}
ExpressionPtr call_syntax(std::string function, std::vector<ExpressionPtr> arguments, Location where) {
  return node(Expression::Kind::kCall, std::move(function), TokenKind::kName, where, std::move(arguments));
}
ExpressionPtr unary_syntax(TokenKind op, ExpressionPtr operand, Location where) {
  return node(Expression::Kind::kUnary, op == TokenKind::kNot ? "!" : op == TokenKind::kMinus ? "-" : "+", op, where,
              list(std::move(operand)));
}
ExpressionPtr binary_syntax(TokenKind op, ExpressionPtr left, ExpressionPtr right, Location where) {
  return node(Expression::Kind::kBinary, "", op, where, list(std::move(left), std::move(right)));
}
ExpressionPtr if_syntax(ExpressionPtr condition, ExpressionPtr then, ExpressionPtr otherwise, Location where) {
  return node(Expression::Kind::kIf, "if", TokenKind::kName, where,
              list(std::move(condition), std::move(then), std::move(otherwise)));
}

ExpressionPtr copy_syntax(const Expression& e) {
  std::vector<ExpressionPtr> arguments;
  for (const auto& a : e.arguments) arguments.push_back(copy_syntax(*a));
  return node(e.kind, e.text, e.op, e.where, std::move(arguments));
}

bool is_number_text(const std::string& text) {
  const auto digits = [&](std::size_t* i) {
    const std::size_t start = *i;
    while (*i < text.size() && std::isdigit(static_cast<unsigned char>(text[*i]))) ++*i;
    return *i > start;
  };
  std::size_t i = 0;
  const bool whole = digits(&i);
  bool fraction = false;
  if (i < text.size() && text[i] == '.') {
    ++i;
    fraction = digits(&i);
  }
  if (!whole && !fraction) return false;
  if (i < text.size() && (text[i] == 'e' || text[i] == 'E')) {
    ++i;
    if (i < text.size() && (text[i] == '+' || text[i] == '-')) ++i;
    if (!digits(&i)) return false;
  }
  return i == text.size();
}

namespace {

// The grammar's levels, loosest first (lang/parser.cpp): an operand of a lower level than its
// place needs is written in parentheses.
enum Level { kIfLevel, kOrLevel, kAndLevel, kNotLevel, kComparisonLevel, kSumLevel, kProductLevel, kUnaryLevel,
             kPowerLevel, kPrimaryLevel };

Level level_of(const Expression& e) {
  switch (e.kind) {
    case Expression::Kind::kIf: return kIfLevel;
    case Expression::Kind::kUnary: return e.op == TokenKind::kNot ? kNotLevel : kUnaryLevel;
    case Expression::Kind::kBinary:
      switch (e.op) {
        case TokenKind::kOr: return kOrLevel;
        case TokenKind::kAnd: return kAndLevel;
        case TokenKind::kPlus: case TokenKind::kMinus: return kSumLevel;
        case TokenKind::kStar: case TokenKind::kSlash: return kProductLevel;
        case TokenKind::kCaret: return kPowerLevel;
        default: return kComparisonLevel;
      }
    default: return kPrimaryLevel;
  }
}

const char* spelling(TokenKind op) {
  switch (op) {
    case TokenKind::kPlus: return "+";
    case TokenKind::kMinus: return "-";
    case TokenKind::kStar: return "*";
    case TokenKind::kSlash: return "/";
    case TokenKind::kCaret: return "^";
    case TokenKind::kLess: return "<";
    case TokenKind::kLessEqual: return "<=";
    case TokenKind::kGreater: return ">";
    case TokenKind::kGreaterEqual: return ">=";
    case TokenKind::kEqual: return "==";
    case TokenKind::kNotEqual: return "!=";
    case TokenKind::kAnd: return "&&";
    case TokenKind::kOr: return "||";
    case TokenKind::kNot: return "!";
    default: return "?";
  }
}

void print_at(const Expression& e, Level least, std::string* out);

void print_binary(const Expression& e, std::string* out) {
  const Level level = level_of(e);
  // Left-associative, except '^' (right) and comparisons (which do not chain).
  Level left = level, right = static_cast<Level>(level + 1);
  if (level == kComparisonLevel) left = right = kSumLevel;
  if (level == kPowerLevel) {
    left = kPrimaryLevel;
    right = kUnaryLevel;
  }
  print_at(*e.arguments[0], left, out);
  *out += std::string(" ") + spelling(e.op) + " ";
  print_at(*e.arguments[1], right, out);
}

void print_at(const Expression& e, Level least, std::string* out) {
  const bool parenthesized = level_of(e) < least;
  if (parenthesized) *out += '(';
  switch (e.kind) {
    case Expression::Kind::kNumber:
    case Expression::Kind::kName: *out += e.text; break;
    case Expression::Kind::kCall:
      *out += e.text + "(";
      for (std::size_t i = 0; i < e.arguments.size(); ++i) {
        if (i > 0) *out += ", ";
        print_at(*e.arguments[i], kIfLevel, out);
      }
      *out += ')';
      break;
    case Expression::Kind::kUnary:
      *out += spelling(e.op);
      print_at(*e.arguments[0], e.op == TokenKind::kNot ? kNotLevel : kPowerLevel, out);
      break;
    case Expression::Kind::kBinary: print_binary(e, out); break;
    case Expression::Kind::kIf:
      *out += "if ";
      print_at(*e.arguments[0], kIfLevel, out);
      *out += " then ";
      print_at(*e.arguments[1], kIfLevel, out);
      *out += " else ";
      print_at(*e.arguments[2], kIfLevel, out);
      break;
  }
  if (parenthesized) *out += ')';
}

// A string of the language: '"' and '\' escaped, line breaks left out.
std::string quoted(const std::string& text) {
  std::string out = "\"";
  for (const char c : text) {
    if (c == '"' || c == '\\') out += '\\';
    if (c != '\n' && c != '\r') out += c;
  }
  return out + "\"";
}

std::string described(const std::string& description) {
  if (description.empty()) return {};
  std::string out(1, ' ');
  out += quoted(description);
  return out;
}

void print_definitions(const char* word, const std::vector<Definition>& definitions, bool described_inline,
                       std::string* out) {
  for (const Definition& d : definitions) {
    *out += std::string(word) + " " + d.name + " = " + print(*d.value);
    if (!d.low.empty() || !d.high.empty()) *out += " in [" + d.low + ", " + d.high + "]";
    if (!d.atol.empty()) *out += " atol " + d.atol;
    if (described_inline) {
      *out += described(d.description);
    } else if (!d.description.empty()) {
      std::string comment = d.description;
      std::replace(comment.begin(), comment.end(), '\n', ' ');
      std::replace(comment.begin(), comment.end(), '\r', ' ');
      *out += "   # " + comment;
    }
    *out += '\n';
  }
}

void print_equations(const std::vector<Equation>& equations, const char* assign, bool derivative, std::string* out) {
  *out += "{";
  for (const Equation& eq : equations) {
    *out += " " + (derivative ? "der(" + eq.state + ")" : eq.state) + " " + assign + " " + print(*eq.value) + ";";
  }
  *out += " }";
}

void print_transitions(const std::vector<TransitionSyntax>& transitions, const char* indent, std::string* out) {
  for (const TransitionSyntax& tr : transitions) {
    *out += indent;
    std::string from;
    for (const auto& [name, where] : tr.from) from += (from.empty() ? "" : ", ") + name;
    if (tr.crossing) {
      *out += "crossing " + tr.label + " (" + print(*tr.guard) + ") " + tr.direction + (from.empty() ? "" : " in " + from);
    } else {
      *out += (tr.from.empty() ? "*" : from) + " -> " + tr.to + " " + tr.label + " [" + print(*tr.guard) + "]";
    }
    if (!tr.resets.empty()) {
      *out += ' ';
      print_equations(tr.resets, ":=", false, out);
    }
    if (tr.stop) *out += " stop";
    *out += '\n';
  }
}

void print_zeno(const ZenoSyntax& zeno, const char* indent, std::string* out) {
  *out += indent + ("zeno -> " + zeno.target);
  if (!zeno.resets.empty()) {
    *out += ' ';
    print_equations(zeno.resets, ":=", false, out);
  }
  *out += '\n';
}

void print_modes(const std::vector<ModeSyntax>& modes, const char* indent, std::string* out) {
  for (const ModeSyntax& m : modes) {
    *out += indent + ("mode " + m.name) + described(m.description) + (m.algebraic ? " algebraic" : "");
    if (!m.algebraic) {
      *out += ' ';
      print_equations(m.derivatives, "=", true, out);
    }
    *out += '\n';
  }
}

}  // namespace

std::string print(const Expression& e) {
  std::string out;
  print_at(e, kIfLevel, &out);
  return out;
}

std::string print(const ModelSyntax& model) {
  std::string out = "model " + model.name + described(model.description) + "\n";
  if (!model.source.empty()) out += "source " + quoted(model.source) + "\n";
  print_definitions("parameter", model.parameters, true, &out);
  print_definitions("state", model.states, true, &out);
  print_definitions("let", model.lets, false, &out);
  for (const RequirementSyntax& r : model.requirements) {
    out += "require " + print(*r.condition) + described(r.message) + "\n";
  }
  if (model.has_flow) {
    out += "flow ";
    print_equations(model.flow, "=", true, &out);
    out += '\n';
  }
  print_modes(model.modes, "", &out);
  for (const InitialSyntax& i : model.initial) {
    out += "initial " + i.mode + (i.condition ? " [" + print(*i.condition) + "]" : "") + "\n";
  }
  print_transitions(model.transitions, "", &out);
  for (const ComponentSyntax& c : model.components) {
    out += "component " + c.name + described(c.description) + " {\n";
    print_modes(c.modes, "  ", &out);
    if (!c.initial.empty()) out += "  initial " + c.initial + "\n";
    print_transitions(c.transitions, "  ", &out);
    if (c.zeno) print_zeno(*c.zeno, "  ", &out);
    out += "}\n";
  }
  if (model.zeno) print_zeno(*model.zeno, "", &out);
  for (const PresetSyntax& p : model.presets) {
    out += "preset " + p.name + described(p.description) + " {";
    for (const Definition& d : p.values) out += " " + d.name + " = " + print(*d.value) + ";";
    out += " }\n";
  }
  return out;
}

}  // namespace hysim::lang
