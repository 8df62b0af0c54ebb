// The syntax tree of a model file, as the parser reads it (docs/model-language.md, grammar).
// Names are not resolved yet: that is the resolver's work (lang/spec.hpp, resolve;
// lang/resolve.cpp), which turns this tree into a checked model description.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "hysim/lang/lexer.hpp"

namespace hysim::lang {

// An expression as written: arithmetic, comparisons and logic share one tree; the resolver
// checks which are real-valued and which are boolean.
struct Expression {
  enum class Kind {
    kNumber,  // text: the decimal literal
    kName,    // text: a parameter, state, let name, t or pi
    kCall,    // text: the function; arguments: its arguments (der, prior, abs, ...)
    kUnary,   // op: kMinus, kPlus or kNot; arguments: one
    kBinary,  // op: arithmetic, comparison, && or ||; arguments: two
    kIf,      // if arguments[0] then arguments[1] else arguments[2]
  };
  Kind kind = Kind::kNumber;
  std::string text;
  TokenKind op = TokenKind::kEnd;
  std::vector<std::unique_ptr<Expression>> arguments;
  Location where;
  int height = 1;  // of the tree below, this node included (the parser bounds it)
};
using ExpressionPtr = std::unique_ptr<Expression>;

// NAME = EXPRESSION ["description"]: a parameter, a state with its initial value, a let, or
// one value of a preset.
struct Definition {
  std::string name;
  Location where;
  ExpressionPtr value;
  std::string description;
  // A parameter's declared range, "in [LOW, HIGH]": signed decimal literals as written; both
  // empty when it declares none.
  std::string low{}, high{};
  Location range_where{};
  // A state's own absolute tolerance, "atol NUMBER": the literal as written; empty: none.
  std::string atol{};
  Location atol_where{};
};

// der(STATE) = EXPRESSION in a flow or mode block; STATE := EXPRESSION in a reset block.
struct Equation {
  std::string state;
  Location where;
  ExpressionPtr value;
};

struct ModeSyntax {
  std::string name;
  Location where;
  std::string description;
  bool algebraic = false;
  std::vector<Equation> derivatives;  // overrides of the shared flow
};

// FROM -> TO LABEL [guard] { resets }; FROM is one mode, a list "a, b", or "*" (every mode).
// Or a crossing, crossing LABEL (EXPRESSION) DIRECTION [in MODES] [{ resets }] [stop]: `guard`
// holds the expression whose zero it records, `to` is empty (each mode keeps itself), `from`
// lists the modes after `in` (empty: every mode with a field), and `to_where` is the direction's.
struct TransitionSyntax {
  std::vector<std::pair<std::string, Location>> from;  // empty: every mode ("*")
  Location star_where;
  std::string to, label;
  Location to_where, label_where;
  ExpressionPtr guard;
  std::vector<Equation> resets;
  bool crossing = false;
  std::string direction;  // a crossing's: up, down or both
  bool stop = false;      // a crossing's: the run ends at it
};

// initial MODE [condition]: the first declaration whose condition holds on the initial state
// chooses the initial mode; one without a condition always holds.
struct InitialSyntax {
  std::string mode;
  Location where;
  ExpressionPtr condition;  // null: unconditional
};

struct ZenoSyntax {
  std::string target;
  Location where;
  std::vector<Equation> resets;
};

struct PresetSyntax {
  std::string name;
  Location where;
  std::string description;
  std::vector<Definition> values;  // parameter values, and t_end
};

// require CONDITION ["message"]: a condition on the parameters, checked when a model is built.
struct RequirementSyntax {
  ExpressionPtr condition;
  std::string message;
  Location where;
};

// component NAME ["description"] { mode ... initial NAME  FROM -> TO LABEL [guard] { resets }
// zeno -> MODE { resets } }:
// a part of the model with its own local modes, each giving the derivatives of the states the
// component owns, and its own transitions between them (docs/model-language.md, "Components").
struct ComponentSyntax {
  std::string name;
  Location where;
  std::string description;
  std::vector<ModeSyntax> modes;
  std::string initial;  // empty: the first mode
  Location initial_where;
  std::vector<TransitionSyntax> transitions;
  std::optional<ZenoSyntax> zeno;  // zeno -> MODE { resets }: where its own events accumulate
};

struct ModelSyntax {
  std::string name;
  Location name_where;
  std::string description;
  std::string source;
  std::vector<Definition> parameters;
  std::vector<Definition> states;
  std::vector<Definition> lets;
  std::vector<Equation> flow;
  bool has_flow = false;
  Location flow_where;
  std::vector<ModeSyntax> modes;
  std::vector<InitialSyntax> initial;
  std::vector<TransitionSyntax> transitions;
  std::vector<ComponentSyntax> components;
  std::optional<ZenoSyntax> zeno;
  std::vector<PresetSyntax> presets;
  std::vector<RequirementSyntax> requirements;
};

// Parses a whole file; throws ModelFileError at the first syntax error.
ModelSyntax parse(const SourceText& source);

// Trees built without text (a rule table's translation, rules/to_model.hpp): each node at
// `where`, its height from its arguments.
ExpressionPtr number_syntax(std::string text, Location where);  // a literal: digits [.digits] [e[+-]digits]
ExpressionPtr name_syntax(std::string name, Location where);
ExpressionPtr call_syntax(std::string function, std::vector<ExpressionPtr> arguments, Location where);
ExpressionPtr unary_syntax(TokenKind op, ExpressionPtr operand, Location where);  // kMinus, kPlus, kNot
ExpressionPtr binary_syntax(TokenKind op, ExpressionPtr left, ExpressionPtr right, Location where);
ExpressionPtr if_syntax(ExpressionPtr condition, ExpressionPtr then, ExpressionPtr otherwise, Location where);
ExpressionPtr copy_syntax(const Expression& e);
// Whether `text` is a number as the language writes it (digits [.digits] [e[+-]digits], or
// .digits): what number_syntax takes.
bool is_number_text(const std::string& text);

// The model file of a tree, which parses back to the same tree (locations aside): the fewest
// parentheses the grammar needs; a let's description as a comment.
std::string print(const ModelSyntax& model);
std::string print(const Expression& e);

}  // namespace hysim::lang
