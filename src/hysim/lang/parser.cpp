// A recursive-descent parser for the grammar of docs/model-language.md; one function per
// rule. It stops at the first syntax error with a message that says what was expected.
#include <algorithm>
#include <string_view>

#include "hysim/lang/syntax.hpp"

namespace hysim::lang {

namespace {

// The tokens of a file and the position in them, with what every rule reads and reports by:
// the next token, the expected one, and an error at a token that says what was found there.
class TokenCursor {
 public:
  TokenCursor(const SourceText& source, std::vector<Token> tokens) : source_(source), tokens_(std::move(tokens)) {}

 protected:
  // `second` starts where `first` ends, on the same line.
  static bool adjacent(const Token& first, const Token& second) {
    return first.where.line == second.where.line &&
           second.where.column == first.where.column + static_cast<int>(first.text.size());
  }

  const Token& peek(std::size_t ahead = 0) const {
    const std::size_t i = std::min(at_ + ahead, tokens_.size() - 1);
    return tokens_[i];
  }
  bool at(TokenKind kind) const { return peek().kind == kind; }
  bool at_word(std::string_view word) const { return at(TokenKind::kName) && peek().text == word; }
  const Token& next() {
    const Token& token = tokens_[at_];
    if (at_ + 1 < tokens_.size()) ++at_;
    return token;
  }
  bool accept(TokenKind kind) {
    if (!at(kind)) return false;
    next();
    return true;
  }

  [[noreturn]] void fail(const Token& token, std::string message) const {
    throw ModelFileError(source_, {Diagnostic{Severity::kError, token.where, std::move(message)}});
  }

  static std::string found(const Token& token) {
    switch (token.kind) {
      case TokenKind::kEnd: return "end of file";
      case TokenKind::kString: return "the string \"" + token.text + "\"";
      case TokenKind::kName:
      case TokenKind::kNumber: return "'" + token.text + "'";
      default: return describe(token.kind);
    }
  }

  const Token& expect(TokenKind kind, std::string_view what) {
    if (!at(kind)) fail(peek(), "expected " + std::string(what) + ", found " + found(peek()));
    return next();
  }
  void expect_word(std::string_view word, std::string_view context) {
    if (!at_word(word)) fail(peek(), "expected '" + std::string(word) + "' " + std::string(context) + ", found " + found(peek()));
    next();
  }

  const SourceText& source_;
  std::vector<Token> tokens_;
  std::size_t at_ = 0;
  int depth_ = 0;  // the nesting of expression rules (ExpressionParser::Depth)
};

// The expression rules, from 'if ... then ... else' down to numbers, names and calls.
class ExpressionParser : public TokenCursor {
 public:
  using TokenCursor::TokenCursor;

 protected:
  // Deeper nesting than this is refused rather than risking the stack (a fuzzed file can nest
  // parentheses without end, or chain a + a + ... into a tree as tall as the file is long).
  static constexpr int kMaxDepth = 200;
  static constexpr int kMaxHeight = 400;

  // expression = "if" expression "then" expression "else" expression | or
  ExpressionPtr expression() {
    const Depth depth(this);
    if (at_word("if")) {
      auto e = node(Expression::Kind::kIf, next());
      e->arguments.push_back(expression());
      expect_word("then", "after the condition of 'if'");
      e->arguments.push_back(expression());
      expect_word("else", "after 'if ... then ...' (both branches are required)");
      e->arguments.push_back(expression());
      return with_height(std::move(e));
    }
    return binary_or();
  }

