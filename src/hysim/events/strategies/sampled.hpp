// Strategy "sampled": check `samples` equally spaced interior points of each step's dense
// output before its end, so that a guard that fires and clears within one step is seen if a
// sample falls inside (cf. DifferentialEquations.jl's interp_points), then locate by Illinois,
// one-sided. Sliding exits are watched at the same points.
#pragma once

#include "hysim/events/strategy.hpp"

namespace hysim {

template <class S>
class SampledStrategy final : public EventStrategy<S> {
 public:
  explicit SampledStrategy(const SimulationOptions& options) : samples_(options.samples) {}
  int interior_samples() const override { return samples_; }
  CrossingDecision<S> on_crossing(const CrossedStep<S>& /*step*/) const override {
    return CrossingDecision<S>::locate(Locator::kIllinois);
  }

 private:
  int samples_;
};

}  // namespace hysim
