// Strategy "bisection": 003, Algorithm 1. Detect at each step's end; halve the bracket on
// the dense output until its ends are adjacent floats; continue from the pre-event end
// (one-sided, 004). About 50 trial points per event in double.
#pragma once

#include "hysim/events/strategy.hpp"

namespace hysim {

template <class S>
class BisectionStrategy final : public EventStrategy<S> {
 public:
  explicit BisectionStrategy(const SimulationOptions& /*options*/) {}
  CrossingDecision<S> on_crossing(const CrossedStep<S>& /*step*/) const override {
    return CrossingDecision<S>::locate(Locator::kBisection);
  }
};

}  // namespace hysim
