// Recording one event: what every strategy does once it knows that transition k of mode a
// fired at t_a (003, Algorithm 1, "recurse" and "record": the chain of Eq. 3 through the
// modes it visits, each classed by Table 2, and one row per mode visited).
//
//   progress  an event at the same time as the previous one (within same_time) is counted;
//             more than chain_limit of them in a row throw SimulationError: the run does not
//             advance (chattering at a surface). So are events within kStallUlps ulps of the
//             previous one: more than stall_events of them in a row throw SimulationError
//             naming the mode, the guard and how far t moved (chattering at the time
//             resolution, a "consecutive zero crossings" limit decided from the resolution of
//             t; a geometric accumulation is Zeno, declared long before: events/zeno.hpp)
//   count     events += 1, one_sided_events += one_sided
//   resolve   TransitionChain::resolve from (t_a, x_a) [and the far side (t_b, x_b)]
//   record    per mode visited: transitions += 1, one EventRecord to Observer::on_event,
//             one info line to the log
//
// Every engine uses it through the ledger (events/ledger.hpp: RunLedger::event, and
// RunLedger::direct for take_direct): the simulator's own loop (LoopEvents::take in
// loop_events.hpp, same_time = 0) and the CVODE engine (peers/cvode.cpp).
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>
#include <span>
#include <string>
#include <string_view>

#include "hysim/core/errors.hpp"
#include "hysim/core/log.hpp"
#include "hysim/core/model.hpp"
#include "hysim/run/observer.hpp"
#include "hysim/run/options.hpp"
#include "hysim/run/result.hpp"
#include "hysim/events/chain.hpp"
#include "hysim/events/run_checks.hpp"

namespace hysim {

template <class S>
class EventEmitter {
 public:
  // What the chain did.
  struct Outcome {
    typename TransitionChain<S>::Arrival arrival;            // mode entered, x+ and f(t_a, x+) there
    TransitionClass last_kind = TransitionClass::kInterior;  // class of the last mode visited
    bool repeated = false;                                   // at the same time as the previous event
    bool pinnacle = false;                                   // the chain visited a pinnacle
  };

  // Events closer than this many ulps of t to the previous one make no progress.
  static constexpr int kStallUlps = 64;

  // The chain and the counters outlive the emitter.
  EventEmitter(const Model<S>& model, const SimulationOptions& options, TransitionChain<S>* chain,
               RunStatistics* stats)
      : model_(model), chain_limit_(options.chain_limit), stall_events_(options.stall_events), chain_(chain),
        stats_(stats) {}

  // Starts a run: no previous event; records go to `observer` (may be null).
  void reset(Observer<S>* observer) {
    observer_ = observer;
    last_event_t_ = -std::numeric_limits<S>::infinity();
    events_at_same_t_ = 0;
    stalled_events_ = 0;
    previous_t_ = -std::numeric_limits<S>::infinity();
  }

  // Transition `transition` of `mode` fired at t_a with pre-event state x_a; (t_b, x_b) is the
  // far side of the location bracket, x_b == nullptr when there is none. `one_sided`: x_a
  // satisfies `mode` (no guard of it fires there). Events with |t_a - t_previous| <= same_time
  // count as at the same time.
  Outcome take(int mode, int transition, S t_a, const S* x_a, S t_b, const S* x_b, bool one_sided,
               S same_time = S(0)) {
    Outcome outcome;
    EventRecord<S> record = count(mode, t_a, t_b, one_sided, same_time, &outcome.repeated);
    check_progress(mode, transition, t_a);
    outcome.arrival = chain_->resolve(
        mode, transition, t_a, x_a, t_b, x_b,
        [this, &record, &outcome](int from, int to, TransitionClass kind, std::string_view guard,
                                  std::span<const S> x_pre, std::span<const S> x_post) {
          ++stats_->transitions;
          record.from = from;
          record.to = to;
          record.kind = kind;
          record.guard = guard;
          record.x_pre = x_pre;
          record.x_post = x_post;
          outcome.last_kind = kind;
          outcome.pinnacle = outcome.pinnacle || kind == TransitionClass::kPinnacle;
          HYSIM_LOG_INFO("event {} t = {:.17g}: {} -> {} ({}, guard {})", record.index, to_double(record.t),
                         model_.modes[static_cast<std::size_t>(from)].name,
                         model_.modes[static_cast<std::size_t>(to)].name, transition_class_name(kind), guard);
          if (observer_) observer_->on_event(record);
        });
    return outcome;
  }

