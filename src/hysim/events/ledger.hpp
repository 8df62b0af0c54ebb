// The ledger of a run: what every engine (events/engine.hpp; the simulator's own loop, the
// CVODE peer) keeps the same way, so that their runs compare on equal terms:
//
//   counters  RunStatistics, one object; work done to measure (not to simulate) is done in an
//             Uncounted scope
//   observer  every sample, step and event passes through here; the last sample is kept (where
//             a failed run stood)
//   events    the guards of each mode (TransitionDetector), the transition chain at each event
//             (003, Eq. 3 and Table 2; events/chain.hpp) and its rows (EventEmitter)
//   t0        the chain at t0, when a guard of the initial mode already fires or sits at 0 and
//             the field drives it across (CVODE's cvRcheck1)
//   zeno      the Zeno policy after each event (events/zeno.hpp): go on, stop, or continue at
//             the accumulation point t_inf in the model's continuation mode
//   warnings  what the run warns about (an explicit solver that found the field stiff): each
//             goes to the log once, when it arises, and into the result
//   result    the run's end: where it stands, its counters, its Zeno outcome, its message and
//             its warnings
#pragma once

#include <algorithm>
#include <cstdint>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "hysim/core/log.hpp"
#include "hysim/core/model.hpp"
#include "hysim/events/chain.hpp"
#include "hysim/events/detection.hpp"
#include "hysim/events/event_emitter.hpp"
#include "hysim/events/run_checks.hpp"
#include "hysim/events/zeno.hpp"
#include "hysim/run/exact_options.hpp"
#include "hysim/run/observer.hpp"
#include "hysim/run/options.hpp"
#include "hysim/run/result.hpp"

namespace hysim {

// The guard and field evaluations made inside this scope are not counted: a measurement
// (whether x- is one-sided), not work of the strategy. The counters are restored on leaving.
class Uncounted {
 public:
  explicit Uncounted(RunStatistics& stats)
      : stats_(stats), guard_evals_(stats.guard_evals), field_evals_(stats.rhs_evals) {}
  ~Uncounted() {
    stats_.guard_evals = guard_evals_;
    stats_.rhs_evals = field_evals_;
  }
  Uncounted(const Uncounted&) = delete;
  Uncounted& operator=(const Uncounted&) = delete;

 private:
  RunStatistics& stats_;
  std::int64_t guard_evals_, field_evals_;
};

// Forwards everything to the caller's observer (if any) and keeps the last sample: where a
// failed run stood.
template <class S>
class LastSample final : public Observer<S> {
 public:
  explicit LastSample(std::size_t n) : x(n) {}
  void forward_to(Observer<S>* observer) {
    next_ = observer;
    seen = false;
  }
  void on_start(const Model<S>& model, const SimulationOptions& options) override {
    if (next_) next_->on_start(model, options);
  }
  void on_sample(S t_sample, int mode_sample, std::span<const S> x_sample) override {
    t = t_sample;
    mode = mode_sample;
    std::copy(x_sample.begin(), x_sample.end(), x.begin());
    seen = true;
    if (next_) next_->on_sample(t_sample, mode_sample, x_sample);
  }
  void on_event(const EventRecord<S>& record) override {
    if (next_) next_->on_event(record);
  }
  void on_step(S t_step, S h, StepLimit limit) override {
    if (next_) next_->on_step(t_step, h, limit);
  }
  void on_finish(const RunResult<S>& result) override {
    if (next_) next_->on_finish(result);
  }

  S t = S(0);
  int mode = -1;
  std::vector<S> x;
  bool seen = false;

 private:
  Observer<S>* next_ = nullptr;
};

// What an engine does after an event, decided by the chain and the Zeno policy.
template <class S>
struct AfterEvent {
  enum class Next {
    kGoOn,          // in `mode` from (t, x) at the event
    kStop,          // Zeno without a continuation: the run ends at the event, in `mode`
    kContinueZeno,  // at the accumulation point t = t_inf, in the continuation mode: start afresh
    kStopped,       // a transition with Transition::stop was taken: the run ends at the event, in `mode`
  };
  Next next = Next::kGoOn;
  // The mode the chain entered, its state x+, f there when the chain computed it, and the
  // sliding surface of a sliding arrival.
  typename TransitionChain<S>::Arrival arrival;
  // kContinueZeno: the accumulation point t_inf, the continuation's mode and state there.
  S t_zeno = S(0);
  int zeno_mode = -1;
  const S* zeno_x = nullptr;
  TransitionClass last_kind = TransitionClass::kInterior;  // class of the last mode visited
  bool repeated = false;   // at the same time as the previous event
  bool pinnacle = false;   // the chain visited a pinnacle
};

template <class S>
class RunLedger {
 public:
  // The model and *stats outlive the ledger.
  RunLedger(const Model<S>& model, const SimulationOptions& options, const ExactOptions<S>& exact,
            RunStatistics* stats)
      : model_(model),
        options_(options),
        stats_(*stats),
        detector_(model, &stats->guard_evals, &stats->rhs_evals),
        chain_(model, options.chain_limit, &detector_, &stats->rhs_evals),
        emitter_(model, options, &chain_, stats),
        zeno_(model, options, exact, &emitter_),
        last_(model.state_size()) {}

  // A run begins: counters at 0, no event yet, no Zeno; everything goes to `observer` (may be
  // null). started(): the engine stands at t0, the observer hears on_start.
  void begin(Observer<S>* observer) {
    stats_ = RunStatistics{};
    warnings_.clear();
    last_.forward_to(observer);
    emitter_.reset(&last_);
    detector_.disarm();
    zeno_.reset();
    stopped_by_ = {};
  }
  void started() { last_.on_start(model_, options_); }