 private:
  ExpressionPtr binary_or() {
    auto left = binary_and();
    while (at(TokenKind::kOr)) {
      const Token& op = next();
      auto right = binary_and();
      left = binary(std::move(left), op, std::move(right));
    }
    return left;
  }
  ExpressionPtr binary_and() {
    auto left = negation();
    while (at(TokenKind::kAnd)) {
      const Token& op = next();
      auto right = negation();
      left = binary(std::move(left), op, std::move(right));
    }
    return left;
  }
  ExpressionPtr negation() {
    if (at(TokenKind::kNot)) {
      const Depth depth(this);
      auto e = node(Expression::Kind::kUnary, next());
      e->arguments.push_back(negation());
      return with_height(std::move(e));
    }
    return comparison();
  }
  static bool is_relation(TokenKind kind) {
    return kind == TokenKind::kLess || kind == TokenKind::kLessEqual || kind == TokenKind::kGreater ||
           kind == TokenKind::kGreaterEqual || kind == TokenKind::kEqual || kind == TokenKind::kNotEqual;
  }
  ExpressionPtr comparison() {
    auto left = sum();
    if (is_relation(peek().kind)) {
      const Token& op = next();  // sequenced: the operator is read before its right operand
      auto right = sum();
      left = binary(std::move(left), op, std::move(right));
      if (is_relation(peek().kind)) {
        fail(peek(), "comparisons do not chain: write 'a < b && b < c' instead of 'a < b < c'");
      }
    }
    return left;
  }
  ExpressionPtr sum() {
    auto left = product();
    while (at(TokenKind::kPlus) || at(TokenKind::kMinus)) {
      const Token& op = next();
      auto right = product();
      left = binary(std::move(left), op, std::move(right));
    }
    return left;
  }
  ExpressionPtr product() {
    auto left = unary();
    while (at(TokenKind::kStar) || at(TokenKind::kSlash)) {
      const Token& op = next();
      auto right = unary();
      left = binary(std::move(left), op, std::move(right));
    }
    return left;
  }
  // Unary minus binds looser than '^': -x^2 is -(x^2).
  ExpressionPtr unary() {
    if (at(TokenKind::kMinus) || at(TokenKind::kPlus)) {
      const Depth depth(this);
      auto e = node(Expression::Kind::kUnary, next());
      e->arguments.push_back(unary());
      return with_height(std::move(e));
    }
    return power();
  }
  // '^' is right-associative: a^b^c is a^(b^c); its exponent may carry a sign (x^-2).
  ExpressionPtr power() {
    auto base = primary();
    if (at(TokenKind::kCaret)) {
      const Depth depth(this);
      const Token& op = next();
      auto exponent = unary();
      return binary(std::move(base), op, std::move(exponent));
    }
    return base;
  }
  ExpressionPtr primary() {
    const Token& token = peek();
    switch (token.kind) {
      case TokenKind::kNumber: return node(Expression::Kind::kNumber, next());
      case TokenKind::kLeftParen: {
        next();
        auto inner = expression();
        expect(TokenKind::kRightParen, "')' to close the parenthesis");
        return inner;
      }
      case TokenKind::kName: {
        if (token.text == "if") return expression();
        if (token.text == "then" || token.text == "else") fail(token, "'" + token.text + "' without a matching 'if'");
        if (peek(1).kind != TokenKind::kLeftParen) return node(Expression::Kind::kName, next());
        auto call = node(Expression::Kind::kCall, next());
        next();  // (
        if (!at(TokenKind::kRightParen)) {
          do call->arguments.push_back(expression());
          while (accept(TokenKind::kComma));
        }
        expect(TokenKind::kRightParen, "')' or ',' in the arguments of " + call->text + "(");
        return with_height(std::move(call));
      }
      default:
        fail(token, "expected an expression (a number, a name, a function call or '('), found " + found(token));
    }
  }

  ExpressionPtr node(Expression::Kind kind, const Token& token) {
    auto e = std::make_unique<Expression>();
    e->kind = kind;
    e->text = token.text;
    e->op = token.kind;
    e->where = token.where;
    return e;
  }
  ExpressionPtr binary(ExpressionPtr left, const Token& op, ExpressionPtr right) {
    auto e = node(Expression::Kind::kBinary, op);
    e->arguments.push_back(std::move(left));
    e->arguments.push_back(std::move(right));
    return with_height(std::move(e));
  }
  ExpressionPtr with_height(ExpressionPtr e) {
    for (const auto& a : e->arguments) e->height = std::max(e->height, a->height + 1);
    if (e->height > kMaxHeight) {
      throw ModelFileError(source_, {Diagnostic{Severity::kError, e->where,
                                                "expression too long: more than " + std::to_string(kMaxHeight) +
                                                    " operations deep; split it with 'let' names"}});
    }
    return e;
  }

  // Counts the nesting of expression rules; refuses a file nested deeper than kMaxDepth.
  struct Depth {
    explicit Depth(ExpressionParser* parser) : parser_(parser) {
      if (++parser_->depth_ > kMaxDepth) {
        parser_->fail(parser_->peek(), "expression nested deeper than " + std::to_string(kMaxDepth) + " levels");
      }
    }
    ~Depth() { --parser_->depth_; }
    Depth(const Depth&) = delete;
    Depth& operator=(const Depth&) = delete;
    ExpressionParser* parser_;
  };
};

// The declarations of a file (docs/model-language.md), each rule reading its expressions
// with the rules of ExpressionParser.
// The parts that declarations share: definitions (NAME = value ...), ranges, blocks of
// derivatives and of resets.
class DeclarationParser : public ExpressionParser {
 public:
  using ExpressionParser::ExpressionParser;

