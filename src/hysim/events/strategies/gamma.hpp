// Strategy "gamma": ISMA's approach, 004 Algorithms 1-3. With g_n < 0 the event function of
// the mode's predicate and g'_n > 0 its rate (approaching), Algorithm 2, step 6 caps the step at
//     h_ev = (gamma - 1) g_n / g'_n = (1 - gamma) tau,   tau = -g_n / g'_n,
// the predicted time to the surface: along the linear prediction the step ends at
// g_{n+1} = g_n + h_ev g'_n = gamma g_n, the function "changes its value not more than gamma
// times" (004, section 9), and with gamma = 0.6 it keeps 0.6 of its value at each step, the
// distance to the surface shrinking geometrically by that factor. (004's text has lost the
// minus sign and the fraction bar, "gamma 1 g_n g'_n"; the sentence fixes the reading.) The
// step is never less than h_min. A step longer than h_min that crossed a surface is taken back
// and retried at half its length; a step of h_min that crossed puts the event at its start,
// the last point of the approach (pre-event side). Its event times are known to h_min.
#pragma once

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "hysim/events/strategy.hpp"

namespace hysim {

template <class S>
class GammaStrategy final : public EventStrategy<S> {
 public:
  // Its options: gamma (0 < gamma < 1) and h_min (> 0), fields of SimulationOptions.
  static std::vector<StrategyOption> options() { return {option_row("gamma"), option_row("h_min")}; }
  static void validate(const StrategyTuning& tuning) {
    const Decimal gamma = tuning.number("gamma"), h_min = tuning.number("h_min");
    require_option(is_finite(exact_value(gamma)) && exact_value(gamma) > 0 && exact_value(gamma) < 1, "gamma",
                   gamma, "0 < gamma < 1");
    require_option(is_finite(exact_value(h_min)) && exact_value(h_min) > 0, "h_min", h_min, "h_min > 0");
  }

  explicit GammaStrategy(const StrategyTuning& tuning)
      : h_min_text_(tuning.number("h_min")),
        t_end_text_(tuning.options().t_end),
        name_(tuning.options().strategy),
        gamma_(tuning.number("gamma").template to<S>("option gamma")),
        h_min_(h_min_text_.template to<S>("option h_min")) {}

  // The least step (004, Algorithm 3) must move t: at least 16 ulps of it, which grow with
  // the horizon; the message names both options that meet here.
  void check_horizon(const S& t0, const S& t_end) const override {
    using std::abs;
    const S resolution = S(16) * machine_epsilon<S>() * std::max({abs(t0), abs(t_end), S(1)});
    if (h_min_ >= resolution) return;
    throw InvalidArgument("option h_min = " + h_min_text_.str() + " is below the time resolution " +
                          format_scalar(resolution) + " of t at t_end = " + t_end_text_.str() + " (16 ulps): strategy " +
                          name_ + "'s least step would not move t; raise --h-min or shorten --t-end");
  }

  void limit_step(StepProposal<S>& proposal, Outlook<S>& outlook) const override {
    proposal.cap(std::max<S>((S(1) - gamma_) * outlook.time_to_guard(), outlook.min_step()), StepLimit::kGamma);
    if (proposal.limit == StepLimit::kGamma && proposal.h < h_min_) {
      proposal.h = h_min_;  // 004: the approach does not go below h_min; this step may cross
      proposal.limit = StepLimit::kMinimum;
    }
  }

  // An equivalent field integrated exactly would let the steps grow past an exit and its return;
  // the same rule, on the predicted time to the exit.
  void limit_sliding_step(StepProposal<S>& proposal, Outlook<S>& outlook) const override {
    proposal.cap(std::max<S>((S(1) - gamma_) * outlook.time_to_sliding_exit(), outlook.min_step()),
                 StepLimit::kGamma);
  }

  S time_resolution(const S& /*t*/, const S& /*min_step*/) const override { return h_min_; }

  CrossingDecision<S> on_crossing(const CrossedStep<S>& step) const override {
    if (step.h > h_min_) return CrossingDecision<S>::retry(std::max<S>(step.h / 2, h_min_));
    return CrossingDecision<S>::switch_at_start();
  }

 private:
  Decimal h_min_text_, t_end_text_;  // as typed, for the messages
  std::string name_;
  S gamma_, h_min_;
};

}  // namespace hysim
