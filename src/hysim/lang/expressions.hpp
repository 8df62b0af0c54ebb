// The resolver's expressions (lang/resolve.cpp): the table of names (parameters, states,
// lets), the lets with their recursion check, and every syntax expression into the model's
// Graph, with the checks of docs/model-language.md, "Errors", on what each context may read.
// Errors go to a list shared with the rest of the resolver, in the order they are found.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "hysim/lang/expr.hpp"
#include "hysim/lang/source.hpp"
#include "hysim/lang/spec.hpp"
#include "hysim/lang/syntax.hpp"

namespace hysim::lang {

// Where an expression is written decides what it may read.
enum class Context {
  kConstant,  // initial values: parameters, constants and lets of them
  kInitial,   // conditions of the initial mode: also the initial state
  kField,     // der(x) = ...: t, states, parameters
  kGuard,     // [ ... ]: also prior(x)
  kReset,     // x := ...: t and the a priori state
  kLet,       // let: anything; the use decides
};

const char* context_name(Context c);

struct Value {
  NodeId id = -1;
  bool boolean = false;
};

enum class NameKind { kParameter, kState, kLet };

struct NameInfo {
  NameKind kind;
  int index;  // parameter or state index, or index into the syntax's lets
  Location where;
};

// The operation of a binary operator token.
Op binary_op(TokenKind k);

// The text of a literal, with its sign: "2.5", "-1e3"; false when e is not one.
bool literal_text(const Expression& e, std::string* text);

class ExpressionResolver {
 public:
  // Resolves into spec->graph the lets of `lets`; errors go to *errors.
  ExpressionResolver(const std::vector<Definition>& lets, ModelSpec* spec, std::vector<Diagnostic>* errors);

  void error(Location where, std::string message);
  bool fail(Location where, std::string message);

  // "a parameter", "a state" or "a let", for messages.
  static const char* kind_name(NameKind k) {
    switch (k) {
      case NameKind::kParameter: return "a parameter";
      case NameKind::kState: return "a state";
      case NameKind::kLet: return "a let";
    }
    return "";
  }

  // Enters a name in the table; false (with the error recorded) for a keyword, a function or
  // a name declared before.
  bool declare(const std::string& name, Location where, NameKind kind, int index);
  // The declared name, or nullptr.
  const NameInfo* find_name(const std::string& name) const;

  // A literal that double can hold as a finite number (long double and float128 hold it too).
  bool finite_literal(const std::string& text, Location where, const std::string& what);

  // Resolves every let declared as one (not clashing with another name) into spec->lets.
  void resolve_lets();

  // Resolves e in context c; false (with the error recorded) when it cannot.
  bool expression(const Expression& e, Context c, Value* out);
  // A numeric expression of context c (initial values, derivatives, resets).
  bool number(const Expression& e, Context c, NodeId* out, const std::string& what);
  bool checked_height(Location where, const Value& v);

  // How deep expression() may recurse: through the operations of one expression and into the
  // lets it reads that are not resolved yet (declared after it), and theirs. Lets read in their
  // order of declaration cost one level each; a chain written last-first (let a0 = a1 + 1,
  // let a1 = a2 + 1, ...) recursed once per let, about 1 KB of stack for each, and overflowed a
  // 2 MiB stack at 2,000 lets. This bound refuses it with its place at about 0.5 MB.
  static constexpr int kMaxDepth = 1000;

 private:
  struct LetState {
    enum { kUnvisited, kVisiting, kDone, kFailed } status = kUnvisited;
    Value value;
  };

  std::vector<std::string> known_names() const;
  bool let_value(int index, Location used_at, Value* out = nullptr);
  bool name(const Expression& e, Context c, Value* out);
  bool call(const Expression& e, Context c, Value* out);
  bool binary(const Expression& e, Context c, Value* out);
  bool too_deep(Location where);

  const std::vector<Definition>& lets_syntax_;
  ModelSpec& spec_;
  std::vector<Diagnostic>& errors_;
  std::map<std::string, NameInfo> names_;
  std::vector<LetState> lets_;
  std::vector<int> let_stack_;
  int depth_ = 0;  // of expression() calls in progress
};

}  // namespace hysim::lang
