// Strategy "gamma": ISMA's approach, 004 Algorithms 1-3. Each step covers at most gamma of
// the predicted time to the nearest approaching guard,
//     h_ev = gamma |e / (de/dt)|                               (004, Algorithm 2, step 6),
// but never less than h_min. A step longer than h_min that crossed a surface is taken back
// and retried at half its length; a step of h_min that crossed puts the event at its start,
// the last point of the approach (pre-event side). Its event times are known to h_min.
#pragma once

#include <algorithm>

#include "hysim/events/strategy.hpp"

namespace hysim {

template <class S>
class GammaStrategy final : public EventStrategy<S> {
 public:
  explicit GammaStrategy(const SimulationOptions& options)
      : gamma_(options.gamma.to<S>("option gamma")), h_min_(options.h_min.to<S>("option h_min")) {}

  void limit_step(StepProposal<S>& proposal, Outlook<S>& outlook) const override {
    proposal.cap(std::max<S>(gamma_ * outlook.time_to_guard(), outlook.min_step()), StepLimit::kGamma);
    if (proposal.limit == StepLimit::kGamma && proposal.h < h_min_) {
      proposal.h = h_min_;  // 004: the approach does not go below h_min; this step may cross
      proposal.limit = StepLimit::kMinimum;
    }
  }

  // An equivalent field integrated exactly would let the steps grow past an exit and its return.
  void limit_sliding_step(StepProposal<S>& proposal, Outlook<S>& outlook) const override {
    proposal.cap(std::max<S>(gamma_ * outlook.time_to_sliding_exit(), outlook.min_step()), StepLimit::kGamma);
  }

  S time_resolution(const S& /*t*/, const S& /*min_step*/) const override { return h_min_; }

  CrossingDecision<S> on_crossing(const CrossedStep<S>& step) const override {
    if (step.h > h_min_) return CrossingDecision<S>::retry(std::max<S>(step.h / 2, h_min_));
    return CrossingDecision<S>::switch_at_start();
  }

 private:
  S gamma_, h_min_;
};

}  // namespace hysim
