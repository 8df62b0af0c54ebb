// Engines: what integrates a run and finds its events. A strategy (events/strategy.hpp) is a
// policy for an engine's loop; an engine is the loop itself, with its integrator:
//
//   hysim        the simulator's own loop (simulator.hpp): a solver of solver_catalog(), and
//                the chosen strategy's policy at each step
//   cvode        SUNDIALS CVODE with its own rootfinding (peers/cvode.hpp), BDF or Adams;
//   cvode-adams  registered by register_peers() when the build has it
//
// Every engine records into the same ledger (events/ledger.hpp): the chain at t0, the chain
// at each event, the Zeno policy, the counters and the result, so that runs compare on equal
// terms. Each strategy's catalog entry names its engine (StrategyInfo::engine); the simulator
// makes that engine, and the command line names strategies only.
#pragma once

#include <atomic>
#include <deque>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <type_traits>

#include "hysim/core/model.hpp"
#include "hysim/core/scalar.hpp"
#include "hysim/events/strategy.hpp"
#include "hysim/run/exact_options.hpp"
#include "hysim/run/options.hpp"
#include "hysim/run/result.hpp"

namespace hysim {

// The ledger of a run (events/ledger.hpp, private to the engines' own sources).
template <class S>
class RunLedger;

template <class S>
class Engine {
 public:
  virtual ~Engine() = default;
  // Runs from (model.t0, model.x0) to t_end into the ledger (begun by the caller) and returns
  // the ledger's result. Polls *stop (when not null) between its steps and ends with
  // RunReason::kInterrupted once it is set. Throws SimulationError when the run cannot go on.
  virtual RunResult<S> run(const std::atomic<bool>* stop) = 0;
  // Whether the engine's steps are chosen by an error control (not a fixed step).
  virtual bool adaptive() const { return true; }
};

// What an engine is made from; everything outlives the engine.
template <class S>
struct EngineSetup {
  const Model<S>& model;
  const SimulationOptions& options;
  const ExactOptions<S>& exact;
  const EventStrategy<S>* strategy;  // the policy; null for an engine that brings its own
  RunLedger<S>& ledger;
  const std::string& strategy_name;  // as chosen, for the messages
};

template <class S>
using EngineFactory = std::function<std::unique_ptr<Engine<S>>(const EngineSetup<S>&)>;

struct EngineInfo {
  std::string name;
  // One factory per scalar type; an engine that does not run in a type leaves it empty.
  EngineFactory<double> make_double;
  EngineFactory<long double> make_long_double;
  EngineFactory<float128> make_float128;
  // Whether it brings its own integrator (the options' solver is not used).
  bool own_integrator = false;

  template <class S>
  const EngineFactory<S>& factory() const {
    if constexpr (std::is_same_v<S, double>) {
      return make_double;
    } else if constexpr (std::is_same_v<S, long double>) {
      return make_long_double;
    } else {
      return make_float128;
    }
  }
};

// Every engine: the simulator's own loop (registered by the simulator), then the peers'.
const std::deque<EngineInfo>& engine_catalog();

// Adds an engine. Throws InvalidArgument if the name is empty or taken. Idempotent callers
// register once (std::call_once), before running simulations on other threads.
void register_engine(EngineInfo info);

// The engine with this name; throws InvalidArgument listing the known names otherwise.
const EngineInfo& find_engine(std::string_view name);

}  // namespace hysim
