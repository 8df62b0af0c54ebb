// Strategy "illinois": regula falsi on the crossing atom with the Illinois modification
// (Dowell & Jarratt, BIT 11, 1971), as CVODE's rootfinder does (Hindmarsh et al., ACM TOMS
// 31(3), 2005), kept one-sided: the bracket is decided by the guard, the event is at its
// pre-event end.
#pragma once

#include "hysim/events/strategy.hpp"

namespace hysim {

template <class S>
class IllinoisStrategy final : public EventStrategy<S> {
 public:
  explicit IllinoisStrategy(const SimulationOptions& /*options*/) {}
  CrossingDecision<S> on_crossing(const CrossedStep<S>& /*step*/) const override {
    return CrossingDecision<S>::locate(Locator::kIllinois);
  }
};

}  // namespace hysim
