// The tokens of a model file (docs/model-language.md, "Lexical structure").
//
// Names, numbers kept as their decimal text (so that a float128 run reads "0.1" as the
// binary128 number nearest to 1/10), strings, and punctuation. `#` starts a comment that runs
// to the end of the line; newlines are white space (statements end where the grammar says,
// and `;` may separate them).
#pragma once

#include <string>
#include <vector>

#include "hysim/lang/source.hpp"

namespace hysim::lang {

enum class TokenKind {
  kName, kNumber, kString,
  kLeftBrace, kRightBrace, kLeftParen, kRightParen, kLeftBracket, kRightBracket,
  kComma, kSemicolon, kEquals, kAssign /* := */, kArrow /* -> */,
  kPlus, kMinus, kStar, kSlash, kCaret,
  kLess, kLessEqual, kGreater, kGreaterEqual, kEqual /* == */, kNotEqual /* != */,
  kAnd, kOr, kNot,
  kEnd,
};

// How a token kind is written, for messages: "'->'", "a name", "end of file".
std::string describe(TokenKind kind);

struct Token {
  TokenKind kind = TokenKind::kEnd;
  std::string text;  // names and numbers as written; strings without their quotes
  Location where;
};

// Splits the whole file; throws ModelFileError at the first character that starts no token,
// at an unterminated string and at a malformed number.
std::vector<Token> tokenize(const SourceText& source);

}  // namespace hysim::lang
