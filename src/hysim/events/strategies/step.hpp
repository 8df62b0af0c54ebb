// Strategy "step": no location. The switch happens at the end of the step in which a guard
// fired, on the post-event side of the surface, as a fixed-step rule interpreter does (the
// EnviCon interpreter of 000-002 switches at the next tick). Its error in t is up to one step.
#pragma once

#include "hysim/events/strategy.hpp"

namespace hysim {

template <class S>
class StepStrategy final : public EventStrategy<S> {
 public:
  explicit StepStrategy(const SimulationOptions& /*options*/) {}
  CrossingDecision<S> on_crossing(const CrossedStep<S>& /*step*/) const override {
    return CrossingDecision<S>::switch_at_end();
  }
  CrossingDecision<S> on_sliding_exit(const CrossedStep<S>& /*step*/) const override {
    return CrossingDecision<S>::switch_at_end();
  }
};

}  // namespace hysim
