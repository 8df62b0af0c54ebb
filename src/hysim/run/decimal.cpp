#include "hysim/run/decimal.hpp"

#include <cctype>
#include <charconv>
#include <cstdlib>
#include <optional>
#include <utility>

namespace hysim {

namespace {

// A decimal number in a canonical form: sign, significant digits without leading or trailing
// zeros, and the power of ten of the last one ("-0.0250e1" -> "-", "25", -2; zero -> "", "",
// 0). nullopt for what is not plain decimal (hexadecimal, say).
struct Canonical {
  bool negative = false;
  std::string digits;
  long exponent = 0;
  bool operator==(const Canonical&) const = default;
};

std::optional<Canonical> canonical(std::string_view text) {
  Canonical c;
  std::size_t i = 0;
  if (i < text.size() && (text[i] == '+' || text[i] == '-')) c.negative = text[i++] == '-';
  long point = 0;  // digits after the decimal point
  bool seen_point = false, any_digit = false;
  for (; i < text.size(); ++i) {
    const char ch = text[i];
    if (ch == '.' && !seen_point) {
      seen_point = true;
    } else if (std::isdigit(static_cast<unsigned char>(ch)) != 0) {
      any_digit = true;
      if (!(c.digits.empty() && ch == '0')) c.digits += ch;  // leading zeros say nothing
      if (seen_point) ++point;
    } else {
      break;
    }
  }
  if (!any_digit) return std::nullopt;
  long exponent = 0;
  if (i < text.size() && (text[i] == 'e' || text[i] == 'E')) {
    const char* first = text.data() + i + 1;
    if (first != text.data() + text.size() && *first == '+') ++first;
    const auto [end, error] = std::from_chars(first, text.data() + text.size(), exponent);
    if (error != std::errc{}) return std::nullopt;
    i = static_cast<std::size_t>(end - text.data());
  }
  if (i != text.size()) return std::nullopt;
  c.exponent = exponent - point;
  while (!c.digits.empty() && c.digits.back() == '0') {
    c.digits.pop_back();
    ++c.exponent;
  }
  if (c.digits.empty()) return Canonical{};  // zero, either sign
  return c;
}

std::string shortest(double value) {
  char text[32];
  return std::string(text, std::to_chars(text, text + sizeof text, value).ptr);
}

}  // namespace

Decimal::Decimal(std::string text, std::string_view what) : text_(std::move(text)) {
  // The syntax and range of the widest scalar type: a time below double's range still reaches
  // a float128 run (a double run refuses it in to<double>, naming the underflow).
  (void)parse_decimal<float128>(text_, what);
  value_ = std::strtod(text_.c_str(), nullptr);
}

std::string Decimal::str() const { return text_.empty() ? shortest(value_) : text_; }

bool Decimal::beyond_double() const {
  if (text_.empty()) return false;
  const std::optional<Canonical> typed = canonical(text_);
  return !typed || typed != canonical(shortest(value_));
}

}  // namespace hysim
