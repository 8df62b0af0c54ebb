// Zeno detection (DESIGN.md section 3, item 5; 003): pinnacle events accumulating in finite
// time, as the bouncing ball's impacts do. Shared by the engine (simulator.cpp) and the cvode
// peer (peers/cvode.cpp): the detector (ZenoWatch) and what the run does at the accumulation
// (ZenoPolicy, below).
//
// The times t_k of events whose chain visited a pinnacle are kept, the last zeno_events + 1 of
// them, with the intervals d_k = t_k - t_{k-1}. Each t_k is known to the run's time resolution
// res (the error of its event times: a few ulps of t for the locating strategies, h_min under
// gamma), so a ratio r_k = d_k / d_{k-1} is known to about 4 res / min(d) relative. Two tests:
//
//  * geometric: the ratios are below 1 and agree within zeno_ratio_tolerance + 4 res / min(d)
//    (relative to the largest). The events then accumulate at
//        t_inf = t_k + d_k r / (1 - r)    (r the last ratio: the sum of d_k r^j, j >= 1),
//    and Zeno is declared once the time left, t_inf - t_k, is at most zeno_horizon, or once
//    the last interval is within 64 res (the run could not follow the events much further:
//    under gamma the flights would soon be shorter than h_min).
//  * at the resolution: every one of the last zeno_events intervals is at most
//    max(zeno_horizon, 2 res). The events no longer shrink geometrically because rounding (or
//    h_min) sets their spacing: they have reached the accumulation point to within the time
//    resolution, and t_inf = t_k. Without this test such a run would go on with an event
//    every few ulps, for ever (seen with double-sided location, and CVODE's roots, on the
//    bouncing ball and the cam follower).
#pragma once

#include <algorithm>
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "hysim/core/log.hpp"
#include "hysim/events/event_emitter.hpp"
#include "hysim/events/run_checks.hpp"

#include "hysim/core/model.hpp"
#include "hysim/run/options.hpp"
#include "hysim/run/result.hpp"

namespace hysim {

template <class S>
class ZenoWatch {
 public:
  explicit ZenoWatch(const SimulationOptions& options)
      : window_(static_cast<std::size_t>(options.zeno_events) + 1),
        ratio_tolerance_(S(options.zeno_ratio_tolerance)),
        horizon_(S(options.zeno_horizon)) {
    times_.reserve(window_);
  }

  void reset() {
    times_.clear();
    at_resolution_ = false;
  }

  // Records a pinnacle event at t, where the run's event times are known to `resolution`.
  // True when the pinnacles accumulate (Zeno); t_inf() is then the accumulation time.
  bool observe(S t, S resolution) {
    if (times_.size() == window_) times_.erase(times_.begin());  // capacity kept: no allocation
    times_.push_back(t);
    at_resolution_ = false;
    if (times_.size() < window_) return false;

    S d_min = times_[1] - times_[0], d_max = d_min;
    for (std::size_t k = 2; k < window_; ++k) {
      const S d = times_[k] - times_[k - 1];
      d_min = std::min(d_min, d);
      d_max = std::max(d_max, d);
    }
    if (!(d_min >= S(0))) return false;
    if (d_max <= std::max(horizon_, S(2) * resolution)) {
      at_resolution_ = true;
      t_inf_ = t;
      return true;
    }
    if (!(d_min > S(0))) return false;

    S r_min = S(1), r_max = S(0), r = S(0);
    for (std::size_t k = 2; k < window_; ++k) {
      r = (times_[k] - times_[k - 1]) / (times_[k - 1] - times_[k - 2]);
      r_min = std::min(r_min, r);
      r_max = std::max(r_max, r);
    }
    if (!(r_max < S(1))) return false;
    if (r_max - r_min > (ratio_tolerance_ + S(4) * resolution / d_min) * r_max) return false;
    const S d_last = times_[window_ - 1] - times_[window_ - 2];
    const S remaining = d_last * r / (S(1) - r);
    if (!(remaining <= horizon_) && !(d_last <= S(64) * resolution)) return false;
    t_inf_ = t + remaining;
    ratio_ = r;
    return true;
  }

