// Strategy "certified": the default strategy's steps and one-sided secant location
// (gamma-refine), with each step proved by interval arithmetic to hold no guard change but
// the event located (events/certifier.hpp, docs/certified.md). Level 1: the proof covers the
// solver's dense output; model files provide the interval guards (Model::guard_enclosure).
#pragma once

#include <vector>

#include "hysim/events/strategies/gamma_refine.hpp"
#include "hysim/events/strategy.hpp"

namespace hysim {

template <class S>
class CertifiedStrategy final : public EventStrategy<S> {
 public:
  static std::vector<StrategyOption> options() {
    return {option_row("refine_gamma"), option_row("certified_depth"), option_row("certified_strict"),
            option_row("certified_level")};
  }
  static void validate(const StrategyTuning& tuning) {
    GammaRefineStrategy<S>::validate(tuning);
    const int depth = tuning.options().certified_depth;
    require_option(depth >= 1 && depth <= 60, "certified_depth", Decimal(depth), "1 <= certified_depth <= 60");
    const int level = tuning.options().certified_level;
    require_option(level == 1 || level == 2, "certified_level", Decimal(level), "certified_level is 1 or 2");
  }

  explicit CertifiedStrategy(const StrategyTuning& tuning)
      : steps_(tuning),
        certification_{true, tuning.options().certified_depth, tuning.options().certified_strict,
                       tuning.options().certified_level} {}

  void limit_step(StepProposal<S>& proposal, Outlook<S>& outlook) const override {
    steps_.limit_step(proposal, outlook);
  }
  void limit_sliding_step(StepProposal<S>& proposal, Outlook<S>& outlook) const override {
    steps_.limit_sliding_step(proposal, outlook);
  }
  typename EventStrategy<S>::Certification certification() const override { return certification_; }
  CrossingDecision<S> on_crossing(const CrossedStep<S>& step) const override { return steps_.on_crossing(step); }

 private:
  GammaRefineStrategy<S> steps_;
  typename EventStrategy<S>::Certification certification_;
};

}  // namespace hysim
