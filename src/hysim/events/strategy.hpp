// Event-detection strategies: how a run finds the time of an event and which side of the
// switching surface it continues from (ISMA 2024, sections 8-9: the gamma rule and one-sided
// location).
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
// A strategy is no engine: each catalog entry names the engine that runs it (events/engine.hpp),
// the simulator's own loop for the policies here, or a peer with its own integrator and root
// finder (the CVODE peer, peers/cvode.hpp), whose entry holds no policy. Each entry carries
// its own options (StrategyOption) and their checks; only the chosen strategy's are read.
#pragma once

#include <deque>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

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

  // Before the run: throws InvalidArgument when the strategy's tuning cannot work over the
  // horizon [t0, t_end] (gamma: a least step below the resolution of t). Default: nothing.
  virtual void check_horizon(const S& /*t0*/, const S& /*t_end*/) const {}

  // detect: interior points of each step checked before its end. Default: none.
  virtual int interior_samples() const { return 0; }

  // detect: whether each step is proved by interval enclosures instead (events/certifier.hpp;
  // the strategy certified), with the certifier's depth and strictness. Default: not.
  struct Certification {
    bool on = false;
    int max_depth = 0;
    bool strict = true;
    int level = 1;  // 1: the dense output; 2: the exact flow from each step's start
  };
  virtual Certification certification() const { return {}; }

  // decide: a guard fired in `step`.
  virtual CrossingDecision<S> on_crossing(const CrossedStep<S>& step) const = 0;

  // decide: a sliding motion ended within `step`. Default: bisection on the motion's status,
  // one-sided (an exit found early would slide again at once).
  virtual CrossingDecision<S> on_sliding_exit(const CrossedStep<S>& /*step*/) const {
    return CrossingDecision<S>::locate(Locator::kBisection);
  }
};

// --- a strategy's own options -----------------------------------------------------------------

// One option of a strategy's tuning, described once as run/option_table.hpp describes the
// run's: its name (the JSON key; --name with '-' for '_' on the command line), unit, help and
// default. The built-in strategies' options are fields of SimulationOptions (their rows here
// are read off option_table()); a registered strategy's own are set per run by name
// (StrategySettings).
struct StrategyOption {
  std::string name;
  std::string unit;  // "s" for times, "" otherwise
  std::string help;  // one line
  Decimal default_value{0.0};
};

// Values of a registered strategy's own options, by name; an option not set keeps its default.
// (An option that SimulationOptions holds is set there, not here.)
using StrategySettings = std::map<std::string, Decimal, std::less<>>;

// What a strategy reads when it is made or checked: the run's options, and its own options'
// values (SimulationOptions' field of that name for a built-in one, else the setting, else
// the default).
class StrategyTuning {
 public:
  StrategyTuning(const SimulationOptions& options, const StrategySettings& settings,
                 const std::vector<StrategyOption>& rows)
      : options_(options), settings_(settings), rows_(rows) {}
  const SimulationOptions& options() const { return options_; }
  // The value of the strategy's option `name`; InvalidArgument if it declares none.
  Decimal number(std::string_view name) const;

 private:
  const SimulationOptions& options_;
  const StrategySettings& settings_;
  const std::vector<StrategyOption>& rows_;
};

// Throws InvalidArgument "option NAME = VALUE violates CONSTRAINT" unless `ok` (a strategy's
// validate(), in the words SimulationOptions::validate uses).
void require_option(bool ok, std::string_view name, const Decimal& value, std::string_view constraint);
// A real option at its text's own value (binary128), so that a text is not refused for its
// double ("0.99999999999999999999" rounds to 1).
inline float128 exact_value(const Decimal& x) { return x.to<float128>(); }

// Makes a strategy for a run in scalar type S from its tuning.
template <class S>
using StrategyFactory = std::function<std::unique_ptr<EventStrategy<S>>(const StrategyTuning&)>;

struct StrategyInfo {
  std::string name;         // as given to --strategy
  std::string description;  // one line
  std::string source;       // where the method comes from
  // A policy for the engine's loop, one factory per scalar type (none for a strategy that
  // is an engine of its own, as cvode)...
  StrategyFactory<double> make_double;
  StrategyFactory<long double> make_long_double;
  StrategyFactory<float128> make_float128;
  // ...its own options, and their checks (InvalidArgument naming the option; null: none).
  // Only the chosen strategy's options are checked and read.
  std::vector<StrategyOption> options;
  std::function<void(const StrategyTuning&)> validate;
  // The engine that runs it (engine_catalog(), events/engine.hpp): "hysim", the simulator's
  // own loop, or a peer's that brings its own integrator, which tables name in place of the
  // solver (driver_solver, e.g. "cvode/BDF").
  std::string engine = kOwnEngine;
  std::string driver_solver;
  // Taken only when named, not in "every strategy" (comparisons, benchmarks): it needs what
  // not every model offers (certified: the guards' interval enclosures).
  bool opt_in = false;

  static constexpr const char* kOwnEngine = "hysim";
  // Whether a peer's engine drives the run (no policy of the simulator's loop).
  bool is_driver() const { return engine != kOwnEngine; }
  template <class S>
  std::unique_ptr<EventStrategy<S>> make(const StrategyTuning& tuning) const;
  // Checks `settings` (each one an option of this strategy) and this strategy's options.
  void check(const SimulationOptions& options, const StrategySettings& settings) const;
};

// The row of option_table() named `name` as a strategy's option (its unit, help and the
// default of SimulationOptions): how the built-in strategies list the fields they read.
StrategyOption option_row(std::string_view name);

// The entry for a strategy written as a class template Policy<S>, constructible from its
// tuning (or, as before tunings, from the run's options): the same policy in each scalar type.
template <template <class> class Policy>
StrategyInfo strategy_entry(std::string name, std::string description, std::string source,
                            std::vector<StrategyOption> options = {},
                            std::function<void(const StrategyTuning&)> validate = {}) {
  StrategyInfo info;
  info.name = std::move(name);
  info.description = std::move(description);
  info.source = std::move(source);
  info.options = std::move(options);
  info.validate = std::move(validate);
  const auto factory = []<class S>(S) -> StrategyFactory<S> {
    return [](const StrategyTuning& tuning) -> std::unique_ptr<EventStrategy<S>> {
      if constexpr (std::is_constructible_v<Policy<S>, const StrategyTuning&>) {
        return std::make_unique<Policy<S>>(tuning);
      } else {
        return std::make_unique<Policy<S>>(tuning.options());
      }
    };
  };
  info.make_double = factory(0.0);
  info.make_long_double = factory(0.0L);
  info.make_float128 = factory(float128(0));
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
std::unique_ptr<EventStrategy<S>> StrategyInfo::make(const StrategyTuning& tuning) const {
  if constexpr (std::is_same_v<S, double>) {
    return make_double(tuning);
  } else if constexpr (std::is_same_v<S, long double>) {
    return make_long_double(tuning);
  } else {
    return make_float128(tuning);
  }
}

}  // namespace hysim
