// Strategy "gamma-refine" (the default): the gamma rule of 004 (Algorithms 1-3) with
// refine_gamma < 2, so that one step cannot hold both crossings of a locally quadratic event
// function (grazing-safe), then one-sided refinement on the dense output by the secant method
// on the crossing atom, t = t_1 - phi_1 (t_1 - t_0) / (phi_1 - phi_0) through the two latest
// trial points, falling back to regula falsi outside the bracket and to the midpoint when three
// trial points have not halved it (events/location.hpp, Locator::kSecant; 003's one-sided
// location): exact to one ulp of t, one-sided, and the cheapest per event.
#pragma once

#include <algorithm>
#include <vector>

#include "hysim/events/strategy.hpp"

namespace hysim {

template <class S>
class GammaRefineStrategy final : public EventStrategy<S> {
 public:
  // Its option: refine_gamma (0 < refine_gamma < 2), a field of SimulationOptions.
  static std::vector<StrategyOption> options() { return {option_row("refine_gamma")}; }
  static void validate(const StrategyTuning& tuning) {
    const Decimal factor = tuning.number("refine_gamma");
    require_option(is_finite(exact_value(factor)) && exact_value(factor) > 0 && exact_value(factor) < 2,
                   "refine_gamma", factor, "0 < refine_gamma < 2");
  }

  explicit GammaRefineStrategy(const StrategyTuning& tuning)
      : factor_(tuning.number("refine_gamma").template to<S>("option refine_gamma")) {}

  // Never below 1e-6 of the integrator's proposal: the refinement makes the step's end
  // irrelevant to accuracy, and at a flat (multiple) root the linear prediction collapses,
  // which would otherwise crawl at the minimum step.
  void limit_step(StepProposal<S>& proposal, Outlook<S>& outlook) const override {
    const S h_ev = std::max<S>(factor_ * outlook.time_to_guard(), outlook.min_step());
    proposal.cap(std::max<S>(h_ev, proposal.h * S(1e-6)), StepLimit::kGamma);
  }

  void limit_sliding_step(StepProposal<S>& proposal, Outlook<S>& outlook) const override {
    proposal.cap(std::max<S>(factor_ * outlook.time_to_sliding_exit(), outlook.min_step()), StepLimit::kGamma);
  }

  CrossingDecision<S> on_crossing(const CrossedStep<S>& /*step*/) const override {
    return CrossingDecision<S>::locate(Locator::kSecant);
  }

 private:
  S factor_;
};

}  // namespace hysim
