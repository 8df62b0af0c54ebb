#include "hysim/rules/procedures.hpp"

#include <cmath>
#include <iterator>

#include "hysim/core/scalar.hpp"

namespace hysim::rules {

using lang::ExpressionPtr;
using lang::TokenKind;

namespace {

// The sine and cosine procedures take degrees, as EnviCon's do (002, Fig. 6).
constexpr double kRadiansPerDegree = 0.017453292519943295;  // pi / 180

ExpressionPtr binary(TokenKind op, ExpressionPtr a, ExpressionPtr b, lang::Location where) {
  return lang::binary_syntax(op, std::move(a), std::move(b), where);
}
ExpressionPtr number(const char* text, lang::Location where) { return lang::number_syntax(text, where); }

// k f(a1 degrees), f sin or cos.
ExpressionPtr of_degrees(const char* f, EngineParts& p) {
  const lang::Location at = p.rule.where;
  ExpressionPtr radians = binary(TokenKind::kSlash, binary(TokenKind::kStar, std::move(p.a1), lang::name_syntax("pi", at), at),
                                 number("180", at), at);
  std::vector<ExpressionPtr> arguments;
  arguments.push_back(std::move(radians));
  return binary(TokenKind::kStar, std::move(p.k), lang::call_syntax(f, std::move(arguments), at), at);
}

void no_rates(EngineParts&, ExpressionPtr, std::vector<ExpressionPtr>*, std::vector<ExpressionPtr>*) {}

ExpressionPtr k_a1(EngineParts& p) { return binary(TokenKind::kStar, std::move(p.k), std::move(p.a1), p.rule.where); }
ExpressionPtr zero(EngineParts& p) { return number("0", p.rule.where); }

// Indexed by Procedure (checked in procedure_info).
constexpr ProcedureInfo kProcedures[] = {
    {Procedure::kProportional, "proportional", 1, false, true, EngineForm::kLet,
     [](const TransformationRule&, CycleValues v, RuleMemory&) { v.y = v.k * v.a1; }, k_a1, no_rates},
    {Procedure::kSum, "sum", 2, false, true, EngineForm::kLet,  // y = k (a1 + k2 a2)
     [](const TransformationRule& rule, CycleValues v, RuleMemory&) {
       v.y = v.k * (v.a1 + rule.parameter("k2", 1.0) * v.a2);
     },
     [](EngineParts& p) {
       const lang::Location at = p.rule.where;
       ExpressionPtr a2 = binary(TokenKind::kStar, p.parameter("k2", 1.0), std::move(p.a2), at);
       return binary(TokenKind::kStar, std::move(p.k), binary(TokenKind::kPlus, std::move(p.a1), std::move(a2), at), at);
     },
     no_rates},
    {Procedure::kMultiplication, "multiplication", 2, false, true, EngineForm::kLet,
     [](const TransformationRule&, CycleValues v, RuleMemory&) { v.y = v.k * v.a1 * v.a2; },
     [](EngineParts& p) { return binary(TokenKind::kStar, k_a1(p), std::move(p.a2), p.rule.where); }, no_rates},
    {Procedure::kDivision, "division", 2, false, true, EngineForm::kLet,
     [](const TransformationRule&, CycleValues v, RuleMemory&) { v.y = v.k * v.a1 / v.a2; },
     [](EngineParts& p) { return binary(TokenKind::kSlash, k_a1(p), std::move(p.a2), p.rule.where); }, no_rates},
    {Procedure::kIntegral, "integral", 1, true, false, EngineForm::kState,  // y += k a1 dt; der(y) = k a1
     [](const TransformationRule&, CycleValues v, RuleMemory&) { v.y += v.k * v.a1 * v.dt; }, k_a1,
     [](EngineParts&, ExpressionPtr ka1, std::vector<ExpressionPtr>* y_terms, std::vector<ExpressionPtr>*) {
       y_terms->push_back(std::move(ka1));
     }},
    {Procedure::kAbsolute, "absolute", 1, false, true, EngineForm::kLet,
     [](const TransformationRule&, CycleValues v, RuleMemory&) { v.y = v.k * std::fabs(v.a1); },
     [](EngineParts& p) {
       std::vector<ExpressionPtr> arguments;
       arguments.push_back(std::move(p.a1));
       return binary(TokenKind::kStar, std::move(p.k), lang::call_syntax("abs", std::move(arguments), p.rule.where),
                     p.rule.where);
     },
     no_rates},
    {Procedure::kRelay, "relay", 1, false, false, EngineForm::kLet,  // at k a1 = 0 it keeps its output
     [](const TransformationRule& rule, CycleValues v, RuleMemory&) {
       const double u = v.k * v.a1;
       if (u > 0) v.y = rule.parameter("upper", 1.0);
       else if (u < 0) v.y = rule.parameter("lower", -1.0);
     },
     [](EngineParts& p) {  // a switch inside the field, which the compiler turns into modes
       const lang::Location at = p.rule.where;
       return lang::if_syntax(binary(TokenKind::kGreater, k_a1(p), number("0", at), at), p.parameter("upper", 1.0),
                              p.parameter("lower", -1.0), at);
     },
     no_rates},
    {Procedure::kSine, "sine", 1, false, true, EngineForm::kLet,
     [](const TransformationRule&, CycleValues v, RuleMemory&) { v.y = v.k * std::sin(v.a1 * kRadiansPerDegree); },
     [](EngineParts& p) { return of_degrees("sin", p); }, no_rates},
    {Procedure::kCosine, "cosine", 1, false, true, EngineForm::kLet,
     [](const TransformationRule&, CycleValues v, RuleMemory&) { v.y = v.k * std::cos(v.a1 * kRadiansPerDegree); },
     [](EngineParts& p) { return of_degrees("cos", p); }, no_rates},
    {Procedure::kLag, "lag", 1, true, false, EngineForm::kState,  // T y' + y = k a1
     [](const TransformationRule& rule, CycleValues v, RuleMemory&) {  // explicit Euler
       const double T = rule.parameter("T", 1.0);
       v.y += v.dt / T * (v.k * v.a1 - v.y);
     },
     zero,
     [](EngineParts& p, ExpressionPtr ka1, std::vector<ExpressionPtr>* y_terms, std::vector<ExpressionPtr>*) {
       const lang::Location at = p.rule.where;
       y_terms->push_back(binary(TokenKind::kSlash, binary(TokenKind::kMinus, std::move(ka1), std::move(p.y), at),
                                 p.parameter("T", 1.0), at));
     }},
    {Procedure::kOscillatory, "oscillatory", 1, true, false, EngineForm::kState,  // T^2 y'' + 2 xi T y' + y = k a1
     [](const TransformationRule& rule, CycleValues v, RuleMemory& memory) {  // semi-implicit Euler
       const double T = rule.parameter("T", 1.0);
       const double xi = rule.parameter("xi", 0.0);
       memory.velocity += v.dt * (v.k * v.a1 - v.y - 2 * xi * T * memory.velocity) / (T * T);
       v.y += v.dt * memory.velocity;
     },
     zero,
     [](EngineParts& p, ExpressionPtr ka1, std::vector<ExpressionPtr>* y_terms, std::vector<ExpressionPtr>* rate_terms) {
       const lang::Location at = p.rule.where;  // y' = v, v' = (k a1 - y - 2 xi T v) / (T T)
       y_terms->push_back(lang::copy_syntax(*p.y_rate));
       ExpressionPtr damping = binary(TokenKind::kStar, binary(TokenKind::kStar, number("2", at), p.parameter("xi", 0.0), at),
                                      p.parameter("T", 1.0), at);
       damping = binary(TokenKind::kStar, std::move(damping), std::move(p.y_rate), at);
       ExpressionPtr force = binary(TokenKind::kMinus, binary(TokenKind::kMinus, std::move(ka1), std::move(p.y), at),
                                    std::move(damping), at);
       rate_terms->push_back(binary(TokenKind::kSlash, std::move(force),
                                    binary(TokenKind::kStar, p.parameter("T", 1.0), p.parameter("T", 1.0), at), at));
     }},
    {Procedure::kDelay, "delay", 1, true, false, EngineForm::kNone,  // y(t) = k a1(t - tau)
     [](const TransformationRule&, CycleValues v, RuleMemory& memory) {  // a ring of round(tau / dt) past values
       std::vector<double>& line = memory.delay_line;
       if (line.empty()) {
         v.y = v.k * v.a1;
         return;
       }
       v.y = v.k * line[memory.delay_head];
       line[memory.delay_head] = v.a1;
       memory.delay_head = (memory.delay_head + 1) % line.size();
     },
     zero, no_rates},
    {Procedure::kDifferentiator, "differentiator", 1, true, false, EngineForm::kLet,  // y = k (a1 - a1_prev) / dt
     [](const TransformationRule&, CycleValues v, RuleMemory& memory) {
       v.y = v.k * (v.a1 - memory.previous_a1) / v.dt;
       memory.previous_a1 = v.a1;
     },
     [](EngineParts& p) {  // k da1/dt, a1 a state: its field
       return binary(TokenKind::kStar, std::move(p.k), p.rate_of_a1(), p.rule.where);
     },
     no_rates},
};

constexpr bool procedures_in_order() {
  for (std::size_t i = 0; i < std::size(kProcedures); ++i) {
    if (static_cast<std::size_t>(kProcedures[i].procedure) != i) return false;
  }
  return std::size(kProcedures) == static_cast<std::size_t>(Procedure::kDifferentiator) + 1;
}
static_assert(procedures_in_order(), "kProcedures lists every Procedure once, in the enum's order");

}  // namespace

const ProcedureInfo& procedure_info(Procedure procedure) { return kProcedures[static_cast<std::size_t>(procedure)]; }

const char* procedure_name(Procedure procedure) { return procedure_info(procedure).name; }

ExpressionPtr EngineParts::parameter(const std::string& key, double fallback) const {
  const double value = rule.parameter(key, fallback);
  return literal_syntax(format_scalar(value, 17), value, rule.where);
}

RuleMemory start_memory(const TransformationRule& rule, double a1, double dt) {
  RuleMemory memory;
  memory.previous_a1 = a1;
  if (rule.procedure == Procedure::kDelay) {
    const double tau = rule.parameter("tau", 0.0);
    memory.delay_line.assign(static_cast<std::size_t>(std::llround(tau / dt)), a1);
  }
  return memory;
}

ExpressionPtr literal_syntax(const std::string& text, double value, lang::Location where) {
  std::string digits = text.empty() ? format_scalar(value, 17) : text;
  TokenKind sign = TokenKind::kEnd;
  if (!digits.empty() && (digits[0] == '-' || digits[0] == '+')) {
    sign = digits[0] == '-' ? TokenKind::kMinus : TokenKind::kPlus;
    digits.erase(0, 1);
  }
  if (!lang::is_number_text(digits)) return nullptr;
  ExpressionPtr number = lang::number_syntax(digits, where);
  return sign == TokenKind::kEnd ? std::move(number) : lang::unary_syntax(sign, std::move(number), where);
}

}  // namespace hysim::rules
