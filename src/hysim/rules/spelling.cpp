#include "hysim/rules/spelling.hpp"

namespace hysim::rules {

std::string folded(std::string_view text) {
  std::string out;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c >= 'A' && c <= 'Z') {
      out += static_cast<char>(c - 'A' + 'a');
    } else if (c == 0xD0 && i + 1 < text.size()) {
      const auto d = static_cast<unsigned char>(text[i + 1]);
      ++i;
      if (d >= 0x90 && d <= 0x9F) {  // А..П -> а..п
        out += static_cast<char>(0xD0);
        out += static_cast<char>(d + 0x20);
      } else if (d >= 0xA0 && d <= 0xAF) {  // Р..Я -> р..я
        out += static_cast<char>(0xD1);
        out += static_cast<char>(d - 0x20);
      } else if (d == 0x81) {  // Ё -> ё
        out += static_cast<char>(0xD1);
        out += static_cast<char>(0x91);
      } else {
        out += static_cast<char>(c);
        out += static_cast<char>(d);
      }
    } else {
      out += static_cast<char>(c);
    }
  }
  return out;
}

std::optional<Column> column_of(const std::string& header) {
  static const std::vector<std::pair<std::string, Column>> names = {
      {"№", Column::kNumber},
      {"no", Column::kNumber},
      {"number", Column::kNumber},
      {"переменная", Column::kVariable},
      {"variable", Column::kVariable},
      {"variable 1", Column::kVariable},
      {"переменная 1", Column::kVariable},
      {"процедура", Column::kProcedure},
      {"procedure", Column::kProcedure},
      {"коэффициент", Column::kCoefficient},
      {"coefficient", Column::kCoefficient},
      {"аргумент 1", Column::kArg1},
      {"argument 1", Column::kArg1},
      {"аргумент 2", Column::kArg2},
      {"argument 2", Column::kArg2},
      {"variable 2", Column::kArg2},
      {"переменная 2", Column::kArg2},
      {"ситуация / событие", Column::kSituation},
      {"ситуация", Column::kSituation},
      {"situation", Column::kSituation},
      {"situation / event", Column::kSituation},
      {"имя параметра", Column::kParamName},
      {"parameter", Column::kParamName},
      {"значение", Column::kParamValue},
      {"value", Column::kParamValue},
      {"приоритет", Column::kPriority},
      {"priority", Column::kPriority},
      {"предикат", Column::kPredicate},
      {"predicate", Column::kPredicate},
      {"отношение", Column::kRelation},
      {"relation", Column::kRelation},
      {"a", Column::kA},
      {"порог", Column::kA},
      {"действия", Column::kActions},
      {"действие", Column::kActions},
      {"actions", Column::kActions},
  };
  const std::string h = folded(header);
  for (const auto& [name, column] : names) {
    if (h == name) return column;
  }
  return std::nullopt;
}

std::optional<Procedure> procedure_of(const std::string& text, std::string* closest) {
  const std::string f = folded(text);
  std::vector<std::string> names;
  for (const auto& [name, procedure] : procedure_spellings()) {
    if (f == name) return procedure;
    names.push_back(name);
  }
  if (closest) *closest = lang::closest_name(f, names);
  return std::nullopt;
}

std::optional<std::string> parameter_key(Procedure procedure, const std::string& spelling) {
  struct Spelling {
    Procedure procedure;
    const char* key;
    std::vector<std::string> names;
  };
  static const std::vector<Spelling> spellings = {
      {Procedure::kSum, "k2", {"2-ой коэффициент", "второй коэффициент", "k2", "second coefficient"}},
      {Procedure::kRelay, "upper", {"верх. ограничение", "верхнее ограничение", "upper", "upper limit"}},
      {Procedure::kRelay, "lower", {"нижн. ограничение", "нижнее ограничение", "lower", "lower limit"}},
      {Procedure::kLag, "T", {"постоянная времени", "t", "time constant"}},
      {Procedure::kOscillatory, "T", {"постоянная времени", "t", "time constant"}},
      {Procedure::kOscillatory, "xi", {"демпфирование", "xi", "damping"}},
      {Procedure::kDelay, "tau", {"запаздывание", "tau", "delay"}},
  };
  const std::string f = folded(spelling);
  for (const auto& s : spellings) {
    if (s.procedure != procedure) continue;
    for (const auto& name : s.names) {
      if (f == name) return std::string(s.key);
    }
  }
  return std::nullopt;
}

std::vector<std::pair<std::string, Procedure>> procedure_spellings() {
  return {
      {"proportional", Procedure::kProportional},   {"пропорциональная", Procedure::kProportional},
      {"sum", Procedure::kSum},                     {"sum / difference", Procedure::kSum},
      {"сумма / разность", Procedure::kSum},        {"сумма", Procedure::kSum},
      {"multiplication", Procedure::kMultiplication}, {"умножение", Procedure::kMultiplication},
      {"division", Procedure::kDivision},           {"деление", Procedure::kDivision},
      {"integral", Procedure::kIntegral},           {"интеграл", Procedure::kIntegral},
      {"absolute", Procedure::kAbsolute},           {"абсолютная", Procedure::kAbsolute},
      {"relay", Procedure::kRelay},                 {"реле", Procedure::kRelay},
      {"sine", Procedure::kSine},                   {"синус", Procedure::kSine},
      {"cosine", Procedure::kCosine},               {"косинус", Procedure::kCosine},
      {"lag", Procedure::kLag},                     {"апериодическое", Procedure::kLag},
      {"oscillatory", Procedure::kOscillatory},     {"колебательное", Procedure::kOscillatory},
      {"delay", Procedure::kDelay},                 {"запаздывание", Procedure::kDelay},
      {"differentiator", Procedure::kDifferentiator}, {"дифференцирующее", Procedure::kDifferentiator},
  };
}

}  // namespace hysim::rules
