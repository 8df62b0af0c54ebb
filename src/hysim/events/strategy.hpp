// Event-detection strategies: how a run finds the time of an event and which side of the
// switching surface it continues from (DESIGN.md section 4; 004, sections 8-9).
//
// A strategy is a policy the simulator's loop consults at three points of each step, as
// Boost.Odeint's controlled stepper consults its error checker and Drake's simulator its
// witness functions; the loop itself names no strategy:
//
//   limit    limit_step(proposal, outlook): may shorten the step the integrator proposes
//            (the gamma rule of 004 caps it at gamma times the predicted time to the nearest
//            approaching guard). On a sliding surface limit_sliding_step does the same for
//            the motion's exit. A chattering mode steps at time_resolution(t).
//   detect   interior_samples(): how many equally spaced interior points of each step's
//            dense output are checked before its end (0: the end only).
//   decide   on_crossing(step): a guard fired in the step just taken. Switch at the step's
//            end; take the step back and retry a shorter one; switch at the step's start; or
//            locate the crossing on the dense output with a root finder to a tolerance, and
//            continue from the pre-event end of the bracket (one-sided, 004) or the
//            post-event end (Ptolemy II). on_sliding_exit decides the same for the end of a
//            sliding motion.
//
// Every strategy runs on the same integrator, guards and transition chain and reports the
// same statistics, so that they can be compared on equal terms (`hysim compare`). The
// catalog (strategy_catalog) holds the built-in ones (events/strategies/, one file each,
// with their sources; docs/strategies.md) and any a program registers (register_strategy).
// A catalog entry may instead be a driver: a run of its own with another integrator (the
// CVODE peer, peers/cvode.hpp), which replaces the loop altogether.
#pragma once

#include <atomic>
#include <deque>
#include <functional>
#include <limits>
#include <memory>
#include <string>
#include <string_view>

#include "hysim/core/model.hpp"
#include "hysim/core/scalar.hpp"
#include "hysim/events/location.hpp"
#include "hysim/run/observer.hpp"
#include "hysim/run/options.hpp"
#include "hysim/run/result.hpp"

namespace hysim {

// The length of the next step and what limited it (the step log's `limit`).
template <class S>
struct StepProposal {
  S h = S(0);
  StepLimit limit = StepLimit::kIntegrator;

  // Shortens the step to `bound` when that is shorter, naming the reason.
  void cap(const S& bound, StepLimit why) {
    if (bound < h) {
      h = bound;
      limit = why;
    }
  }
};

// What the loop can predict about the coming step, computed only when a strategy asks (each
// answer costs guard or field evaluations, which are counted).
template <class S>
class Outlook {
 public:
  virtual ~Outlook() = default;
  virtual S t() const = 0;
  // The smallest step at t: options.min_step, and never below 16 eps max(|t|, 1).
  virtual S min_step() const = 0;
  // 004, Algorithms 1-3: the predicted time until a guard of the current mode fires, were
  // every event function to move on linearly at its present rate; infinity when none approaches.
  virtual S time_to_guard() = 0;
  // On a sliding surface: the predicted time until the motion's exit (the first root of a
  // second-order prediction of the two rates; events/sliding.hpp).
  virtual S time_to_sliding_exit() = 0;
};

// A step [t, t + h] in which a guard fired, as the strategy decides about it.
template <class S>
struct CrossedStep {
  S t = S(0);       // its start
  S h = S(0);       // its length
  StepLimit limit;  // what limited it
};

// What to do with a step in which a guard fired (or a sliding motion ended).
template <class S>
struct CrossingDecision {
  enum class Action {
    kSwitchAtEnd,    // no location: switch at the step's end, on the post-event side
    kRetry,          // take the step back; try again from its start with h_retry
    kSwitchAtStart,  // switch at the step's start, on the pre-event side ([t, t + h] the bracket)
    kLocate,         // locate the crossing on the dense output, then switch
  };
  enum class Side { kPreEvent, kPostEvent };  // kLocate: continue from t_a or from t_b

  Action action = Action::kLocate;
  S h_retry = S(0);                     // kRetry
  Locator locator = Locator::kBisection;  // kLocate
  Side side = Side::kPreEvent;          // kLocate
  S tolerance = S(-1);                  // kLocate: final bracket width; < 0: options.event_tolerance

  static CrossingDecision switch_at_end() { return {Action::kSwitchAtEnd}; }
  static CrossingDecision retry(S h) { return {Action::kRetry, h}; }
  static CrossingDecision switch_at_start() { return {Action::kSwitchAtStart}; }
  static CrossingDecision locate(Locator locator, Side side = Side::kPreEvent, S tolerance = S(-1)) {
    return {Action::kLocate, S(0), locator, side, tolerance};
  }
};

template <class S>
class EventStrategy {
 public:
  virtual ~EventStrategy() = default;

