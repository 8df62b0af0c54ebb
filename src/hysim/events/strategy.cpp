#include "hysim/events/strategy.hpp"

#include "hysim/core/errors.hpp"
#include "hysim/events/strategies/bisection.hpp"
#include "hysim/events/strategies/double_sided.hpp"
#include "hysim/events/strategies/gamma.hpp"
#include "hysim/events/strategies/gamma_refine.hpp"
#include "hysim/events/strategies/illinois.hpp"
#include "hysim/events/strategies/itp.hpp"
#include "hysim/events/strategies/sampled.hpp"
#include "hysim/events/strategies/step.hpp"

namespace hysim {

namespace {

std::deque<StrategyInfo> built_in() {
  std::deque<StrategyInfo> catalog;
  catalog.push_back(strategy_entry<StepStrategy>(
      "step", "no location: switch at the end of the step in which a guard fired", "fixed-step rule interpreters"));
  catalog.push_back(strategy_entry<BisectionStrategy>(
      "bisection", "one-sided bisection on the dense output down to one ulp of t", "003, Algorithm 1"));
  catalog.push_back(strategy_entry<IllinoisStrategy>(
      "illinois", "one-sided regula falsi with the Illinois modification",
      "Dowell & Jarratt 1971; as in CVODE's rootfinder (Hindmarsh et al. 2005)"));
  catalog.push_back(strategy_entry<ItpStrategy>("itp", "one-sided ITP (interpolate, truncate, project) bracketing",
                                                "Oliveira & Takahashi, ACM TOMS 47(1), 2021"));
  catalog.push_back(strategy_entry<GammaStrategy>(
      "gamma", "gamma-limited steps toward the surface down to h_min, then switch", "004, Algorithms 1-3 (ISMA)"));
  catalog.push_back(strategy_entry<GammaRefineStrategy>(
      "gamma-refine", "gamma-limited steps, then one-sided refinement on the dense output",
      "004, Algorithms 1-3, with 003's one-sided location"));
  catalog.push_back(strategy_entry<DoubleSidedStrategy>(
      "double-sided", "locate, then continue from the post-event side", "Ptolemy II (004, section 9)"));
  catalog.push_back(strategy_entry<SampledStrategy>(
      "sampled", "check interior points of each step's dense output, then Illinois",
      "sampled zero-crossing detection (cf. DifferentialEquations.jl interp_points)"));
  return catalog;
}

std::deque<StrategyInfo>& catalog() {
  static std::deque<StrategyInfo> strategies = built_in();
  return strategies;
}

}  // namespace

const std::deque<StrategyInfo>& strategy_catalog() { return catalog(); }

void register_strategy(StrategyInfo info) {
  if (info.name.empty()) throw InvalidArgument("register_strategy: the strategy has no name");
  for (const auto& known : catalog()) {
    if (known.name == info.name) throw InvalidArgument("register_strategy: strategy '" + info.name + "' exists");
  }
  const bool policy = info.make_double && info.make_long_double && info.make_float128;
  if (policy == info.is_driver()) {
    throw InvalidArgument("register_strategy: strategy '" + info.name +
                          "' needs either a factory for each scalar type or a driver");
  }
  catalog().push_back(std::move(info));
}

const StrategyInfo& find_strategy(std::string_view name) {
  std::string known;
  for (const auto& info : catalog()) {
    if (info.name == name) return info;
    known += (known.empty() ? "" : ", ") + info.name;
  }
  throw InvalidArgument("unknown strategy '" + std::string(name) + "' (known: " + known + ")");
}

}  // namespace hysim
