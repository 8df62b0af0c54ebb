// A rule table on the engine: the table written as a model file (docs/model-language.md) and
// compiled like one, so that it runs with any solver, strategy and scalar type, with located
// events and sliding modes (docs/rule-tables.md, "On the engine").
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
// comments keep the table's names.
#pragma once

#include <string>

#include "hysim/models/catalog.hpp"
#include "hysim/rules/table.hpp"

namespace hysim::rules {

// The model-language text of the table. Throws lang::ModelFileError at the table's rows for
// what the engine cannot run (yet): delays, differentiators of algebraic variables, algebraic
// loops, a variable both integrated and assigned, situations that read events.
std::string model_text(const RuleTable& table);

// The catalog entry of the table on the engine (lang::model_entry of model_text). The
// compiler's warnings (a mode with too many switches to split, an unreachable mode) go to
// *warnings when given, pointing into the model text (hysim check --print-model).
ModelEntry engine_entry(const RuleTable& table, std::string* warnings = nullptr);

// An identifier for a table's name: "Сила трения Fтр" -> "Sila_treniya_Ftr".
std::string identifier(const std::string& name);

}  // namespace hysim::rules
