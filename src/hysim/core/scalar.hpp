// The scalar types the engine is instantiated for.
//
// hysim's engine is a template over its scalar type S so that a user can compute a reference
// solution of any model in higher precision with the same code. Three types are compiled and
// tested: double (the default), long double (x87 80-bit on x86-64: 64-bit mantissa) and
// float128 (IEEE binary128: 113-bit mantissa, via GCC's __float128 wrapped by
// Boost.Multiprecision). Each instantiation lives in a .cpp file; headers stay light.
#pragma once

#include <boost/multiprecision/float128.hpp>

#include <cmath>
#include <limits>
#include <string>
#include <string_view>

namespace hysim {

using float128 = boost::multiprecision::float128;

// Calls `X(type)` once per scalar type the engine is instantiated for.
#define HYSIM_FOR_EACH_SCALAR(X) \
  X(double)                      \
  X(long double)                 \
  X(::hysim::float128)

// The --scalar names of the command line, in the order above.
enum class ScalarKind { kDouble, kLongDouble, kFloat128 };

std::string_view scalar_name(ScalarKind kind);
// Parses "double", "long-double" or "float128"; throws InvalidArgument otherwise.
ScalarKind parse_scalar_kind(std::string_view name);

template <class S>
constexpr ScalarKind scalar_kind_of();
template <>
constexpr ScalarKind scalar_kind_of<double>() { return ScalarKind::kDouble; }
template <>
constexpr ScalarKind scalar_kind_of<long double>() { return ScalarKind::kLongDouble; }
template <>
constexpr ScalarKind scalar_kind_of<float128>() { return ScalarKind::kFloat128; }

// Unit roundoff-sized machine epsilon of S (2^-52, 2^-63, 2^-112).
template <class S>
inline S machine_epsilon() {
  return std::numeric_limits<S>::epsilon();
}

// Parses a decimal number into S exactly as S's own parser would (correctly rounded for
// float128 and long double too: "0.1" becomes the S nearest to 1/10, not a widened double).
// Throws InvalidArgument naming `what` when the text is not a finite number.
template <class S>
S parse_decimal(const std::string& text, std::string_view what);

// Formats with `digits` significant digits (17 is round-trip exact for double), as
// `out << std::setprecision(digits) << value` (printf's %.*g).
template <class S>
std::string format_scalar(const S& value, int digits = 17);
// The same, appended to `text` (std::to_chars for double and long double: no stream, and no
// allocation once `text` has grown; the CSV files of long runs are written with it).
template <class S>
void append_scalar(std::string& text, const S& value, int digits);

// Narrowing conversion used for logging and for comparing against double references.
template <class S>
inline double to_double(const S& value) {
  return static_cast<double>(value);
}

// x is finite (not NaN, not +-Inf).
template <class S>
inline bool is_finite(const S& value) {
  using std::isfinite;
  using boost::multiprecision::isfinite;
  return isfinite(value);
}

// The next representable value above x (one ulp up).
template <class S>
S next_up(const S& x);

}  // namespace hysim