  // Records one mode change decided outside a chain (the end of a sliding motion): one row,
  // counted as an event like any other.
  void take_direct(int from, int to, TransitionClass kind, std::string_view guard, S t_a, S t_b, const S* x_pre,
                   const S* x_post, std::size_t n, bool one_sided) {
    bool repeated = false;
    EventRecord<S> record = count(from, t_a, t_b, one_sided, S(0), &repeated);
    ++stats_->transitions;
    record.from = from;
    record.to = to;
    record.kind = kind;
    record.guard = guard;
    record.x_pre = std::span<const S>(x_pre, n);
    record.x_post = std::span<const S>(x_post, n);
    HYSIM_LOG_INFO("event {} t = {:.17g}: {} -> {} ({}, {})", record.index, to_double(record.t),
                   model_.modes[static_cast<std::size_t>(from)].name, model_.modes[static_cast<std::size_t>(to)].name,
                   transition_class_name(kind), guard);
    if (observer_) observer_->on_event(record);
  }

 private:
  // progress and count (header comment): one event at t_a; returns its record, ready for rows.
  EventRecord<S> count(int mode, S t_a, S t_b, bool one_sided, S same_time, bool* repeated) {
    using std::abs;
    *repeated = abs(t_a - last_event_t_) <= same_time;
    if (*repeated) {
      if (++events_at_same_t_ > chain_limit_) {
        throw SimulationError(where(mode, t_a) + ": " + std::to_string(events_at_same_t_) +
                              " events at the same time; the run does not advance (chattering at a surface?)");
      }
    } else {
      events_at_same_t_ = 0;
    }
    last_event_t_ = t_a;
    ++stats_->events;
    if (one_sided) ++stats_->one_sided_events;
    EventRecord<S> record;
    record.one_sided = one_sided;
    record.index = stats_->events;
    record.t = t_a;
    record.t_bracket = t_b;
    return record;
  }

  // progress at the time resolution (header comment).
  void check_progress(int mode, int transition, S t_a) {
    using std::abs;
    const bool stalled = t_a - previous_t_ <= S(kStallUlps) * (next_up(abs(t_a)) - abs(t_a));
    if (!stalled) {
      stalled_events_ = 0;
      previous_t_ = t_a;
      return;
    }
    if (stalled_events_++ == 0) stall_start_t_ = previous_t_;
    previous_t_ = t_a;
    if (stalled_events_ > stall_events_) {
      const auto& m = model_.modes[static_cast<std::size_t>(mode)];
      throw SimulationError(where(mode, t_a) + ", guard '" + m.transitions[static_cast<std::size_t>(transition)].name +
                            "': " + std::to_string(stalled_events_) + " events in a row, each within " +
                            std::to_string(kStallUlps) + " ulps of t of the one before, moved t by " +
                            format_scalar(t_a - stall_start_t_) + " s in all: the run makes no progress "
                            "(chattering at the time resolution; stall_events bounds it)");
    }
  }

  std::string where(int mode, S t) const { return hysim::where(model_, mode, t); }

  const Model<S>& model_;
  int chain_limit_;
  std::int64_t stall_events_;
  TransitionChain<S>* chain_;
  RunStatistics* stats_;
  Observer<S>* observer_ = nullptr;
  S last_event_t_ = -std::numeric_limits<S>::infinity();
  int events_at_same_t_ = 0;
  // progress at the time resolution: events in a row, each within kStallUlps of the one before,
  // since stall_start_t_
  std::int64_t stalled_events_ = 0;
  S previous_t_ = -std::numeric_limits<S>::infinity(), stall_start_t_ = S(0);
};

}  // namespace hysim