 protected:
  // NAME = EXPRESSION [in [LOW, HIGH]] [atol NUMBER] ["description"] {, ...}; the range only with
  // `ranged` (parameters), the absolute tolerance only with `tolerated` (states).
  void definitions(std::vector<Definition>* out, bool described, bool ranged = false, bool tolerated = false) {
    do {
      Definition d;
      const Token& name = expect(TokenKind::kName, "a name");
      d.name = name.text;
      d.where = name.where;
      expect(TokenKind::kEquals, "'=' and a value after '" + d.name + "'");
      d.value = expression();
      if (ranged && at_word("in") && peek(1).kind == TokenKind::kLeftBracket) range(&d);
      if (tolerated && at_word("atol")) {
        d.atol_where = next().where;
        d.atol = expect(TokenKind::kNumber, "the absolute tolerance of state '" + d.name + "' after atol: a number").text;
      }
      if (described && at(TokenKind::kString)) d.description = next().text;
      out->push_back(std::move(d));
    } while (accept(TokenKind::kComma));
  }

  // in [LOW, HIGH]: two signed number literals.
  void range(Definition* d) {
    d->range_where = next().where;  // in
    next();                         // [
    d->low = signed_number("the range's low end after 'in [' (as in in [0.05, 0.2])");
    expect(TokenKind::kComma, "',' between the ends of the range of '" + d->name + "'");
    d->high = signed_number("the range's high end");
    expect(TokenKind::kRightBracket, "']' to close the range of '" + d->name + "'");
  }

  std::string signed_number(std::string_view what) {
    std::string sign;
    if (at(TokenKind::kMinus) || at(TokenKind::kPlus)) sign = next().kind == TokenKind::kMinus ? "-" : "";
    return sign + expect(TokenKind::kNumber, std::string(what) + ": a number").text;
  }

  // { der(STATE) = EXPRESSION ... }
  std::vector<Equation> derivative_block() {
    std::vector<Equation> equations;
    expect(TokenKind::kLeftBrace, "'{' to open the block of derivatives");
    while (!accept(TokenKind::kRightBrace)) {
      if (accept(TokenKind::kSemicolon)) continue;
      if (!at_word("der")) fail(peek(), "expected 'der(STATE) = expression' or '}', found " + found(peek()));
      next();
      expect(TokenKind::kLeftParen, "'(' after der");
      const Token& state = expect(TokenKind::kName, "the name of a state inside der( )");
      expect(TokenKind::kRightParen, "')' to close der(" + state.text);
      expect(TokenKind::kEquals, "'=' after der(" + state.text + ")");
      equations.push_back(Equation{state.text, state.where, expression()});
    }
    return equations;
  }

  // { STATE := EXPRESSION ... }
  std::vector<Equation> reset_block() {
    std::vector<Equation> equations;
    next();  // {
    while (!accept(TokenKind::kRightBrace)) {
      if (accept(TokenKind::kSemicolon) || accept(TokenKind::kComma)) continue;
      const Token& state = expect(TokenKind::kName, "'STATE := expression' or '}'");
      if (at(TokenKind::kEquals)) fail(peek(), "a reset assigns with ':=', not '=' (" + state.text + " := ...)");
      expect(TokenKind::kAssign, "':=' after '" + state.text + "'");
      equations.push_back(Equation{state.text, state.where, expression()});
    }
    return equations;
  }

};

class Parser : public DeclarationParser {
 public:
  using DeclarationParser::DeclarationParser;