  TransitionDetector<S>& detector() { return detector_; }
  bool stopped() const { return !stopped_by_.empty(); }  // an event took a transition that stops the run
  RunStatistics& stats() { return stats_; }
  Observer<S>& observer() { return last_; }
  std::int64_t* field_evals() { return &stats_.rhs_evals; }

  void sample(S t, int mode, const S* x) { last_.on_sample(t, mode, std::span<const S>(x, model_.state_size())); }

  // Whether x satisfies `mode` literally (none of its guards fires): the one-sided test of
  // 004, measured at every event, not counted.
  bool satisfies(int mode, S t, const S* x) {
    const Uncounted measuring(stats_);
    return detector_.fired(mode, t, x, /*literal=*/true) < 0;
  }

  // t0: the transition that fires at (t, x) in `mode`, f = f(t, x) there (a guard at 0 is read
  // by the sign of its rate along f); -1 when none does.
  int fires_at_start(int mode, S t, const S* x, const S* f) { return detector_.fired_after(mode, t, x, t, nullptr, f).index; }

  // recurse, record and zeno: transition `transition` of `mode` fired at t_a with pre-event
  // state x_a ((t_b, x_b) the far end of the bracket, x_b null when there is none); events
  // within `same_time` of the previous one count as at the same time; `resolution` is the
  // error of the run's event times near t_a (Zeno's tolerance).
  AfterEvent<S> event(int mode, int transition, S t_a, const S* x_a, S t_b, const S* x_b, bool one_sided,
                      S same_time, S resolution) {
    const EventOrigin origin{mode, transition};
    const auto outcome = emitter_.take(mode, transition, t_a, x_a, t_b, x_b, one_sided, same_time);
    AfterEvent<S> after{AfterEvent<S>::Next::kGoOn, outcome.arrival, S(0), -1, nullptr, outcome.last_kind,
                        outcome.repeated, outcome.pinnacle};
    if (!after.arrival.stop_by.empty()) {
      stopped_by_ = after.arrival.stop_by;
      after.next = AfterEvent<S>::Next::kStopped;
      return after;
    }
    switch (zeno_.observe(t_a, resolution, after.arrival.mode, after.arrival.x, outcome.pinnacle, origin)) {
      case ZenoPolicy<S>::Verdict::kNone: break;
      case ZenoPolicy<S>::Verdict::kStop: after.next = AfterEvent<S>::Next::kStop; break;
      case ZenoPolicy<S>::Verdict::kContinue:
        after.next = AfterEvent<S>::Next::kContinueZeno;
        after.t_zeno = zeno_.t_zeno();
        after.zeno_mode = zeno_.continuation_mode();
        after.zeno_x = zeno_.continuation_state();
        break;
    }
    return after;
  }

  // One mode change decided outside a chain (the end of a sliding motion): one row.
  void direct(int from, int to, std::string_view guard, S t_a, S t_b, const S* x_pre, const S* x_post, bool one_sided) {
    emitter_.take_direct(from, to, TransitionClass::kInterior, guard, t_a, t_b, x_pre, x_post, model_.state_size(),
                         one_sided);
  }

  // A warning of this run: to the log now (level warn, on by default), and into the result.
  void warn(std::string message) {
    HYSIM_LOG_WARN("{}", message);
    warnings_.push_back(std::move(message));
  }

  // The run ends at (t, mode, x) for `reason`; `detail` follows the event count in the message.
  RunResult<S> result(RunReason reason, S t, int mode, const S* x, const std::string& detail = "") const {
    RunResult<S> result = outcome(reason, t, mode, std::vector<S>(x, x + model_.state_size()));
    const std::string by = reason == RunReason::kStopped ? " (transition '" + std::string(stopped_by_) + "' stops the run)" : "";
    result.message = result_message(result, model_, by + detail);
    return result;
  }

  // A run that cannot go on: at the last point passed to the observer, with the error's message.
  RunResult<S> failed(const SimulationError& error) const {
    RunResult<S> result = last_.seen ? outcome(RunReason::kFailed, last_.t, last_.mode, last_.x)
                                     : outcome(RunReason::kFailed, model_.t0, model_.initial_mode, model_.x0);
    result.message = error.what();
    return result;
  }

  // The run's result goes to the observer (Simulator::run; a peer run on its own does not).
  void finish(const RunResult<S>& result) { last_.on_finish(result); }

 private:
  RunResult<S> outcome(RunReason reason, S t, int mode, std::vector<S> x) const {
    RunResult<S> result;
    result.reason = reason;
    result.t = t;
    result.mode = mode;
    result.x = std::move(x);
    result.stats = stats_;
    result.zeno_detected = zeno_.detected();
    result.zeno_of_pinnacles = zeno_.of_pinnacles();
    result.t_zeno = zeno_.t_zeno();
    result.warnings = warnings_;
    return result;
  }

  const Model<S>& model_;
  const SimulationOptions& options_;
  RunStatistics& stats_;
  TransitionDetector<S> detector_;
  TransitionChain<S> chain_;
  EventEmitter<S> emitter_;
  ZenoPolicy<S> zeno_;
  LastSample<S> last_;
  std::vector<std::string> warnings_;
  std::string_view stopped_by_;  // the transition that stopped the run (RunReason::kStopped)
};

}  // namespace hysim
