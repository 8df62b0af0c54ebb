// Strategy "sampled": check `samples` equally spaced interior points of each step's dense
// output before its end, so that a guard that fires and clears within one step is seen if a
// sample falls inside (cf. DifferentialEquations.jl's interp_points), then locate by Illinois,
// one-sided. Sliding exits are watched at the same points.
#pragma once

#include <vector>

#include "hysim/events/strategy.hpp"

namespace hysim {

template <class S>
class SampledStrategy final : public EventStrategy<S> {
 public:
  // Its option: samples (>= 1), a field of SimulationOptions.
  static std::vector<StrategyOption> options() { return {option_row("samples")}; }
  static void validate(const StrategyTuning& tuning) {
    require_option(tuning.options().samples >= 1, "samples", Decimal(tuning.options().samples), "samples >= 1");
  }

  explicit SampledStrategy(const StrategyTuning& tuning) : samples_(tuning.options().samples) {}
  int interior_samples() const override { return samples_; }
  CrossingDecision<S> on_crossing(const CrossedStep<S>& /*step*/) const override {
    return CrossingDecision<S>::locate(Locator::kIllinois);
  }

 private:
  int samples_;
};

}  // namespace hysim
