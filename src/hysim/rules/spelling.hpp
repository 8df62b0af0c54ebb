// How rule tables may be spelled: the papers' Russian words and their English equivalents for
// the columns, the procedures and the procedures' named parameters (docs/rule-tables.md). Every
// comparison is on folded text (lower case, Latin and Cyrillic).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "hysim/lang/source.hpp"
#include "hysim/rules/table.hpp"

namespace hysim::rules {

// Lower case for ASCII and Cyrillic (U+0410..U+042F, U+0401); other bytes are kept.
std::string folded(std::string_view text);

// The columns of the table sections.
enum class Column { kNumber, kVariable, kProcedure, kCoefficient, kArg1, kArg2, kSituation, kParamName, kParamValue,
                    kPriority, kPredicate, kRelation, kA, kActions };

// The column a header names, if any.
std::optional<Column> column_of(const std::string& header);

// The procedure a cell names, by any spelling; else nothing, and *closest the nearest spelling
// (or empty).
std::optional<Procedure> procedure_of(const std::string& text, std::string* closest);

// A named parameter of a procedure: its key (TransformationRule::parameter) for a spelling, or
// nothing when the procedure has no such parameter.
std::optional<std::string> parameter_key(Procedure procedure, const std::string& spelling);

}  // namespace hysim::rules
