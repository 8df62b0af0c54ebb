// Zeno detection (Mosterman et al.): events accumulating in finite time, as
// the bouncing ball's impacts (pinnacles) do, or as the two-tank system's ordinary switches do
// (Johansson, Egerstedt, Lygeros, Sastry 1999). Shared by every engine through the run's ledger
// (events/ledger.hpp; the simulator's loop, the CVODE peer): the detector (ZenoWatch) and what
// the run does at the accumulation (ZenoPolicy, below).
//
// The last event times t_k are kept, with the intervals d_k = t_k - t_{k-1}. Each t_k is known
// to the run's time resolution res (the error of its event times: a few ulps of t for the
// locating strategies, h_min under gamma), so a ratio of intervals is known to about
// 4 res / min(d) relative. Two tests:
//
//  * geometric, of period p = 1, 2 or 3: the ratios r_k = d_k / d_{k-p} over the last
//    zeno_events intervals are below 1 and agree within zeno_ratio_tolerance + 4 res / min(d)
//    (relative to the largest). Period 1 is the bouncing ball (r = e, one flight to the next); period 2 is a cycle through two modes whose phases shrink by different factors
//    (two tanks with v1 != v2: r = (w - v1)(w - v2) / (v1 v2) per cycle). The events then
//    accumulate at
//        t_inf = t_k + (d_{k-p+1} + ... + d_k) r / (1 - r)   (the sum of the next cycles),
//    and Zeno is declared once the time left, t_inf - t_k, is at most zeno_horizon, or once
//    the last intervals are within 64 res (the run could not follow the events much further:
//    under gamma they would soon be shorter than h_min). The events must also repeat their
//    origin (the mode left and the transition that fired) with the same period p: one ball's
//    impacts, or the two tanks' alternating switches. Events of independent subsystems that
//    happen to fall closer and closer (N balls in one state, two of them bouncing almost
//    together) do not accumulate, and their origins do not repeat so.
//  * at the resolution (pinnacles only): every one of the last zeno_events intervals is at
//    most max(zeno_horizon, 2 res), and their origins repeat with a period of 1 to 3. The events no longer shrink geometrically because rounding
//    (or h_min) sets their spacing: they have reached the accumulation point to within the
//    time resolution, and t_inf = t_k. Without this test such a run would go on with an event
//    every few ulps, for ever (seen with double-sided location, and CVODE's roots, on the
//    bouncing ball and the cam follower). Ordinary switches at the resolution are chatter
//    (a sliding surface without the equivalent dynamics), which is not an accumulation: the
//    engine bounds it separately (SimulationOptions::stall_events).
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
#include "hysim/run/exact_options.hpp"
#include "hysim/run/options.hpp"
#include "hysim/run/result.hpp"

namespace hysim {

// Where an event came from: the mode left and the transition that fired.
struct EventOrigin {
  int mode = -1, transition = -1;
  bool operator==(const EventOrigin&) const = default;
};

template <class S>
class ZenoWatch {
 public:
  static constexpr std::size_t kMaxPeriod = 3;
  static constexpr std::size_t kMaxReserved = 4096;

  // at_resolution_test: apply the second test (pinnacles), or the geometric one only.
  // On its own (a test), the options read here.
  ZenoWatch(const SimulationOptions& options, bool at_resolution_test)
      : ZenoWatch(options, exact_options<S>(options), at_resolution_test) {}
  ZenoWatch(const SimulationOptions& options, const ExactOptions<S>& exact, bool at_resolution_test)
      : events_(static_cast<std::size_t>(options.zeno_events)),
        ratio_tolerance_(exact.zeno_ratio_tolerance),
        horizon_(exact.zeno_horizon),
        at_resolution_test_(at_resolution_test) {
    // The buffer's capacity up front (no allocation as it fills), unless zeno_events is huge:
    // --zeno-events 1e9 reserved gigabytes before the first step; such a window grows as needed.
    // Up to twice the window is kept, so that the oldest times are dropped once per window's
    // worth of events, not one by one at every event.
    const std::size_t window = events_ + kMaxPeriod;
    kept_ = std::max(window, std::min<std::size_t>(2 * window, kMaxReserved));
    times_.reserve(std::min(kept_, kMaxReserved));
    origins_.reserve(std::min(kept_, kMaxReserved));
  }

