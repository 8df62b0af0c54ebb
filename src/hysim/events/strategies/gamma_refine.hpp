// Strategy "gamma-refine" (the default): the gamma rule of 004 (Algorithms 1-3) with
// refine_gamma < 2, so that one step cannot hold both crossings of a locally quadratic event
// function (grazing-safe), then one-sided refinement on the dense output by Illinois (003's
// one-sided location): exact to one ulp of t, one-sided, and the cheapest per event.
#pragma once

#include <algorithm>

#include "hysim/events/strategy.hpp"

namespace hysim {

template <class S>
class GammaRefineStrategy final : public EventStrategy<S> {
 public:
  explicit GammaRefineStrategy(const SimulationOptions& options) : factor_(options.refine_gamma.to<S>("option refine_gamma")) {}

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
