// Reading a rule table (rules/table.hpp, docs/rule-tables.md): sections of tab-separated rows,
// header rows matched by name, names resolved, and every problem reported with its place.
#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string_view>

#include "hysim/core/printable.hpp"
#include "hysim/core/scalar.hpp"
#include "hysim/rules/procedures.hpp"
#include "hysim/rules/spelling.hpp"
#include "hysim/rules/table.hpp"

namespace hysim::rules {

using lang::Diagnostic;
using lang::ModelFileError;
using lang::Severity;
using lang::SourceText;

namespace {

struct Cell {
  std::string text;  // trimmed, inner runs of spaces collapsed
  Location where;
};

struct Row {
  std::vector<Cell> cells;
  Location where;
  const Cell* at(std::size_t column) const { return column < cells.size() ? &cells[column] : nullptr; }
};

struct Section {
  std::string name;
  Location where;
  std::vector<Row> rows;
};

// Trims ASCII white space and collapses inner runs of spaces to one.
std::string tidy(std::string_view text) {
  std::string out;
  bool space = false;
  for (const char c : text) {
    if (c == ' ' || c == '\r' || c == '\v' || c == '\f') {
      space = !out.empty();
      continue;
    }
    if (space) out += ' ';
    space = false;
    out += c;
  }
  return out;
}

// --- The reader's state and the pieces every section uses ------------------------------------

// The table as read so far, its sections and rows, and the problems found.
struct ReaderState {
  explicit ReaderState(const SourceText& text) : source(text) {}