  void reset() {
    times_.clear();
    origins_.clear();
    at_resolution_ = false;
  }

  // Records an event at t, where the run's event times are known to `resolution`. True when
  // the events accumulate (Zeno); t_inf() is then the accumulation time.
  bool observe(S t, S resolution, EventOrigin origin = {}) {  // default: every event of one origin
    if (times_.size() == kept_) {  // the window's newest times stay; capacity kept: no allocation
      const auto dropped = static_cast<std::ptrdiff_t>(kept_ - (events_ + kMaxPeriod) + 1);
      times_.erase(times_.begin(), times_.begin() + dropped);
      origins_.erase(origins_.begin(), origins_.begin() + dropped);
    }
    times_.push_back(t);
    origins_.push_back(origin);
    at_resolution_ = false;
    if (at_resolution_test_ && at_the_resolution(resolution)) {
      at_resolution_ = true;
      t_inf_ = t;
      return true;
    }
    for (std::size_t p = 1; p <= kMaxPeriod; ++p) {
      if (geometric(p, resolution)) return true;
    }
    return false;
  }

  S t_inf() const { return t_inf_; }
  // The common ratio of the geometric test (per period); meaningless when at_resolution().
  S ratio() const { return ratio_; }
  std::size_t period() const { return period_; }
  // Declared by the second test: the intervals reached the time resolution.
  bool at_resolution() const { return at_resolution_; }

 private:
  // d(k): the interval ending at the k-th newest time (k = 0: the last interval).
  S d(std::size_t k) const { return times_[times_.size() - 1 - k] - times_[times_.size() - 2 - k]; }
  // The origin of the k-th newest event (k = 0: the last).
  const EventOrigin& origin(std::size_t k) const { return origins_[origins_.size() - 1 - k]; }

  // The origins of the last `count` events repeat with period p.
  bool origins_repeat(std::size_t p, std::size_t count) const {
    for (std::size_t k = 0; k + p < count; ++k) {
      if (!(origin(k) == origin(k + p))) return false;
    }
    return true;
  }

  bool at_the_resolution(S resolution) const {
    if (times_.size() < events_ + 1) return false;
    bool repeating = false;
    for (std::size_t p = 1; p <= kMaxPeriod && !repeating; ++p) repeating = origins_repeat(p, events_ + 1);
    if (!repeating) return false;
    const S bound = std::max(horizon_, S(2) * resolution);
    for (std::size_t k = 0; k < events_; ++k) {
      if (!(d(k) >= S(0) && d(k) <= bound)) return false;
    }
    return true;
  }

  bool geometric(std::size_t p, S resolution) {
    if (times_.size() < events_ + p) return false;
    // The newest ratio d(0) / d(p) must be below 1 (r_max < 1 below): the cheapest test first,
    // which most events of a run that is not Zeno fail.
    if (!(d(0) < d(p))) return false;
    const std::size_t intervals = events_ + p - 1;
    if (!origins_repeat(p, events_ + p)) return false;
    S d_min = d(0);
    for (std::size_t k = 0; k < intervals; ++k) d_min = std::min(d_min, d(k));
    if (!(d_min > S(0))) return false;
    S r_min = S(1), r_max = S(0);
    for (std::size_t k = 0; k + p < intervals; ++k) {
      const S r = d(k) / d(k + p);
      r_min = std::min(r_min, r);
      r_max = std::max(r_max, r);
    }
    if (!(r_max < S(1))) return false;
    if (r_max - r_min > (ratio_tolerance_ + S(4) * resolution / d_min) * r_max) return false;
    const S r = d(0) / d(p);
    S cycle = S(0), d_last = S(0);  // the last p intervals: their sum and largest
    for (std::size_t k = 0; k < p; ++k) {
      cycle += d(k);
      d_last = std::max(d_last, d(k));
    }
    const S remaining = cycle * r / (S(1) - r);
    if (!(remaining <= horizon_) && !(d_last <= S(64) * resolution)) return false;
    t_inf_ = times_.back() + remaining;
    ratio_ = r;
    period_ = p;
    return true;
  }