  // limit: in a mode. Default: the integrator's proposal stands.
  virtual void limit_step(StepProposal<S>& /*proposal*/, Outlook<S>& /*outlook*/) const {}
  // limit: on a sliding surface. A sliding motion is often integrated exactly (its field
  // constant), so the error control lets its steps grow without bound, and a step may hold
  // both the exit and the return of an excursion (the cam follower's separation, 58 to 122
  // degrees, inside one step of 0.31 s with rosenbrock4): neither end sees it. Default: at
  // most kSlidingExitReach times the predicted time to the exit (SlidingMotion::exit_time, a
  // quadratic prediction of the rates), < 2 so that one step cannot hold both roots of a
  // locally quadratic rate; the minimum step at least.
  static constexpr double kSlidingExitReach = 1.5;
  virtual void limit_sliding_step(StepProposal<S>& proposal, Outlook<S>& outlook) const {
    proposal.cap(std::max<S>(S(kSlidingExitReach) * outlook.time_to_sliding_exit(), outlook.min_step()),
                 StepLimit::kGamma);
  }

  // The error of this strategy's event times near t (Zeno's tolerance), and the step of a
  // mode that chatters. Default: the minimum step, a few ulps of t.
  virtual S time_resolution(const S& /*t*/, const S& min_step) const { return min_step; }

  // detect: interior points of each step checked before its end. Default: none.
  virtual int interior_samples() const { return 0; }

  // decide: a guard fired in `step`.
  virtual CrossingDecision<S> on_crossing(const CrossedStep<S>& step) const = 0;

  // decide: a sliding motion ended within `step`. Default: bisection on the motion's status,
  // one-sided (an exit found early would slide again at once).
  virtual CrossingDecision<S> on_sliding_exit(const CrossedStep<S>& /*step*/) const {
    return CrossingDecision<S>::locate(Locator::kBisection);
  }
};

// Makes a strategy for a run in scalar type S from the run's options.
template <class S>
using StrategyFactory = std::function<std::unique_ptr<EventStrategy<S>>(const SimulationOptions&)>;

// A run of its own (a peer with its own integrator and root finder), in double: passes
// samples, events and steps to the observer as the simulator does, fills *stats as it goes,
// and returns the result (a failed run: RunReason::kFailed with the message). It polls *stop
// (when not null; Simulator::stop_when) between its steps and ends with RunReason::kInterrupted
// once it is set.
using StrategyDriver = std::function<RunResult<double>(const Model<double>&, const SimulationOptions&,
                                                       Observer<double>*, RunStatistics*, const std::atomic<bool>* stop)>;

struct StrategyInfo {
  std::string name;         // as given to --strategy
  std::string description;  // one line
  std::string source;       // where the method comes from
  // A policy for the simulator's loop, one factory per scalar type...
  StrategyFactory<double> make_double;
  StrategyFactory<long double> make_long_double;
  StrategyFactory<float128> make_float128;
  // ...or a driver that replaces the loop (double only), with the integrator it brings, as
  // tables name it in place of the solver (e.g. "cvode/BDF").
  StrategyDriver driver;
  std::string driver_solver;

  bool is_driver() const { return static_cast<bool>(driver); }
  template <class S>
  std::unique_ptr<EventStrategy<S>> make(const SimulationOptions& options) const;
};

// The entry for a strategy written as a class template Policy<S> constructible from the
// run's options: the same policy in each scalar type.
template <template <class> class Policy>
StrategyInfo strategy_entry(std::string name, std::string description, std::string source) {
  StrategyInfo info{std::move(name), std::move(description), std::move(source), {}, {}, {}, {}, {}};
  info.make_double = [](const SimulationOptions& o) { return std::make_unique<Policy<double>>(o); };
  info.make_long_double = [](const SimulationOptions& o) { return std::make_unique<Policy<long double>>(o); };
  info.make_float128 = [](const SimulationOptions& o) { return std::make_unique<Policy<float128>>(o); };
  return info;
}

// Every strategy, built-in ones first in the order tables list them, then registered ones.
// References stay valid as strategies are added.
const std::deque<StrategyInfo>& strategy_catalog();

// Adds a strategy to the catalog (a program's own, or a peer). Throws InvalidArgument if the
// name is empty or taken. Register before running simulations on other threads.
void register_strategy(StrategyInfo info);

// The strategy with this name; throws InvalidArgument listing the known names otherwise.
const StrategyInfo& find_strategy(std::string_view name);

template <class S>
std::unique_ptr<EventStrategy<S>> StrategyInfo::make(const SimulationOptions& options) const {
  if constexpr (std::is_same_v<S, double>) {
    return make_double(options);
  } else if constexpr (std::is_same_v<S, long double>) {
    return make_long_double(options);
  } else {
    return make_float128(options);
  }
}

}  // namespace hysim