  ModelSyntax file() {
    ModelSyntax model;
    bool have_model = false;
    while (!at(TokenKind::kEnd)) {
      if (accept(TokenKind::kSemicolon)) continue;
      if (at(TokenKind::kStar)) {
        model.transitions.push_back(transition());
        continue;
      }
      const Token& head = peek();
      if (head.kind != TokenKind::kName) fail(head, "expected a declaration (model, source, parameter, state, let, "
                                                   "require, flow, mode, initial, a transition 'FROM -> TO LABEL [guard]', "
                                                   "component, zeno or preset)");
      const std::string& word = head.text;
      if (word == "model") {
        if (have_model) fail(head, "a second 'model' declaration; a file holds one model");
        next();
        const Token& name = expect(TokenKind::kName, "the model's name");
        model.name = name.text;
        model.name_where = name.where;
        if (at(TokenKind::kString)) model.description = next().text;
        have_model = true;
      } else if (word == "source") {
        next();
        model.source = expect(TokenKind::kString, "the citation in quotes, as in source \"004, Eqs. 4-9\"").text;
      } else if (word == "parameter") {
        next();
        definitions(&model.parameters, true, true);
      } else if (word == "state") {
        next();
        definitions(&model.states, true, false, /*tolerated=*/true);
      } else if (word == "let") {
        next();
        definitions(&model.lets, false);
      } else if (word == "flow") {
        if (model.has_flow) fail(head, "a second 'flow' block; write every shared derivative in one block");
        model.has_flow = true;
        model.flow_where = next().where;
        model.flow = derivative_block();
      } else if (word == "mode") {
        model.modes.push_back(mode());
      } else if (word == "initial") {
        if (!model.initial.empty() && !model.initial.back().condition) {
          fail(head, "an 'initial' after an unconditional one is never chosen");
        }
        model.initial.push_back(initial());
      } else if (word == "zeno") {
        if (model.zeno) fail(head, "a second 'zeno' declaration");
        model.zeno = zeno();
      } else if (word == "require") {
        RequirementSyntax r;
        r.where = next().where;
        r.condition = expression();
        if (at(TokenKind::kString)) r.message = next().text;
        model.requirements.push_back(std::move(r));
      } else if (word == "preset") {
        model.presets.push_back(preset());
      } else if (word == "component" && peek(1).kind == TokenKind::kName &&
                 (peek(2).kind == TokenKind::kLeftBrace || peek(2).kind == TokenKind::kString)) {
        model.components.push_back(component());
      } else if (word == "crossing" && peek(1).kind == TokenKind::kName) {
        model.transitions.push_back(crossing());
      } else if (peek(1).kind == TokenKind::kArrow || peek(1).kind == TokenKind::kComma) {
        model.transitions.push_back(transition());
      } else {
        fail(head, "expected a declaration, found '" + word +
                       "' (declarations start with model, source, parameter, state, let, require, flow, mode, "
                       "initial, component, zeno, preset, or are transitions 'FROM -> TO LABEL [guard]')");
      }
    }
    if (!have_model) {
      throw ModelFileError(source_, {Diagnostic{Severity::kError, Location{1, 1},
                                                "the file declares no model: begin it with 'model NAME \"description\"'"}});
    }
    return model;
  }

 private:
  ModeSyntax mode() {
    next();  // mode
    ModeSyntax m;
    const Token& name = expect(TokenKind::kName, "the mode's name");
    m.name = name.text;
    m.where = name.where;
    if (at(TokenKind::kString)) m.description = next().text;
    if (at_word("algebraic")) {
      next();
      m.algebraic = true;
    }
    if (at(TokenKind::kLeftBrace)) {
      if (m.algebraic) fail(peek(), "an algebraic mode has no continuous evolution, so no derivatives");
      m.derivatives = derivative_block();
    }
    return m;
  }

  // initial NAME [condition]
  InitialSyntax initial() {
    next();  // initial
    const Token& name = expect(TokenKind::kName, "the initial mode's name");
    InitialSyntax initial{name.text, name.where, nullptr};
    if (accept(TokenKind::kLeftBracket)) {
      initial.condition = expression();
      expect(TokenKind::kRightBracket, "']' to close the condition of 'initial " + name.text + "'");
    }
    return initial;
  }

  // component NAME ["description"] { mode ... | initial NAME | FROM -> TO LABEL [guard] {...} }
  ComponentSyntax component() {
    next();  // component
    ComponentSyntax c;
    const Token& name = expect(TokenKind::kName, "the component's name");
    c.name = name.text;
    c.where = name.where;
    if (at(TokenKind::kString)) c.description = next().text;
    expect(TokenKind::kLeftBrace, "'{' to open component " + c.name);
    while (!accept(TokenKind::kRightBrace)) {
      if (accept(TokenKind::kSemicolon)) continue;
      const Token& head = peek();
      if (at_word("mode")) {
        c.modes.push_back(mode());
      } else if (at_word("initial") && peek(1).kind == TokenKind::kName) {
        if (!c.initial.empty()) fail(head, "a second 'initial' in component " + c.name);
        next();
        const Token& initial = next();
        c.initial = initial.text;
        c.initial_where = initial.where;
      } else if (at_word("zeno") && peek(1).kind == TokenKind::kArrow) {
        if (c.zeno) fail(head, "a second 'zeno' in component " + c.name);
        c.zeno = zeno();
      } else if (head.kind == TokenKind::kStar ||
                 (head.kind == TokenKind::kName &&
                  (peek(1).kind == TokenKind::kArrow || peek(1).kind == TokenKind::kComma))) {
        c.transitions.push_back(transition());
      } else {
        fail(head, "expected, in component " + c.name + ", 'mode NAME { ... }', 'initial NAME', a transition "
                   "'FROM -> TO LABEL [guard]', 'zeno -> MODE' or '}', found " + found(head));
      }
    }
    return c;
  }