  S t_inf() const { return t_inf_; }
  // The common ratio of the geometric test; meaningless when at_resolution().
  S ratio() const { return ratio_; }
  // Declared by the second test: the intervals reached the time resolution.
  bool at_resolution() const { return at_resolution_; }

 private:
  std::size_t window_;
  S ratio_tolerance_, horizon_;
  std::vector<S> times_;  // the last window_ pinnacle event times, oldest first
  S t_inf_ = S(0), ratio_ = S(0);
  bool at_resolution_ = false;
};

// What a run does once Zeno is declared (DESIGN.md section 3, item 5), the same for every
// driver: with the model's continuation it records a row into the continuation mode (guard
// "zeno") and goes on from (t_inf, reset(t_inf, x)); without one it stops (kZeno). A
// continuation after which the pinnacles accumulate again at once at the same point does not
// hold: the run would not advance, and that is a SimulationError.
template <class S>
class ZenoPolicy {
 public:
  enum class Verdict { kNone, kStop, kContinue };
  static constexpr std::string_view kGuard = "zeno";

  // The model and the emitter outlive the policy.
  ZenoPolicy(const Model<S>& model, const SimulationOptions& options, EventEmitter<S>* emitter)
      : model_(model), emitter_(emitter), watch_(options), horizon_(S(options.zeno_horizon)),
        t_end_(S(options.t_end)), x_plus_(model.state_size()) {}

  void reset() {
    watch_.reset();
    detected_ = continued_ = false;
    t_zeno_ = S(0);
  }

  // After an event at t whose chain visited a pinnacle and arrived in `mode` with state x;
  // the run's event times are known to `resolution`. kContinue: the row is recorded, and the
  // run goes on at t_zeno() in model.zeno.mode from continuation_state().
  Verdict observe(S t, S resolution, int mode, const S* x) {
    if (!watch_.observe(t, resolution)) return Verdict::kNone;
    const S t_inf = watch_.t_inf();
    if (!(t_inf < t_end_)) return Verdict::kNone;  // the run ends before it
    if (continued_ && t_inf - t_zeno_ <= std::max<S>(horizon_, S(2) * resolution)) {
      throw SimulationError(where(model_, mode, t) + ": pinnacles accumulate again at t = " + format_scalar(t_inf) +
                            ", right after the Zeno continuation into mode '" + model_.zeno.mode_name + "' at t = " +
                            format_scalar(t_zeno_) + ": the continuation does not hold, and the run does not advance");
    }
    detected_ = true;
    t_zeno_ = t_inf;
    if (watch_.at_resolution()) {
      HYSIM_LOG_INFO("Zeno: pinnacles accumulate at t = {:.17g}, their intervals at the time resolution",
                     to_double(t_inf));
    } else {
      HYSIM_LOG_INFO("Zeno: pinnacles accumulate at t = {:.17g} (ratio {:.6g})", to_double(t_inf),
                     to_double(watch_.ratio()));
    }
    watch_.reset();
    if (model_.zeno.mode < 0) return Verdict::kStop;
    continued_ = true;
    std::copy(x, x + x_plus_.size(), x_plus_.begin());
    if (model_.zeno.reset) model_.zeno.reset(t_inf, x, x_plus_.data());
    check_finite(model_, mode, t_inf, x_plus_.data(), "the Zeno continuation's state");
    emitter_->take_direct(mode, model_.zeno.mode, TransitionClass::kInterior, kGuard, t_inf, t_inf, x,
                          x_plus_.data(), x_plus_.size(), /*one_sided=*/true);
    return Verdict::kContinue;
  }

  bool detected() const { return detected_; }
  S t_zeno() const { return t_zeno_; }  // the last accumulation time declared
  const S* continuation_state() const { return x_plus_.data(); }

 private:
  const Model<S>& model_;
  EventEmitter<S>* emitter_;
  ZenoWatch<S> watch_;
  S horizon_, t_end_;
  std::vector<S> x_plus_;
  bool detected_ = false, continued_ = false;
  S t_zeno_ = S(0);
};

}  // namespace hysim
