#include "hysim/core/scalar.hpp"

#include <cctype>
#include <cerrno>
#include <charconv>
#include <cstdlib>
#include <iomanip>
#include <sstream>

#include "hysim/core/errors.hpp"

namespace hysim {

std::string_view scalar_name(ScalarKind kind) {
  switch (kind) {
    case ScalarKind::kDouble: return "double";
    case ScalarKind::kLongDouble: return "long-double";
    case ScalarKind::kFloat128: return "float128";
  }
  return "?";
}

ScalarKind parse_scalar_kind(std::string_view name) {
  if (name == "double") return ScalarKind::kDouble;
  if (name == "long-double") return ScalarKind::kLongDouble;
  if (name == "float128") return ScalarKind::kFloat128;
  throw InvalidArgument("unknown scalar type '" + std::string(name) +
                        "' (expected double, long-double or float128)");
}

namespace {

[[noreturn]] void throw_not_a_number(const std::string& text, std::string_view what) {
  throw InvalidArgument("malformed value '" + text + "' for " + std::string(what) +
                        " (expected a finite number)");
}

// strtod/strtold must consume the whole text (no spaces around it, which strtod would skip
// in front only) and produce a finite value; one out of the type's range says so.
template <class S, class Parse>
S parse_with(const std::string& text, std::string_view what, Parse parse) {
  if (text.empty() || std::isspace(static_cast<unsigned char>(text.front())) != 0) throw_not_a_number(text, what);
  // strtod would read hexadecimal (0x1p3 = 8); the documented syntax is decimal only.
  const std::size_t digits = text.front() == '+' || text.front() == '-' ? 1 : 0;
  if (text.size() > digits + 1 && text[digits] == '0' && (text[digits + 1] == 'x' || text[digits + 1] == 'X')) {
    throw InvalidArgument("malformed value '" + text + "' for " + std::string(what) +
                          ": a hexadecimal number; write it in decimal");
  }
  char* end = nullptr;
  errno = 0;
  const S value = parse(text.c_str(), &end);
  if (end != text.c_str() + text.size()) throw_not_a_number(text, what);
  if (errno == ERANGE) {
    using std::abs;
    throw InvalidArgument("value '" + text + "' for " + std::string(what) + " is out of range: it " +
                          (is_finite(value) && abs(value) < S(1) ? "underflows" : "overflows") + " the " +
                          (sizeof(S) == sizeof(double) ? "double" : "long double") + " range");
  }
  if (!is_finite(value)) throw_not_a_number(text, what);
  return value;
}

}  // namespace

template <>
double parse_decimal<double>(const std::string& text, std::string_view what) {
  return parse_with<double>(text, what, [](const char* s, char** e) { return std::strtod(s, e); });
}

template <>
long double parse_decimal<long double>(const std::string& text, std::string_view what) {
  return parse_with<long double>(text, what,
                                 [](const char* s, char** e) { return std::strtold(s, e); });
}

template <>
float128 parse_decimal<float128>(const std::string& text, std::string_view what) {
  // Validate the syntax with strtold, then let libquadmath round the decimal to binary128.
  (void)parse_decimal<long double>(text, what);
  try {
    float128 value(text);
    if (!is_finite(value)) throw_not_a_number(text, what);
    return value;
  } catch (const std::runtime_error&) {
    throw_not_a_number(text, what);
  }
}

template <class S>
void append_scalar(std::string& text, const S& value, int digits) {
  if constexpr (std::is_same_v<S, float128>) {
    std::ostringstream out;
    out << std::setprecision(digits) << value;
    text += out.str();
  } else {
    char buffer[128];
    const auto end = std::to_chars(buffer, buffer + sizeof buffer, value, std::chars_format::general, digits).ptr;
    text.append(buffer, end);
  }
}

template <class S>
std::string format_scalar(const S& value, int digits) {
  std::string text;
  append_scalar(text, value, digits);
  return text;
}

template <class S>
S next_up(const S& x) {
  using std::nextafter;
  using boost::multiprecision::nextafter;
  return nextafter(x, std::numeric_limits<S>::infinity());
}

#define HYSIM_INSTANTIATE(S)                                         \
  template std::string format_scalar<S>(const S&, int);              \
  template void append_scalar<S>(std::string&, const S&, int);       \
  template S next_up<S>(const S&);
HYSIM_FOR_EACH_SCALAR(HYSIM_INSTANTIATE)
#undef HYSIM_INSTANTIATE

}  // namespace hysim
