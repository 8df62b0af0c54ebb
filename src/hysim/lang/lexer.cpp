#include "hysim/lang/lexer.hpp"

#include <cctype>

namespace hysim::lang {

std::string describe(TokenKind kind) {
  switch (kind) {
    case TokenKind::kName: return "a name";
    case TokenKind::kNumber: return "a number";
    case TokenKind::kString: return "a string";
    case TokenKind::kLeftBrace: return "'{'";
    case TokenKind::kRightBrace: return "'}'";
    case TokenKind::kLeftParen: return "'('";
    case TokenKind::kRightParen: return "')'";
    case TokenKind::kLeftBracket: return "'['";
    case TokenKind::kRightBracket: return "']'";
    case TokenKind::kComma: return "','";
    case TokenKind::kSemicolon: return "';'";
    case TokenKind::kEquals: return "'='";
    case TokenKind::kAssign: return "':='";
    case TokenKind::kArrow: return "'->'";
    case TokenKind::kPlus: return "'+'";
    case TokenKind::kMinus: return "'-'";
    case TokenKind::kStar: return "'*'";
    case TokenKind::kSlash: return "'/'";
    case TokenKind::kCaret: return "'^'";
    case TokenKind::kLess: return "'<'";
    case TokenKind::kLessEqual: return "'<='";
    case TokenKind::kGreater: return "'>'";
    case TokenKind::kGreaterEqual: return "'>='";
    case TokenKind::kEqual: return "'=='";
    case TokenKind::kNotEqual: return "'!='";
    case TokenKind::kAnd: return "'&&'";
    case TokenKind::kOr: return "'||'";
    case TokenKind::kNot: return "'!'";
    case TokenKind::kEnd: return "end of file";
  }
  return "?";
}

namespace {

class Lexer {
 public:
  explicit Lexer(const SourceText& source) : source_(source), text_(source.text()) {}

  std::vector<Token> run() {
    std::vector<Token> tokens;
    for (;;) {
      skip_space_and_comments();
      if (at_ >= text_.size()) break;
      tokens.push_back(next());
    }
    tokens.push_back(Token{TokenKind::kEnd, "", source_.locate(text_.size())});
    return tokens;
  }

 private:
  void skip_space_and_comments() {
    while (at_ < text_.size()) {
      const char c = text_[at_];
      if (c == '#') {
        while (at_ < text_.size() && text_[at_] != '\n') ++at_;
      } else if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
        ++at_;
      } else {
        return;
      }
    }
  }

  [[noreturn]] void fail(std::size_t offset, std::string message) const {
    throw ModelFileError(source_, {Diagnostic{Severity::kError, source_.locate(offset), std::move(message)}});
  }

  bool digit(std::size_t i) const { return i < text_.size() && std::isdigit(static_cast<unsigned char>(text_[i])); }

  Token number(std::size_t start) {
    while (digit(at_)) ++at_;
    if (at_ < text_.size() && text_[at_] == '.') {
      ++at_;
      while (digit(at_)) ++at_;
    }
    if (at_ < text_.size() && (text_[at_] == 'e' || text_[at_] == 'E')) {
      std::size_t exponent = at_ + 1;
      if (exponent < text_.size() && (text_[exponent] == '+' || text_[exponent] == '-')) ++exponent;
      if (!digit(exponent)) fail(at_, "malformed number: the exponent after 'e' needs digits, as in 1e-3");
      at_ = exponent;
      while (digit(at_)) ++at_;
    }
    if (at_ < text_.size() && (std::isalpha(static_cast<unsigned char>(text_[at_])) || text_[at_] == '_')) {
      fail(at_, "malformed number: a letter follows the digits (write a space or an operator between them)");
    }
    return make(TokenKind::kNumber, start);
  }

  Token make(TokenKind kind, std::size_t start) const {
    return Token{kind, std::string(text_.substr(start, at_ - start)), source_.locate(start)};
  }

  Token next() {
    const std::size_t start = at_;
    const char c = text_[at_];
    if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
      while (at_ < text_.size() && (std::isalnum(static_cast<unsigned char>(text_[at_])) || text_[at_] == '_')) ++at_;
      return make(TokenKind::kName, start);
    }
    if (digit(at_) || (c == '.' && digit(at_ + 1))) return number(start);
    if (c == '"') {
      std::string value;
      ++at_;
      while (at_ < text_.size() && text_[at_] != '"' && text_[at_] != '\n') {
        if (text_[at_] == '\\' && at_ + 1 < text_.size() && (text_[at_ + 1] == '"' || text_[at_ + 1] == '\\')) ++at_;
        value += text_[at_++];
      }
      if (at_ >= text_.size() || text_[at_] != '"') fail(start, "unterminated string: a '\"' is missing on this line");
      ++at_;
      return Token{TokenKind::kString, std::move(value), source_.locate(start)};
    }
    const auto two = [&](char second) { return at_ + 1 < text_.size() && text_[at_ + 1] == second; };
    struct Punctuation {
      char first;
      char second;  // '\0': a one-character token
      TokenKind kind;
    };
    static constexpr Punctuation kPunctuation[] = {
        {':', '=', TokenKind::kAssign},      {'-', '>', TokenKind::kArrow},     {'<', '=', TokenKind::kLessEqual},
        {'>', '=', TokenKind::kGreaterEqual}, {'=', '=', TokenKind::kEqual},    {'!', '=', TokenKind::kNotEqual},
        {'&', '&', TokenKind::kAnd},         {'|', '|', TokenKind::kOr},        {'{', '\0', TokenKind::kLeftBrace},
        {'}', '\0', TokenKind::kRightBrace}, {'(', '\0', TokenKind::kLeftParen}, {')', '\0', TokenKind::kRightParen},
        {'[', '\0', TokenKind::kLeftBracket}, {']', '\0', TokenKind::kRightBracket}, {',', '\0', TokenKind::kComma},
        {';', '\0', TokenKind::kSemicolon},  {'=', '\0', TokenKind::kEquals},   {'+', '\0', TokenKind::kPlus},
        {'-', '\0', TokenKind::kMinus},      {'*', '\0', TokenKind::kStar},     {'/', '\0', TokenKind::kSlash},
        {'^', '\0', TokenKind::kCaret},      {'<', '\0', TokenKind::kLess},     {'>', '\0', TokenKind::kGreater},
        {'!', '\0', TokenKind::kNot},
    };
    for (const auto& p : kPunctuation) {
      if (c != p.first) continue;
      if (p.second == '\0') {
        ++at_;
        return make(p.kind, start);
      }
      if (two(p.second)) {
        at_ += 2;
        return make(p.kind, start);
      }
    }
    if (c == '&' || c == '|') fail(start, std::string("'") + c + "' alone is not an operator; did you mean '" + c + c + "'?");
    if (c == ':') fail(start, "':' alone is not an operator; a reset assigns with ':='");
    const auto byte = static_cast<unsigned char>(c);
    fail(start, byte >= 0x80 || byte < 0x20 ? "unexpected byte " + std::to_string(byte) + " (not part of hysim's language)"
                                            : std::string("unexpected character '") + c + "'");
  }

  const SourceText& source_;
  std::string_view text_;
  std::size_t at_ = 0;
};

}  // namespace

std::vector<Token> tokenize(const SourceText& source) { return Lexer(source).run(); }

}  // namespace hysim::lang
