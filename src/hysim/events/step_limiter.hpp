// The step limiter: the length of the next step and what limited it (the step log, 004
// Figs. 14-16), from the integrator's proposal, max_step, the strategy's rule and t_end.
//
//   propose   h = the integrator's proposal (or the fixed step)
//             capped by max_step,
//             by the strategy (in a mode: limit_step, e.g. the gamma rule; on a sliding
//             surface: limit_sliding_step), or, in a chattering mode, at its time resolution,
//             and by t_end - t
//   next      after an accepted step: the integrator's new proposal; a step cut short by
//             anything but the error control does not shrink it
#pragma once

#include <algorithm>

#include "hysim/events/strategy.hpp"

namespace hysim {

template <class S>
class StepLimiter {
 public:
  enum class Phase { kInMode, kSliding, kChattering };

  // The strategy outlives the limiter.
  StepLimiter(const SimulationOptions& options, const EventStrategy<S>* strategy, bool adaptive)
      : strategy_(strategy), max_step_(options.max_step.to<S>("option max_step")),
        fixed_step_(options.fixed_step.to<S>("option fixed_step")), adaptive_(adaptive) {}

  StepProposal<S> propose(S h, Phase phase, Outlook<S>& outlook, S t_end) const {
    StepProposal<S> proposal{h, adaptive_ ? StepLimit::kIntegrator : StepLimit::kFixed};
    if (max_step_ > S(0)) proposal.cap(max_step_, StepLimit::kMaxStep);
    switch (phase) {
      case Phase::kInMode: strategy_->limit_step(proposal, outlook); break;
      case Phase::kSliding: strategy_->limit_sliding_step(proposal, outlook); break;
      case Phase::kChattering:
        proposal.cap(strategy_->time_resolution(outlook.t(), outlook.min_step()), StepLimit::kMinimum);
        break;
    }
    const S remaining = t_end - outlook.t();
    if (proposal.h >= remaining) {
      proposal.h = remaining;
      proposal.limit = StepLimit::kEnd;
    }
    return proposal;
  }

  // The proposal after an accepted step of `used`: the integrator's h_next, but a step cut
  // short by anything but the error control keeps the earlier proposal h_before.
  S next(const StepProposal<S>& used, S h_before, S h_next) const {
    if (!adaptive_) return fixed_step_;
    return used.limit == StepLimit::kIntegrator ? h_next : std::max<S>(h_next, h_before);
  }

  // After a step that ended at an event: no longer than the proposal the step was made from.
  S after_event(S h, S h_before) const { return adaptive_ ? std::min(h, h_before) : h; }

 private:
  const EventStrategy<S>* strategy_;
  S max_step_, fixed_step_;
  bool adaptive_;
};

}  // namespace hysim
