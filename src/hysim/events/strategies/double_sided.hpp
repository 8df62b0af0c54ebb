// Strategy "double-sided": locate by bisection as "bisection" does, then continue from the
// post-event end of the bracket, as Ptolemy II does (004, section 9). Its x- lies past the
// surface: never one-sided, the contrast the one-sided strategies are measured against.
#pragma once

#include "hysim/events/strategy.hpp"

namespace hysim {

template <class S>
class DoubleSidedStrategy final : public EventStrategy<S> {
 public:
  explicit DoubleSidedStrategy(const SimulationOptions& /*options*/) {}
  CrossingDecision<S> on_crossing(const CrossedStep<S>& /*step*/) const override {
    using Side = typename CrossingDecision<S>::Side;
    return CrossingDecision<S>::locate(Locator::kBisection, Side::kPostEvent);
  }
};

}  // namespace hysim
