// Strategy "itp": interpolate, truncate, project (Oliveira & Takahashi, ACM TOMS 47(1),
// 2021): bisection's worst case, superlinear on a smooth root; one-sided.
#pragma once

#include "hysim/events/strategy.hpp"

namespace hysim {

template <class S>
class ItpStrategy final : public EventStrategy<S> {
 public:
  explicit ItpStrategy(const SimulationOptions& /*options*/) {}
  CrossingDecision<S> on_crossing(const CrossedStep<S>& /*step*/) const override {
    return CrossingDecision<S>::locate(Locator::kItp);
  }
};

}  // namespace hysim
