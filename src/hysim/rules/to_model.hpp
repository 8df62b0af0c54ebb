// A rule table on the engine: the table translated into the model language's syntax tree
// (lang/syntax.hpp), each node at the table cell it comes from, and checked and compiled like
// a model file, so that it runs with any solver, strategy and scalar type, with located events
// and sliding modes (docs/rule-tables.md, "On the engine"). Every diagnostic, the translation's
// and the compiler's, names the table's file, line and column.
//
// The translation is the continuous limit of the interpreter's cycle (dt -> 0):
//   integral   y += k a1 dt               ->  state y, der(y) = k a1 (summed over its rules)
//   lag        T y' + y = k a1            ->  state y, der(y) = (k a1 - y) / T
//   oscillatory T^2 y'' + 2 xi T y' + y   ->  states y and y', as a first-order pair
//   the others                            ->  a `let` per rule, in the rules' order: a rule
//                                             reads what the rules before it wrote, and a
//                                             variable written further down reads as its
//                                             last value (the previous cycle's, which in the
//                                             limit is the same instant). A chain of such
//                                             reads that returns to its start is an
//                                             algebraic loop, reported with the rule and
//                                             column where it closes.
//   relay      upper if k a1 > 0 else lower: a switch inside the field, which the compiler
//              turns into modes and the engine locates (and slides on, when both sides push
//              towards it)
// Names become identifiers (Cyrillic transliterated, other characters '_'); the model's
// descriptions keep the table's names.
#pragma once

#include <string>

#include "hysim/lang/syntax.hpp"
#include "hysim/models/catalog.hpp"
#include "hysim/rules/table.hpp"

namespace hysim::rules {

// The syntax tree of the table's model. Throws lang::ModelFileError at the table's cells for
// what the engine cannot run (yet): delays, differentiators of algebraic variables, algebraic
// loops, a variable both integrated and assigned, situations that read events.
lang::ModelSyntax model_syntax(const RuleTable& table);

// The same printed as a model file (hysim check --print-model), which compiles to the same
// model.
std::string model_text(const RuleTable& table);

// The catalog entry of the table on the engine: model_syntax resolved (lang::resolve) against
// the table's own text, then lang::model_entry. The compiler's warnings (a mode with too many
// switches to split, an unreachable mode) go to *warnings when given, at the table's cells.
ModelEntry engine_entry(const RuleTable& table, std::string* warnings = nullptr);

// An identifier for a table's name: "Сила трения Fтр" -> "Sila_treniya_Ftr".
std::string identifier(const std::string& name);

}  // namespace hysim::rules
