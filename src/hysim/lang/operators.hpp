// The operations of the model language, in one table: each one's spelling in a model file,
// its number of operands, its value on the register tape (lang/tape.hpp) and its spelling in
// the C of the native back end (lang/native.hpp). Both back ends read their semantics here, so
// they agree bit for bit: min and max keep the first operand on ties (as std::min and std::max),
// sign(0) is 0, booleans are 1 and 0.
#pragma once

#include <quadmath.h>

#include <cmath>
#include <cstddef>

#include "hysim/lang/expr.hpp"

namespace hysim::lang {

// The library functions per raw type: libm for double and long double, libquadmath for
// __float128 (the functions Boost.Multiprecision's float128 calls).
struct Math {
  static double abs(double v) { return std::fabs(v); }
  static long double abs(long double v) { return std::fabs(v); }
  static __float128 abs(__float128 v) { return fabsq(v); }
#define HYSIM_MATH_1(name, q)                                      \
  static double name(double v) { return std::name(v); }           \
  static long double name(long double v) { return std::name(v); } \
  static __float128 name(__float128 v) { return q(v); }
  HYSIM_MATH_1(sqrt, sqrtq)
  HYSIM_MATH_1(exp, expq)
  HYSIM_MATH_1(log, logq)
  HYSIM_MATH_1(sin, sinq)
  HYSIM_MATH_1(cos, cosq)
  HYSIM_MATH_1(tan, tanq)
  HYSIM_MATH_1(asin, asinq)
  HYSIM_MATH_1(acos, acosq)
  HYSIM_MATH_1(atan, atanq)
  HYSIM_MATH_1(sinh, sinhq)
  HYSIM_MATH_1(cosh, coshq)
  HYSIM_MATH_1(tanh, tanhq)
  HYSIM_MATH_1(floor, floorq)
  HYSIM_MATH_1(ceil, ceilq)
#undef HYSIM_MATH_1
  static double pow(double a, double b) { return std::pow(a, b); }
  static long double pow(long double a, long double b) { return std::pow(a, b); }
  static __float128 pow(__float128 a, __float128 b) { return powq(a, b); }
  static double atan2(double a, double b) { return std::atan2(a, b); }
  static long double atan2(long double a, long double b) { return std::atan2(a, b); }
  static __float128 atan2(__float128 a, __float128 b) { return atan2q(a, b); }
};

// One operation on raw values R (double, long double, __float128): its operands a, b, c, the
// unused ones ignored.
template <class R>
using Semantics = R (*)(R a, R b, R c);

template <class R>
struct Operator {
  Op op;
  const char* name;    // in a model file ("?" for the leaves the language does not name)
  int arity;           // operands; 0 for leaves
  bool function;       // called as name(a, ...) in a model file
  // In C: $a, $b, $c the operands, $1 and $0 one and zero of the type, $m the suffix of the
  // type's libm functions ("" double, "l" long double, "q" __float128). Empty for leaves.
  const char* c;
  Semantics<R> tape;  // null for leaves, which are registers, not operations
};

inline constexpr std::size_t kOperatorCount = static_cast<std::size_t>(Op::kNot) + 1;

// Indexed by Op (checked below).
template <class R>
inline constexpr Operator<R> kOperators[kOperatorCount] = {
    {Op::kConstant, "?", 0, false, "", nullptr},
    {Op::kParameter, "?", 0, false, "", nullptr},
    {Op::kState, "?", 0, false, "", nullptr},
    {Op::kPrior, "prior", 0, false, "", nullptr},
    {Op::kFieldValue, "?", 0, false, "", nullptr},
    {Op::kTime, "t", 0, false, "", nullptr},
    {Op::kJumping, "jumping", 0, false, "", nullptr},
    {Op::kNegate, "-", 1, false, "-$a", [](R a, R, R) { return -a; }},
    {Op::kAdd, "+", 2, false, "$a + $b", [](R a, R b, R) { return a + b; }},
    {Op::kSubtract, "-", 2, false, "$a - $b", [](R a, R b, R) { return a - b; }},
    {Op::kMultiply, "*", 2, false, "$a * $b", [](R a, R b, R) { return a * b; }},
    {Op::kDivide, "/", 2, false, "$a / $b", [](R a, R b, R) { return a / b; }},
    {Op::kPower, "^", 2, false, "pow$m($a, $b)", [](R a, R b, R) { return Math::pow(a, b); }},
    {Op::kAbs, "abs", 1, true, "fabs$m($a)", [](R a, R, R) { return Math::abs(a); }},
    {Op::kSign, "sign", 1, true, "($a > 0 ? $1 : ($a < 0 ? -$1 : $0))",
     [](R a, R, R) { return a > R(0) ? R(1) : (a < R(0) ? R(-1) : R(0)); }},
    {Op::kMin, "min", 2, true, "($b < $a ? $b : $a)", [](R a, R b, R) { return b < a ? b : a; }},
    {Op::kMax, "max", 2, true, "($a < $b ? $b : $a)", [](R a, R b, R) { return a < b ? b : a; }},
    {Op::kSqrt, "sqrt", 1, true, "sqrt$m($a)", [](R a, R, R) { return Math::sqrt(a); }},
    {Op::kExp, "exp", 1, true, "exp$m($a)", [](R a, R, R) { return Math::exp(a); }},
    {Op::kLog, "log", 1, true, "log$m($a)", [](R a, R, R) { return Math::log(a); }},
    {Op::kSin, "sin", 1, true, "sin$m($a)", [](R a, R, R) { return Math::sin(a); }},
    {Op::kCos, "cos", 1, true, "cos$m($a)", [](R a, R, R) { return Math::cos(a); }},
    {Op::kTan, "tan", 1, true, "tan$m($a)", [](R a, R, R) { return Math::tan(a); }},
    {Op::kAsin, "asin", 1, true, "asin$m($a)", [](R a, R, R) { return Math::asin(a); }},
    {Op::kAcos, "acos", 1, true, "acos$m($a)", [](R a, R, R) { return Math::acos(a); }},
    {Op::kAtan, "atan", 1, true, "atan$m($a)", [](R a, R, R) { return Math::atan(a); }},
    {Op::kAtan2, "atan2", 2, true, "atan2$m($a, $b)", [](R a, R b, R) { return Math::atan2(a, b); }},
    {Op::kSinh, "sinh", 1, true, "sinh$m($a)", [](R a, R, R) { return Math::sinh(a); }},
    {Op::kCosh, "cosh", 1, true, "cosh$m($a)", [](R a, R, R) { return Math::cosh(a); }},
    {Op::kTanh, "tanh", 1, true, "tanh$m($a)", [](R a, R, R) { return Math::tanh(a); }},
    {Op::kFloor, "floor", 1, true, "floor$m($a)", [](R a, R, R) { return Math::floor(a); }},
    {Op::kCeil, "ceil", 1, true, "ceil$m($a)", [](R a, R, R) { return Math::ceil(a); }},
    {Op::kStepped, "stepped", 1, true, "$a", [](R a, R, R) { return a; }},
    {Op::kSelect, "if", 3, false, "($a != 0 ? $b : $c)", [](R a, R b, R c) { return a != R(0) ? b : c; }},
    {Op::kLess, "<", 2, false, "($a < $b ? $1 : $0)", [](R a, R b, R) { return R(a < b); }},
    {Op::kLessEqual, "<=", 2, false, "($a <= $b ? $1 : $0)", [](R a, R b, R) { return R(a <= b); }},
    {Op::kGreater, ">", 2, false, "($a > $b ? $1 : $0)", [](R a, R b, R) { return R(a > b); }},
    {Op::kGreaterEqual, ">=", 2, false, "($a >= $b ? $1 : $0)", [](R a, R b, R) { return R(a >= b); }},
    {Op::kEqual, "==", 2, false, "($a == $b ? $1 : $0)", [](R a, R b, R) { return R(a == b); }},
    {Op::kNotEqual, "!=", 2, false, "($a != $b ? $1 : $0)", [](R a, R b, R) { return R(a != b); }},
    {Op::kAnd, "&&", 2, false, "($a != 0 && $b != 0 ? $1 : $0)",
     [](R a, R b, R) { return R(a != R(0) && b != R(0)); }},
    {Op::kOr, "||", 2, false, "($a != 0 || $b != 0 ? $1 : $0)",
     [](R a, R b, R) { return R(a != R(0) || b != R(0)); }},
    {Op::kNot, "!", 1, false, "($a == 0 ? $1 : $0)", [](R a, R, R) { return R(a == R(0)); }},
};

// The row of `op`.
template <class R = double>
constexpr const Operator<R>& operator_of(Op op) {
  return kOperators<R>[static_cast<std::size_t>(op)];
}

namespace detail {
constexpr bool operators_in_order() {
  for (std::size_t i = 0; i < kOperatorCount; ++i) {
    if (static_cast<std::size_t>(kOperators<double>[i].op) != i || kOperators<double>[i].name == nullptr) return false;
  }
  return true;
}
static_assert(operators_in_order(), "kOperators lists every Op once, in the enum's order");
}  // namespace detail

// x^2 is computed x*x by both back ends: both are correctly rounded, and the product is what
// C++ models write.
bool is_square(const Graph& graph, const Node& node);

}  // namespace hysim::lang
