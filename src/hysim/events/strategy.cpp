#include "hysim/events/strategy.hpp"

#include "hysim/core/errors.hpp"

namespace hysim {

const std::vector<StrategyInfo>& strategy_catalog() {
  static const std::vector<StrategyInfo> catalog = {
      {Strategy::kStep, "step", "no location: switch at the end of the step in which a guard fired",
       "fixed-step rule interpreters"},
      {Strategy::kBisection, "bisection", "one-sided bisection on the dense output down to one ulp of t",
       "003, Algorithm 1"},
      {Strategy::kIllinois, "illinois", "one-sided regula falsi with the Illinois modification",
       "Dowell & Jarratt 1971; as in CVODE's rootfinder (Hindmarsh et al. 2005)"},
      {Strategy::kItp, "itp", "one-sided ITP (interpolate, truncate, project) bracketing",
       "Oliveira & Takahashi, ACM TOMS 47(1), 2021"},
      {Strategy::kGamma, "gamma", "gamma-limited steps toward the surface down to h_min, then switch",
       "004, Algorithms 1-3 (ISMA)"},
      {Strategy::kGammaRefine, "gamma-refine", "gamma-limited steps, then one-sided refinement on the dense output",
       "004, Algorithms 1-3, with 003's one-sided location"},
      {Strategy::kDoubleSided, "double-sided", "locate, then continue from the post-event side",
       "Ptolemy II (004, section 9)"},
      {Strategy::kSampled, "sampled", "check interior points of each step's dense output, then Illinois",
       "sampled zero-crossing detection (cf. DifferentialEquations.jl interp_points)"},
      {Strategy::kCvode, "cvode", "SUNDIALS CVODE with its own rootfinding, restarted after each event",
       "Hindmarsh et al., ACM TOMS 31(3), 2005"},
  };
  return catalog;
}

Strategy parse_strategy(std::string_view name) {
  std::string known;
  for (const auto& info : strategy_catalog()) {
    if (info.name == name) return info.strategy;
    known += (known.empty() ? "" : ", ") + info.name;
  }
  throw InvalidArgument("unknown strategy '" + std::string(name) + "' (known: " + known + ")");
}

const char* strategy_name(Strategy strategy) {
  for (const auto& info : strategy_catalog()) {
    if (info.strategy == strategy) return info.name.c_str();
  }
  return "?";
}

}  // namespace hysim
