// The simulator of hysim/simulator.hpp: checks the options, makes the chosen strategy's
// policy and its engine (events/engine.hpp; the simulator's own loop is loop_engine.cpp),
// and runs the engine into the run's ledger (events/ledger.hpp).
#include "hysim/simulator.hpp"

#include <mutex>
#include <type_traits>

#include "hysim/core/errors.hpp"
#include "hysim/events/engine.hpp"
#include "hysim/events/ledger.hpp"
#include "hysim/loop_engine.hpp"
#include "hysim/run/exact_options.hpp"
#include "hysim/solvers/stepper.hpp"

namespace hysim {

namespace {

SimulationOptions validated(SimulationOptions options) {
  options.validate();
  return options;
}

// The chosen strategy, its settings and its own options checked.
const StrategyInfo& checked_strategy(const SimulationOptions& options, const StrategySettings& settings) {
  const StrategyInfo& info = find_strategy(options.strategy);
  info.check(options, settings);
  return info;
}

// The engine a strategy runs on; the simulator's own loop is in the catalog from the first use.
const EngineInfo& engine_of(const StrategyInfo& strategy) {
  static std::once_flag once;
  std::call_once(once, [] { register_engine(loop_engine_info()); });
  return find_engine(strategy.engine);
}

// The solver catalog names every solver: one that is not in it is refused, also where the
// engine brings its own integrator and does not use it.
void check_solver(const std::string& name) {
  std::string known;
  for (const auto& info : solver_catalog()) {
    if (info.name == name) return;
    known += (known.empty() ? "" : ", ") + info.name;
  }
  throw InvalidArgument("unknown solver '" + name + "' (known: " + known + ")");
}

// The model as Model::finalize leaves it (every target resolved, x0 sized, the initial mode
// valid); a ModelError otherwise, before anything reads it.
template <class S>
const Model<S>& finalized(const Model<S>& model) {
  const auto modes = static_cast<int>(model.modes.size());
  bool ok = modes > 0 && model.x0.size() == model.state_size() && model.initial_mode >= 0 && model.initial_mode < modes;
  for (const Mode<S>& mode : model.modes) {
    for (const Transition<S>& tr : mode.transitions) ok = ok && tr.target >= 0 && tr.target < modes;
  }
  if (!ok) {
    throw ModelError("model '" + model.name + "' is not finalized: call Model::finalize() after adding its modes, "
                     "transitions and initial state");
  }
  return model;
}

}  // namespace

template <class S>
class Simulator<S>::Impl {
 public:
  Impl(const Model<S>& model, SimulationOptions options, StrategySettings settings)
      : model_(finalized(model)),
        options_(validated(std::move(options))),
        settings_(std::move(settings)),
        exact_(exact_options<S>(options_, model.state_names, model.state_atol)),
        info_(checked_strategy(options_, settings_)),
        strategy_(info_.is_driver() ? nullptr : info_.make<S>(StrategyTuning(options_, settings_, info_.options))),
        ledger_(model, options_, exact_, &stats_) {
    check_solver(options_.solver);
    const EngineInfo& engine = engine_of(info_);
    const bool in_double = std::is_same_v<S, double>;
    if (!engine.factory<S>()) {  // with the message of check_against_horizon for a driver
      check_against_horizon<S>(options_, exact_, model.t0, RunShape{true, info_.name, in_double});
      throw InvalidArgument("strategy " + info_.name + " does not run in this scalar type");
    }
    engine_ = engine.factory<S>()(EngineSetup<S>{model, options_, exact_, strategy_.get(), ledger_, info_.name});
    check_against_horizon<S>(options_, exact_, model.t0,
                             RunShape{engine_->adaptive(), info_.is_driver() ? info_.name : std::string(), in_double});
    if (strategy_) strategy_->check_horizon(model.t0, exact_.t_end);
  }

  // A run that cannot go on ends with RunReason::kFailed and the error's message, at the last
  // point passed to the observer; everything before it has been passed on.
  RunResult<S> run(Observer<S>* observer) {
    ledger_.begin(observer);
    RunResult<S> result;
    try {
      result = engine_->run(stop_);
    } catch (const SimulationError& error) {
      result = ledger_.failed(error);
    }
    ledger_.finish(result);
    return result;
  }

  const RunStatistics& statistics() const { return stats_; }
  void stop_when(const std::atomic<bool>* flag) { stop_ = flag; }

 private:
  const Model<S>& model_;
  SimulationOptions options_;
  StrategySettings settings_;
  const ExactOptions<S> exact_;  // computed once, read by every part of the run
  const StrategyInfo& info_;
  std::unique_ptr<EventStrategy<S>> strategy_;  // null for a peer's engine
  RunStatistics stats_;
  RunLedger<S> ledger_;
  std::unique_ptr<Engine<S>> engine_;
  const std::atomic<bool>* stop_ = nullptr;  // stop_when
};

template <class S>
Simulator<S>::Simulator(const Model<S>& model, SimulationOptions options)
    : Simulator(model, std::move(options), StrategySettings{}) {}

template <class S>
Simulator<S>::Simulator(const Model<S>& model, SimulationOptions options, StrategySettings settings)
    : impl_(std::make_unique<Impl>(model, std::move(options), std::move(settings))) {}

template <class S>
Simulator<S>::~Simulator() = default;

template <class S>
RunResult<S> Simulator<S>::run(Observer<S>* observer) {
  return impl_->run(observer);
}

template <class S>
const RunStatistics& Simulator<S>::statistics() const {
  return impl_->statistics();
}

template <class S>
void Simulator<S>::stop_when(const std::atomic<bool>* flag) {
  impl_->stop_when(flag);
}

template class Simulator<double>;
template class Simulator<long double>;
template class Simulator<float128>;

}  // namespace hysim