  TransitionSyntax transition() {
    TransitionSyntax tr;
    if (at(TokenKind::kStar)) {
      tr.star_where = next().where;
    } else {
      do {
        const Token& from = expect(TokenKind::kName, "a mode the transition leaves");
        tr.from.emplace_back(from.text, from.where);
      } while (accept(TokenKind::kComma));
    }
    expect(TokenKind::kArrow, "'->' after the modes a transition leaves");
    const Token& to = expect(TokenKind::kName, "the target mode after '->'");
    tr.to = to.text;
    tr.to_where = to.where;
    const Token& label = expect(TokenKind::kName, "the transition's label after its target (as in s1 -> s3 p3 [guard])");
    tr.label = label.text;
    tr.label_where = label.where;
    expect(TokenKind::kLeftBracket, "'[' to open the guard of '" + tr.label + "'");
    tr.guard = expression();
    expect(TokenKind::kRightBracket, "']' to close the guard of '" + tr.label + "'");
    if (at(TokenKind::kLeftBrace)) tr.resets = reset_block();
    return tr;
  }

  // crossing LABEL (EXPRESSION) up|down|both [in MODE, ...] [{ resets }] [stop]. `in` and `stop`
  // are words, not reserved: `in` is the keyword when a mode name follows it, `stop` when no
  // '->' or ',' does (a transition out of a mode named stop).
  TransitionSyntax crossing() {
    next();  // crossing
    TransitionSyntax tr;
    tr.crossing = true;
    const Token& label = expect(TokenKind::kName, "the crossing's name, as in crossing apex (v) down");
    tr.label = label.text;
    tr.label_where = label.where;
    expect(TokenKind::kLeftParen, "'(' to open the expression whose zero crossing '" + tr.label + "' records");
    tr.guard = expression();
    expect(TokenKind::kRightParen, "')' to close the expression of crossing '" + tr.label + "'");
    const Token& direction = expect(TokenKind::kName, "the direction of crossing '" + tr.label + "': up, down or both");
    if (direction.text != "up" && direction.text != "down" && direction.text != "both") {
      fail(direction, "the direction of crossing '" + tr.label + "' is up, down or both, not '" + direction.text + "'");
    }
    tr.direction = direction.text;
    tr.to_where = direction.where;
    if (at_word("in") && peek(1).kind == TokenKind::kName) {
      next();
      do {
        const Token& mode = expect(TokenKind::kName, "a mode the crossing is watched in");
        tr.from.emplace_back(mode.text, mode.where);
      } while (accept(TokenKind::kComma));
    }
    if (at(TokenKind::kLeftBrace)) tr.resets = reset_block();
    if (at_word("stop") && peek(1).kind != TokenKind::kArrow && peek(1).kind != TokenKind::kComma) {
      next();
      tr.stop = true;
    }
    return tr;
  }

  ZenoSyntax zeno() {
    next();  // zeno
    ZenoSyntax z;
    expect(TokenKind::kArrow, "'->' after zeno (zeno -> MODE { resets })");
    const Token& target = expect(TokenKind::kName, "the mode entered at the Zeno time");
    z.target = target.text;
    z.where = target.where;
    if (at(TokenKind::kLeftBrace)) z.resets = reset_block();
    return z;
  }

  PresetSyntax preset() {
    next();  // preset
    PresetSyntax p;
    const Token& name = expect(TokenKind::kName, "the preset's name");
    p.name = name.text;
    p.where = name.where;
    // A preset's name may hold hyphens written without spaces, as on the command line
    // (--preset from-rest).
    while (at(TokenKind::kMinus) && adjacent(tokens_[at_ - 1], peek()) && peek(1).kind == TokenKind::kName &&
           adjacent(peek(), peek(1))) {
      next();
      p.name += "-" + next().text;
    }
    if (at(TokenKind::kString)) p.description = next().text;
    expect(TokenKind::kLeftBrace, "'{' to open the preset's values");
    while (!accept(TokenKind::kRightBrace)) {
      if (accept(TokenKind::kSemicolon) || accept(TokenKind::kComma)) continue;
      Definition d;
      const Token& key = expect(TokenKind::kName, "'NAME = value' or '}'");
      d.name = key.text;
      d.where = key.where;
      expect(TokenKind::kEquals, "'=' after '" + d.name + "'");
      d.value = expression();
      p.values.push_back(std::move(d));
    }
    return p;
  }
};

}  // namespace

ModelSyntax parse(const SourceText& source) { return Parser(source, tokenize(source)).file(); }

}  // namespace hysim::lang