  std::size_t events_;
  S ratio_tolerance_, horizon_;
  bool at_resolution_test_;
  std::size_t kept_;      // the most times kept: at least the window, events_ + kMaxPeriod
  std::vector<S> times_;  // the last event times (the window's at least), oldest first
  std::vector<EventOrigin> origins_;  // theirs
  S t_inf_ = S(0), ratio_ = S(0);
  std::size_t period_ = 1;
  bool at_resolution_ = false;
};

// What a run does once Zeno is declared, the same for every
// engine: with the model's continuation it records a row into the continuation mode (guard
// "zeno") and goes on from (t_inf, reset(t_inf, x)); without one it stops (kZeno). Two
// watches: one on the events whose chain visited a pinnacle (both tests), one on every event
// (the geometric test). A continuation after which the events accumulate again at once at the same point does not
// hold: the run would not advance, and that is a SimulationError. The events of each part of the
// model (a component, a switch part: Model::parts) have watches of their own, read first, so that
// one component's accumulation is seen among the other components' events; it continues with
// the part's reset in the mode the run is in (the other parts' states as they were at the last
// event, t_inf - t_k being at most zeno_horizon or a few resolutions), or stops the run.
template <class S>
class ZenoPolicy {
 public:
  enum class Verdict { kNone, kStop, kContinue };
  static constexpr std::string_view kGuard = "zeno";

  // The model and the emitter outlive the policy.
  ZenoPolicy(const Model<S>& model, const SimulationOptions& options, const ExactOptions<S>& exact,
             EventEmitter<S>* emitter)
      : model_(model), emitter_(emitter), all_(options, exact), horizon_(exact.zeno_horizon),
        t_end_(exact.t_end), x_plus_(model.state_size()) {
    parts_.reserve(model.parts.size());
    for (std::size_t p = 0; p < model.parts.size(); ++p) parts_.emplace_back(options, exact);
  }

  void reset() {
    all_.reset();
    for (auto& watches : parts_) watches.reset();
    detected_ = of_pinnacles_ = false;
    t_zeno_ = S(0);
    mode_ = -1;
  }

  // After an event at t whose chain arrived in `mode` with state x (`pinnacle`: the chain
  // visited one); the run's event times are known to `resolution`. The events of a part
  // (Transition::part: a component's, a switch part's) are also watched on their own, first.
  // kContinue: the row is recorded, and the run goes on at t_zeno() in continuation_mode()
  // (model.zeno.mode; for a part's accumulation, the mode it is in) from continuation_state().
  Verdict observe(S t, S resolution, int mode, const S* x, bool pinnacle, EventOrigin origin) {
    const int part = origin.mode < 0 || origin.transition < 0
                         ? -1
                         : model_.modes[static_cast<std::size_t>(origin.mode)]
                               .transitions[static_cast<std::size_t>(origin.transition)]
                               .part;
    if (part >= 0) {
      const Verdict verdict = observe(&parts_[static_cast<std::size_t>(part)], part, t, resolution, mode, x, pinnacle,
                                      origin);
      if (verdict != Verdict::kNone) {  // the model's watches start over; its own continuation is kept
        all_.pinnacles.reset();
        all_.events.reset();
        return verdict;
      }
    }
    return observe(&all_, -1, t, resolution, mode, x, pinnacle, origin);
  }

  bool detected() const { return detected_; }
  // The last accumulation declared was of pinnacles (else of events of any class).
  bool of_pinnacles() const { return of_pinnacles_; }
  S t_zeno() const { return t_zeno_; }  // the last accumulation time declared
  int continuation_mode() const { return mode_; }
  const S* continuation_state() const { return x_plus_.data(); }