  const SourceText& source;
  RuleTable table;
  std::vector<Section> sections;
  std::vector<Diagnostic> errors;
};

void error(ReaderState& reader, Location where, std::string message) {
  reader.errors.push_back({Severity::kError, where, std::move(message)});
}

void split_sections(ReaderState& reader) {
  static const std::vector<std::string> known = {"model",           "parameters", "initial", "logic", "predicates",
                                                 "situation rules", "init rules", "rules"};
  const std::string& text = reader.source.text();
  std::size_t start = 0;
  int line = 0;
  while (start <= text.size()) {
    ++line;
    std::size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    const std::string_view raw(text.data() + start, end - start);
    const std::string whole = tidy(raw);
    if (!whole.empty() && whole[0] != '#') {
      if (whole.front() == '[' && whole.back() == ']') {
        const std::string name = folded(tidy(whole.substr(1, whole.size() - 2)));
        const Location where{line, static_cast<int>(raw.find('[')) + 1};
        if (std::find(known.begin(), known.end(), name) == known.end()) {
          const std::string near = lang::closest_name(name, known);
          error(reader, where, "unknown section [" + name + "]" + (near.empty() ? "" : " (did you mean [" + near + "]?)") +
                           "; sections: [model], [parameters], [initial], [logic], [predicates], "
                           "[situation rules], [init rules], [rules]");
        }
        for (const auto& s : reader.sections) {
          if (s.name == name) error(reader, where, "section [" + name + "] appears twice (first at line " +
                                               std::to_string(s.where.line) + ")");
        }
        reader.sections.push_back({name, where, {}});
      } else if (reader.sections.empty()) {
        error(reader, Location{line, 1}, "text before the first section: a rule table starts with a section such as "
                                 "[model] or [rules]");
      } else {
        Row row;
        row.where = Location{line, 1};
        std::size_t cell_start = 0;
        while (true) {
          const std::size_t tab = raw.find('\t', cell_start);
          const std::size_t cell_end = tab == std::string_view::npos ? raw.size() : tab;
          const std::string_view piece = raw.substr(cell_start, cell_end - cell_start);
          const std::size_t lead = piece.find_first_not_of(' ');
          row.cells.push_back(
              {tidy(piece), Location{line, static_cast<int>(cell_start + (lead == std::string_view::npos ? 0 : lead)) + 1}});
          if (tab == std::string_view::npos) break;
          cell_start = tab + 1;
        }
        while (!row.cells.empty() && row.cells.back().text.empty()) row.cells.pop_back();
        reader.sections.back().rows.push_back(std::move(row));
      }
    }
    if (end == text.size()) break;
    start = end + 1;
  }
}

// A number in C syntax, with ',' accepted as the decimal separator (the papers' habit).
std::optional<double> number(const std::string& text) {
  if (text.empty()) return std::nullopt;
  std::string t = text;
  if (t.find('.') == std::string::npos && std::count(t.begin(), t.end(), ',') == 1) std::replace(t.begin(), t.end(), ',', '.');
  const char first = t[0];
  if (!(std::isdigit(static_cast<unsigned char>(first)) || first == '-' || first == '+' || first == '.')) return std::nullopt;
  char* end = nullptr;
  errno = 0;
  const double value = std::strtod(t.c_str(), &end);
  if (end != t.c_str() + t.size() || errno == ERANGE || !std::isfinite(value)) return std::nullopt;
  return value;
}

// A number's text with '.' as the decimal separator.
std::string decimal_text(std::string text) {
  if (text.find('.') == std::string::npos) std::replace(text.begin(), text.end(), ',', '.');
  return text;
}

double number_or_error(ReaderState& reader, const Cell& cell, const std::string& what) {
  const auto value = number(cell.text);
  if (!value) error(reader, cell.where, what + ": '" + cell.text + "' is not a finite number");
  return value.value_or(0.0);
}

std::optional<bool> truth(const std::string& text) {
  const std::string t = folded(text);
  if (t == "true" || t == "истина" || t == "1") return true;
  if (t == "false" || t == "ложь" || t == "0") return false;
  return std::nullopt;
}

int declare_logic(ReaderState& reader, LogicVariable v) {
  const int found = reader.table.logic_index(v.name);
  if (found >= 0) {
    const auto& old = reader.table.logic[static_cast<std::size_t>(found)];
    if (old.kind == LogicKind::kPredicate || v.kind == LogicKind::kPredicate) {
      error(reader, v.where, "'" + v.name + "' is both a predicate and a logic state (first at line " +
                         std::to_string(old.where.line) + ")");
    }
    return found;
  }
  if (reader.table.real_index(v.name) >= 0) error(reader, v.where, "'" + v.name + "' is already a real variable");
  reader.table.logic.push_back(std::move(v));
  return static_cast<int>(reader.table.logic.size()) - 1;
}

// The columns of a section's header row. With `report`, an unknown or repeated header is an
// error (a repeated one is ignored; parameter name and value pairs may repeat).
std::vector<std::optional<Column>> header_of(ReaderState& reader, const Section& section, bool report = true) {
  std::vector<std::optional<Column>> columns;
  if (section.rows.empty()) return columns;
  for (const auto& cell : section.rows.front().cells) {
    auto column = column_of(cell.text);
    if (!column) {
      if (report) error(reader, cell.where, "[" + section.name + "]: unknown column '" + cell.text + "' in the header row");
    } else if (*column != Column::kParamName && *column != Column::kParamValue &&
               std::find(columns.begin(), columns.end(), column) != columns.end()) {
      if (report) error(reader, cell.where, "[" + section.name + "]: column '" + cell.text + "' appears twice in the header row");
      column.reset();
    }
    columns.push_back(column);
  }
  return columns;
}

int find(const std::vector<std::optional<Column>>& columns, Column wanted) {
  for (std::size_t i = 0; i < columns.size(); ++i) {
    if (columns[i] == wanted) return static_cast<int>(i);
  }
  return -1;
}

bool require(ReaderState& reader, const Section& section, const std::vector<std::optional<Column>>& columns, Column wanted,
             const char* name) {
  if (find(columns, wanted) >= 0) return true;
  error(reader, section.rows.empty() ? section.where : section.rows.front().where,
        "[" + section.name + "]: the header row has no column '" + name + "'");
  return false;
}

Operand operand(ReaderState& reader, const Cell& cell, const std::string& where) {
  Operand out;
  out.where = cell.where;
  if (const auto value = number(cell.text)) {
    out.number = *value;
    out.text = decimal_text(cell.text);
    return out;
  }
  out.variable = reader.table.real_index(cell.text);
  if (out.variable < 0) {
    std::vector<std::string> names;
    for (const auto& v : reader.table.reals) names.push_back(v.name);
    const std::string near = lang::closest_name(cell.text, names);
    error(reader, cell.where, where + ": unknown variable '" + cell.text + "'" +
                          (near.empty() ? " (not a parameter, an initial value or a rule's variable)"
                                        : " (did you mean '" + near + "'?)"));
  }
  return out;
}

Condition condition(ReaderState& reader, const Cell* cell, const std::string& where) {
  Condition out;
  if (cell == nullptr) return out;
  out.where = cell->where;
  std::string text = cell->text;
  const std::string f = folded(text);
  if (f.empty() || f == "ever true" || f == "always" || f == "всегда") return out;
  if (text[0] == '!') {
    out.must_be = false;
    text = tidy(text.substr(1));
  } else if (f.rfind("not ", 0) == 0) {
    out.must_be = false;
    text = tidy(text.substr(4));
  }
  out.logic = reader.table.logic_index(text);
  if (out.logic < 0) {
    std::vector<std::string> names;
    for (const auto& v : reader.table.logic) names.push_back(v.name);
    const std::string near = lang::closest_name(text, names);
    error(reader, cell->where, where + ": situation '" + text + "' is never defined (not a predicate, a [logic] "
                               "variable or the action of a situation rule)" +
                           (near.empty() ? "" : "; did you mean '" + near + "'?"));
  }
  return out;
}

std::vector<std::pair<std::string, Location>> literals(const Cell& cell, char separator) {
  std::vector<std::pair<std::string, Location>> out;
  std::size_t start = 0;
  while (start <= cell.text.size()) {
    std::size_t end = cell.text.find(separator, start);
    if (end == std::string::npos) end = cell.text.size();
    out.emplace_back(tidy(cell.text.substr(start, end - start)),
                     Location{cell.where.line, cell.where.column + static_cast<int>(start)});
    start = end + 1;
  }
  return out;
}

Literal literal(ReaderState& reader, std::string text, Location where, const std::string& label) {
  Literal out;
  if (!text.empty() && text[0] == '!') {
    out.negated = true;
    text = tidy(text.substr(1));
  }
  if (text.empty()) {
    error(reader, where, label + ": an empty name");
    return out;
  }
  out.logic = reader.table.logic_index(text);
  if (out.logic < 0) {
    std::vector<std::string> names;
    for (const auto& v : reader.table.logic) names.push_back(v.name);
    const std::string near = lang::closest_name(text, names);
    error(reader, where, label + ": situation '" + text + "' is never defined" + (near.empty() ? "" : " (did you mean '" + near + "'?)"));
  }
  return out;
}

// --- The sections of real variables and transformation rules: [model], [parameters],
// [initial], [logic], [init rules], [rules] -------------------------------------------------

void read_model(ReaderState& reader, const Section& section) {
  for (const auto& row : section.rows) {
    const Cell& key = row.cells[0];
    const Cell* value = row.at(1);
    if (value == nullptr) {
      error(reader, key.where, "[model]: '" + key.text + "' has no value (write the key, a tab, then the value)");
      continue;
    }
    const std::string k = folded(key.text);
    if (k == "name") reader.table.name = value->text;
    else if (k == "title") reader.table.title = value->text;
    else if (k == "source") reader.table.source = value->text;
    else if (k == "dt") reader.table.dt = number_or_error(reader, *value, "[model] dt");
    else if (k == "t_end") reader.table.t_end = number_or_error(reader, *value, "[model] t_end");
    else error(reader, key.where, "[model]: unknown key '" + key.text + "' (keys: name, title, source, dt, t_end)");
  }
  if (!(reader.table.dt > 0)) error(reader, section.where, "[model] dt must be positive");
  if (!(reader.table.t_end > 0)) error(reader, section.where, "[model] t_end must be positive");
}

// A parameter's declared range, the fourth cell: LOW..HIGH (docs/rule-tables.md), low < high,
// the value inside.
void read_range(ReaderState& reader, const Section& section, const Cell& cell, RealVariable* real) {
  const std::string what = "[" + section.name + "] " + real->name + ": the range '" + cell.text + "'";
  if (section.name != "parameters") {
    error(reader, cell.where, what + ": only a parameter declares a range (in [parameters])");
    return;
  }
  const std::size_t dots = cell.text.find("..");
  const auto low = dots == std::string::npos ? std::nullopt : number(tidy(cell.text.substr(0, dots)));
  const auto high = dots == std::string::npos ? std::nullopt : number(tidy(cell.text.substr(dots + 2)));
  if (!low || !high) {
    error(reader, cell.where, what + " is not LOW..HIGH with two finite numbers (as in 0.05..0.2)");
  } else if (!(*low < *high)) {
    error(reader, cell.where, what + " needs LOW < HIGH");
  } else if (!(*low <= real->initial && real->initial <= *high)) {
    error(reader, cell.where, what + " does not hold the value " + format_scalar(real->initial, 17));
  } else {
    real->low = decimal_text(tidy(cell.text.substr(0, dots)));
    real->high = decimal_text(tidy(cell.text.substr(dots + 2)));
  }
}

void read_values(ReaderState& reader, const Section& section, bool parameters) {
  for (const auto& row : section.rows) {
    const Cell& name = row.cells[0];
    const Cell* value = row.at(1);
    if (value == nullptr) {
      error(reader, name.where, "[" + section.name + "]: '" + name.text + "' has no value (name, a tab, the value)");
      continue;
    }
    const double v = number_or_error(reader, *value, "[" + section.name + "] " + name.text);
    const int index = reader.table.real_index(name.text);
    if (index >= 0) {
      error(reader, name.where, "'" + name.text + "' is given twice (first at line " +
                            std::to_string(reader.table.reals[static_cast<std::size_t>(index)].where.line) + ")");
      continue;
    }
    RealVariable real{name.text, parameters, v, row.at(2) ? row.at(2)->text : "", name.where};
    if (const Cell* range = row.at(3)) read_range(reader, section, *range, &real);
    reader.table.reals.push_back(std::move(real));
  }
}

void read_logic(ReaderState& reader, const Section& section) {
  for (const auto& row : section.rows) {
    const Cell& name = row.cells[0];
    LogicVariable v;
    v.name = name.text;
    v.where = name.where;
    if (const Cell* kind = row.at(1)) {
      const std::string k = folded(kind->text);
      if (k == "command") v.kind = LogicKind::kCommand;
      else if (k == "event") v.kind = LogicKind::kEvent;
      else if (k != "state") error(reader, kind->where, "[logic] " + name.text + ": '" + kind->text + "' is not state, event or command");
    }
    if (const Cell* initial = row.at(2)) {
      const auto value = truth(initial->text);
      if (!value) error(reader, initial->where, "[logic] " + name.text + ": '" + initial->text + "' is not True or False");
      v.initial = value.value_or(false);
    }
    declare_logic(reader, std::move(v));
  }
}

void declare_rule_variables(ReaderState& reader, const Section& section) {
  const auto columns = header_of(reader, section, false);
  const int variable = find(columns, Column::kVariable);
  if (variable < 0) return;  // reported by read_rules
  for (std::size_t r = 1; r < section.rows.size(); ++r) {
    const Cell* cell = section.rows[r].at(static_cast<std::size_t>(variable));
    if (cell == nullptr || cell->text.empty()) continue;
    if (reader.table.real_index(cell->text) >= 0) continue;
    reader.table.reals.push_back({cell->text, false, 0.0, "", cell->where});
  }
}

// One cell of a transformation rule's row, by its column. `pending`: a parameter name waiting
// for the value in the next column.
void rule_cell(ReaderState& reader, const Section& section, Column column, const Cell& cell, TransformationRule* rule,
               std::string* label, std::pair<std::string, Location>* pending) {
  switch (column) {
    case Column::kNumber:
      if (!cell.text.empty()) {
        const auto n = number(cell.text);
        if (!n || *n != std::floor(*n) || std::fabs(*n) > 1e9) {
          error(reader, cell.where, *label + ": № '" + cell.text + "' is not a whole number of at most 9 digits");
        } else {
          rule->number = static_cast<int>(*n);
        }
        *label = "[" + section.name + "] rule " + std::to_string(rule->number);
      }
      break;
    case Column::kVariable:
      rule->variable = reader.table.real_index(cell.text);
      if (rule->variable < 0) break;  // empty: reported by read_rules
      if (reader.table.reals[static_cast<std::size_t>(rule->variable)].parameter) {
        error(reader, cell.where, *label + ": '" + cell.text + "' is a parameter, which rules cannot change");
      }
      break;
    case Column::kProcedure: {
      std::string near;
      if (const auto procedure = procedure_of(cell.text, &near)) {
        rule->procedure = *procedure;
      } else {
        error(reader, cell.where, *label + ": unknown procedure '" + cell.text + "'" +
                              (near.empty() ? "" : " (did you mean '" + near + "'?)") +
                              "; see docs/rule-tables.md for the procedures");
      }
      break;
    }
    case Column::kCoefficient:
      if (!cell.text.empty()) {
        rule->coefficient = number_or_error(reader, cell, *label + ", coefficient");
        rule->coefficient_text = decimal_text(cell.text);
      }
      break;
    case Column::kArg1:
      if (!cell.text.empty()) rule->a1 = operand(reader, cell, *label + ", argument 1");
      break;
    case Column::kArg2:
      if (!cell.text.empty()) rule->a2 = operand(reader, cell, *label + ", argument 2");
      break;
    case Column::kSituation:
      rule->condition = condition(reader, &cell, *label + ", situation");
      break;
    case Column::kParamName:
      pending->first = cell.text;
      pending->second = cell.where;
      break;
    case Column::kParamValue:
      if (!pending->first.empty()) {
        rule->parameters.emplace_back(pending->first, number_or_error(reader, cell, *label + ", parameter '" + pending->first + "'"));
        pending->first.clear();
      } else if (!cell.text.empty()) {
        error(reader, cell.where, *label + ": a parameter value without a parameter name before it");
      }
      break;
    case Column::kPriority:
      if (!cell.text.empty()) {
        const auto p = number(cell.text);
        if (!p || *p != std::floor(*p) || *p < 0 || *p > 1e6) error(reader, cell.where, *label + ": priority '" + cell.text + "' is not a whole number >= 0");
        else rule->priority = static_cast<int>(*p);
      }
      break;
    default:
      error(reader, cell.where, *label + ": this column does not belong to a rule table");
  }
}

// Procedures of two arguments need both; parameters must be known to the procedure.
void check_arguments(ReaderState& reader, TransformationRule& rule, const std::string& label) {
  const Procedure p = rule.procedure;
  if (procedure_info(p).arguments == 2 && !rule.a2) error(reader, rule.where, label + ": procedure '" + procedure_name(p) + "' needs Argument 2");
  for (auto& [name, value] : rule.parameters) {
    const auto key = parameter_key(p, name);
    if (!key) {
      error(reader, rule.where, label + ": procedure '" + procedure_name(p) + "' has no parameter '" + name + "'");
      continue;
    }
    name = *key;
    if ((p == Procedure::kLag || p == Procedure::kOscillatory) && !(value > 0)) {
      error(reader, rule.where, label + ": parameter '" + name + "' must be positive");
    }
    if (p == Procedure::kDelay && !(value >= 0)) error(reader, rule.where, label + ": the delay must be >= 0");
  }
}

void read_rules(ReaderState& reader, const Section& section, std::vector<TransformationRule>* rules) {
  if (section.rows.empty()) return;
  const auto columns = header_of(reader, section);
  const bool complete = require(reader, section, columns, Column::kVariable, "Variable / Переменная") &
                        require(reader, section, columns, Column::kProcedure, "Procedure / Процедура") &
                        require(reader, section, columns, Column::kArg1, "Argument 1 / Аргумент 1");
  if (!complete) return;
  for (std::size_t r = 1; r < section.rows.size(); ++r) {
    const Row& row = section.rows[r];
    TransformationRule rule;
    rule.where = row.where;
    rule.number = static_cast<int>(r);
    std::string label = "[" + section.name + "] row " + std::to_string(r);
    std::pair<std::string, Location> pending;  // a parameter's name, waiting for its value
    for (std::size_t c = 0; c < row.cells.size(); ++c) {
      const Cell& cell = row.cells[c];
      if (c >= columns.size()) {
        if (!cell.text.empty()) error(reader, cell.where, label + ": a cell beyond the header's " + std::to_string(columns.size()) + " columns");
        continue;
      }
      if (columns[c]) rule_cell(reader, section, *columns[c], cell, &rule, &label, &pending);
    }
    if (!pending.first.empty()) error(reader, pending.second, label + ": parameter '" + pending.first + "' has no value");
    const Cell* variable = row.at(static_cast<std::size_t>(find(columns, Column::kVariable)));
    if (variable == nullptr || variable->text.empty()) {
      error(reader, row.where, label + ": the Variable column is empty");
      continue;
    }
    const Cell* a1 = row.at(static_cast<std::size_t>(find(columns, Column::kArg1)));
    if (a1 == nullptr || a1->text.empty()) error(reader, row.where, label + ": the Argument 1 column is empty");
    check_arguments(reader, rule, label);
    if (rules == &reader.table.init_rules) {
      const Procedure p = rule.procedure;
      if (procedure_info(p).evolves) {
        error(reader, row.where, label + ": procedure '" + procedure_name(p) + "' evolves in time; init rules run once "
                                 "(put it in [rules], or give the value in [initial])");
      }
    }
    rules->push_back(std::move(rule));
  }
}

// --- The logic sections, [predicates] and [situation rules] ----------------------------------

void read_predicates(ReaderState& reader, const Section& section) {
  if (section.rows.empty()) return;
  const auto columns = header_of(reader, section);
  if (!(require(reader, section, columns, Column::kPredicate, "Predicate / Предикат") &
        require(reader, section, columns, Column::kVariable, "Variable 1 / Переменная 1") &
        require(reader, section, columns, Column::kRelation, "Relation / Отношение"))) {
    return;
  }
  const auto cell = [&](const Row& row, Column column) { return row.at(static_cast<std::size_t>(find(columns, column))); };
  for (std::size_t r = 1; r < section.rows.size(); ++r) {
    const Row& row = section.rows[r];
    const Cell* name = cell(row, Column::kPredicate);
    if (name == nullptr || name->text.empty()) {
      error(reader, row.where, "[predicates] row " + std::to_string(r) + ": the Predicate column is empty");
      continue;
    }
    const std::string label = "[predicates] " + name->text;
    LogicVariable v;
    v.name = name->text;
    v.kind = LogicKind::kPredicate;
    v.where = name->where;
    int index = reader.table.logic_index(v.name);
    if (index < 0 || reader.table.logic[static_cast<std::size_t>(index)].kind != LogicKind::kPredicate) index = declare_logic(reader, v);
    RangeTerm term;
    term.where = row.where;
    const Cell* x1 = cell(row, Column::kVariable);
    if (x1 == nullptr || x1->text.empty()) {
      error(reader, row.where, label + ": the Variable 1 column is empty");
      continue;
    }
    const Operand o1 = operand(reader, *x1, label + ", variable 1");
    term.x1 = o1.variable;
    if (o1.variable < 0 && number(x1->text)) error(reader, x1->where, label + ": variable 1 must be a variable, not a number");
    const Cell* relation = cell(row, Column::kRelation);
    const std::string rel = relation ? relation->text : "";
    if (rel == "<") term.relation = RangeRelation::kLess;
    else if (rel == "<=" || rel == "≤") term.relation = RangeRelation::kLessEqual;
    else if (rel == ">") term.relation = RangeRelation::kGreater;
    else if (rel == ">=" || rel == "≥") term.relation = RangeRelation::kGreaterEqual;
    else error(reader, relation ? relation->where : row.where, label + ": relation '" + rel + "' is not one of < <= > >=");
    if (find(columns, Column::kA) >= 0) {
      if (const Cell* a = cell(row, Column::kA); a != nullptr && !a->text.empty()) term.a = number_or_error(reader, *a, label + ", a");
    }
    if (find(columns, Column::kArg2) >= 0) {
      if (const Cell* x2 = cell(row, Column::kArg2); x2 != nullptr && !x2->text.empty()) {
        const Operand o2 = operand(reader, *x2, label + ", variable 2");
        if (o2.variable < 0) term.a += o2.number;
        term.x2 = o2.variable;
      }
    }
    if (index >= 0) reader.table.logic[static_cast<std::size_t>(index)].terms.push_back(term);
  }
}

void declare_situation_states(ReaderState& reader, const Section& section) {
  if (section.rows.empty()) return;
  const auto columns = header_of(reader, section, false);
  const int actions = find(columns, Column::kActions);
  if (actions < 0) return;  // reported by read_situation_rules
  for (std::size_t r = 1; r < section.rows.size(); ++r) {
    const Cell* cell = section.rows[r].at(static_cast<std::size_t>(actions));
    if (cell == nullptr) continue;
    for (auto [name, where] : literals(*cell, ',')) {
      if (!name.empty() && name[0] == '!') name = tidy(name.substr(1));
      if (name.empty() || reader.table.logic_index(name) >= 0) continue;
      declare_logic(reader, LogicVariable{name, LogicKind::kState, false, {}, where});
    }
  }
}

void read_situation_rules(ReaderState& reader, const Section& section) {
  if (section.rows.empty()) return;
  const auto columns = header_of(reader, section);
  if (!(require(reader, section, columns, Column::kSituation, "Situation / Ситуация") &
        require(reader, section, columns, Column::kActions, "Actions / Действия"))) {
    return;
  }
  for (std::size_t r = 1; r < section.rows.size(); ++r) {
    const Row& row = section.rows[r];
    SituationRule rule;
    rule.where = row.where;
    rule.number = static_cast<int>(r);
    const std::string label = "[situation rules] row " + std::to_string(r);
    const Cell* situation = row.at(static_cast<std::size_t>(find(columns, Column::kSituation)));
    const Cell* actions = row.at(static_cast<std::size_t>(find(columns, Column::kActions)));
    if (situation == nullptr || situation->text.empty() || actions == nullptr || actions->text.empty()) {
      error(reader, row.where, label + ": a situation rule needs a situation and at least one action");
      continue;
    }
    for (const auto& [name, where] : literals(*situation, '&')) rule.situation.push_back(literal(reader, name, where, label));
    for (const auto& [name, where] : literals(*actions, ',')) {
      const Literal action = literal(reader, name, where, label);
      const LogicKind kind = action.logic >= 0 ? reader.table.logic[static_cast<std::size_t>(action.logic)].kind : LogicKind::kState;
      if (kind != LogicKind::kState && kind != LogicKind::kEvent) {
        error(reader, where, label + ": '" + name + "' is a predicate or a command; actions set logic states and events");
      }
      rule.actions.push_back(action);
    }
    reader.table.situation_rules.push_back(std::move(rule));
  }
}

// --- The whole, in the order that lets rules use names defined further down ------------------

RuleTable read_table(ReaderState& reader) {
  reader.table.file = reader.source.name();
  reader.table.text = reader.source.text();
  split_sections(reader);
  for (const auto& section : reader.sections) {
    if (section.name == "model") read_model(reader, section);
  }
  // Names first, so that rules may use variables defined further down.
  for (const auto& section : reader.sections) {
    if (section.name == "parameters") read_values(reader, section, true);
  }
  for (const auto& section : reader.sections) {
    if (section.name == "initial") read_values(reader, section, false);
  }
  for (const auto& section : reader.sections) {
    if (section.name == "logic") read_logic(reader, section);
  }
  std::vector<std::pair<const Section*, std::vector<TransformationRule>*>> rule_sections;
  for (const auto& section : reader.sections) {
    if (section.name == "init rules") rule_sections.emplace_back(&section, &reader.table.init_rules);
    if (section.name == "rules") rule_sections.emplace_back(&section, &reader.table.rules);
  }
  for (const auto& [section, rules] : rule_sections) declare_rule_variables(reader, *section);
  for (const auto& section : reader.sections) {
    if (section.name == "predicates") read_predicates(reader, section);
  }
  for (const auto& section : reader.sections) {
    if (section.name == "situation rules") declare_situation_states(reader, section);
  }
  for (const auto& section : reader.sections) {
    if (section.name == "situation rules") read_situation_rules(reader, section);
  }
  for (const auto& [section, rules] : rule_sections) read_rules(reader, *section, rules);
  if (reader.table.rules.empty() && reader.errors.empty()) {
    error(reader, Location{1, 1}, "the table has no [rules] section with rules: nothing would change");
  }
  if (!reader.errors.empty()) throw ModelFileError(reader.source, reader.errors);
  // The interpreter scans rules in order of priority (1 first), rows of one priority in order.
  std::stable_sort(reader.table.rules.begin(), reader.table.rules.end(),
                   [](const TransformationRule& a, const TransformationRule& b) { return a.priority < b.priority; });
  return std::move(reader.table);
}

}  // namespace

double TransformationRule::parameter(const std::string& key, double fallback) const {
  for (const auto& [name, value] : parameters) {
    if (name == key) return value;
  }
  return fallback;
}

int RuleTable::real_index(const std::string& wanted) const {
  for (std::size_t i = 0; i < reals.size(); ++i) {
    if (reals[i].name == wanted) return static_cast<int>(i);
  }
  return -1;
}

int RuleTable::logic_index(const std::string& wanted) const {
  for (std::size_t i = 0; i < logic.size(); ++i) {
    if (logic[i].name == wanted) return static_cast<int>(i);
  }
  return -1;
}

RuleTable parse_rule_table(const SourceText& source) {
  ReaderState reader(source);
  return read_table(reader);
}

RuleTable read_rule_table(const std::string& path) {
  std::error_code error;
  if (std::filesystem::is_directory(path, error)) {  // it would read as an empty table
    throw InvalidArgument("'" + printable(path) + "' is a directory, not a rule table");
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InvalidArgument("cannot read the rule table " + printable(path));
  std::ostringstream text;
  text << in.rdbuf();
  // A UTF-8 byte order mark, as spreadsheet programs save it, is not part of the table: columns
  // count from after it.
  constexpr std::string_view kByteOrderMark = "\xEF\xBB\xBF";
  std::string bytes = text.str();
  if (bytes.compare(0, kByteOrderMark.size(), kByteOrderMark) == 0) bytes.erase(0, kByteOrderMark.size());
  const SourceText source(path, bytes);
  return parse_rule_table(source);
}

bool names_rule_table(const std::string& argument) {
  const auto ends_with = [&](std::string_view suffix) {
    return argument.size() >= suffix.size() && argument.compare(argument.size() - suffix.size(), suffix.size(), suffix) == 0;
  };
  return ends_with(".rules") || ends_with(".rules.tsv");
}

}  // namespace hysim::rules