 private:
  // Two watches: one on the events whose chain visited a pinnacle (both tests), one on every
  // event (the geometric test); and where the last continuation of theirs went.
  struct Watches {
    Watches(const SimulationOptions& options, const ExactOptions<S>& exact)
        : pinnacles(options, exact, /*at_resolution_test=*/true), events(options, exact, /*at_resolution_test=*/false) {}
    void reset() {
      pinnacles.reset();
      events.reset();
      continued = false;
    }
    ZenoWatch<S> pinnacles, events;
    bool continued = false;
    S t_zeno = S(0);
  };

  // The watches of the model (part < 0) or of one part.
  Verdict observe(Watches* w, int part, S t, S resolution, int mode, const S* x, bool pinnacle, EventOrigin origin) {
    const bool by_pinnacles = pinnacle && w->pinnacles.observe(t, resolution, origin);
    const bool by_events = w->events.observe(t, resolution, origin);
    if (!by_pinnacles && !by_events) return Verdict::kNone;
    const ZenoWatch<S>& watch = by_pinnacles ? w->pinnacles : w->events;
    const S t_inf = watch.t_inf();
    if (!(t_inf < t_end_)) return Verdict::kNone;  // the run ends before it
    const std::string& who = part < 0 ? model_.zeno.mode_name : model_.parts[static_cast<std::size_t>(part)].name;
    if (w->continued && t_inf - w->t_zeno <= std::max<S>(horizon_, S(2) * resolution)) {
      throw SimulationError(where(model_, mode, t) + ": " + what(by_pinnacles) + " accumulate again at t = " +
                            format_scalar(t_inf) + ", right after the Zeno continuation " +
                            (part < 0 ? "into mode '" : "of part '") + who + "' at t = " + format_scalar(w->t_zeno) +
                            ": the continuation does not hold, and the run does not advance");
    }
    detected_ = true;
    of_pinnacles_ = by_pinnacles;
    t_zeno_ = t_inf;
    if (watch.at_resolution()) {
      HYSIM_LOG_INFO("Zeno: {} accumulate at t = {:.17g}, their intervals at the time resolution",
                     what(by_pinnacles), to_double(t_inf));
    } else {
      HYSIM_LOG_INFO("Zeno: {} accumulate at t = {:.17g} (ratio {:.6g} over a period of {} events)",
                     what(by_pinnacles), to_double(t_inf), to_double(watch.ratio()), watch.period());
    }
    w->reset();
    const ResetFunction<S>& reset = part < 0 ? model_.zeno.reset : model_.parts[static_cast<std::size_t>(part)].zeno_reset;
    mode_ = part < 0 ? model_.zeno.mode : mode;
    if (mode_ < 0 || (part >= 0 && !reset)) return Verdict::kStop;
    w->continued = true;
    w->t_zeno = t_inf;
    std::copy(x, x + x_plus_.size(), x_plus_.begin());
    if (reset) reset(t_inf, x, x_plus_.data());
    check_finite(model_, mode, t_inf, x_plus_.data(), "the Zeno continuation's state");
    const std::string_view label = part < 0 ? kGuard : std::string_view(model_.parts[static_cast<std::size_t>(part)].zeno_label);
    emitter_->take_direct(mode, mode_, TransitionClass::kInterior, label, t_inf, t_inf, x, x_plus_.data(),
                          x_plus_.size(), /*one_sided=*/true);
    return Verdict::kContinue;
  }

  const Model<S>& model_;
  EventEmitter<S>* emitter_;
  static const char* what(bool pinnacles) { return pinnacles ? "pinnacles" : "events"; }

  Watches all_;
  std::vector<Watches> parts_;  // by Model::parts
  S horizon_, t_end_;
  std::vector<S> x_plus_;
  bool detected_ = false, of_pinnacles_ = false;
  S t_zeno_ = S(0);
  int mode_ = -1;  // the continuation's mode
};

}  // namespace hysim
