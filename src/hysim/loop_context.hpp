// Where the simulator's own loop (loop_engine.cpp) stands, shared by its phases: the run's
// time t and mode a, the integrator at (t, x), the guards, the ledger and work space; and the
// samples written at the end of each step (StepOutput).
#pragma once

#include <algorithm>
#include <atomic>
#include <cmath>
#include <limits>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "hysim/core/model.hpp"
#include "hysim/core/scalar.hpp"
#include "hysim/events/engine.hpp"
#include "hysim/events/ledger.hpp"
#include "hysim/events/sliding.hpp"
#include "hysim/events/strategy.hpp"
#include "hysim/run/exact_options.hpp"
#include "hysim/solvers/stepper.hpp"

namespace hysim {

// How the loop goes on after a phase, returned by it as a value.
template <class S>
struct Resume {
  enum class Kind {
    kStep,        // with the integrator's next proposal
    kChatter,     // the next step is at the strategy's time resolution (a chattering mode)
    kFreshStart,  // a Zeno continuation restarted the run at t_inf: the first step is estimated afresh
    kZenoStop,    // Zeno declared without a continuation: the run ends
    kStopped,     // a transition with Transition::stop was taken: the run ends
  };
  Kind kind = Kind::kStep;
  S step_cap = S(0);  // > 0: the next step is at most this long (after an impact)
};

template <class S>
struct LoopContext {
  explicit LoopContext(const EngineSetup<S>& setup)
      : model(setup.model),
        options(setup.options),
        exact(setup.exact),
        strategy(*setup.strategy),
        ledger(setup.ledger),
        detector(setup.ledger.detector()),
        n(setup.model.state_size()),
        tolerances{setup.exact.rtol, setup.exact.atol, setup.exact.atols},
        linear_solver(linear_solver_from_name(setup.options.linear_solver)),
        stepper(make_stepper<S>(setup.options.solver, n, tolerances)),
        sliding(setup.model, &setup.ledger.detector(), setup.ledger.field_evals()),
        x_a(n), x_b(n), x_mid(n), scratch(n) {
    stepper->use_jacobian_pattern(model.jacobian_pattern, linear_solver);
  }

  const Model<S>& model;
  const SimulationOptions& options;
  const ExactOptions<S>& exact;
  const EventStrategy<S>& strategy;
  RunLedger<S>& ledger;
  TransitionDetector<S>& detector;
  std::size_t n;
  StepperTolerances<S> tolerances;  // rtol and the absolute tolerance of each state
  LinearSolver linear_solver;  // of the implicit steppers
  std::unique_ptr<Stepper<S>> stepper;
  SlidingMotion<S> sliding;  // the equivalent dynamics on a sliding surface, when active
  S t = S(0);    // the run's time: the end of the last step taken, or of the last event
  int mode = 0;  // the mode a the run is in
  std::vector<S> x_a, x_b, x_mid, scratch;  // the bracket's ends, a trial point, work space
  const std::atomic<bool>* stop = nullptr;

  // f_a with its evaluations counted.
  Rhs<S> rhs_of(int m) { return Rhs<S>{&model.modes[static_cast<std::size_t>(m)].field, ledger.field_evals()}; }
  // The integrator starts afresh at (t, x) in the current mode (f there when known).
  void restart(S t_at, const S* x, const S* dxdt = nullptr) {
    use_model_pattern(true);
    stepper->restart(rhs_of(mode), t_at, x, dxdt);
  }
  // ... or on the sliding surface, with the equivalent field: it reads the states of the
  // surface's gradient in every component, outside the model's Jacobian pattern, so the
  // implicit steppers take every entry of J while it slides.
  void restart_sliding(S t_at, const S* x) {
    use_model_pattern(false);
    stepper->restart(Rhs<S>{&sliding.field(), ledger.field_evals()}, t_at, x, nullptr);
  }

  void sample(S t_at, const S* x) { ledger.sample(t_at, mode, x); }
  // The stepper takes the model's Jacobian pattern (true) or none (false), when that changes.
  void use_model_pattern(bool model_field) {
    if (!model.jacobian_pattern || model_field == model_pattern_in_use) return;
    stepper->use_jacobian_pattern(model_field ? model.jacobian_pattern : nullptr, linear_solver);
    model_pattern_in_use = model_field;
  }
  bool model_pattern_in_use = true;

  const std::string& mode_name() const { return model.modes[static_cast<std::size_t>(mode)].name; }
  bool stop_requested() const { return stop != nullptr && stop->load(std::memory_order_relaxed); }

  // The smallest step before the run fails: min_step, and never below 16 eps max(|t|, 1)
  // (about 16 ulps of t for |t| >= 1).
  S min_step(S t_at) const {
    using std::abs;
    return std::max<S>(exact.min_step, S(16) * machine_epsilon<S>() * std::max<S>(abs(t_at), S(1)));
  }
  // The error of this run's event times near t (Zeno's tolerance; a chattering mode's step).
  S time_resolution(S t_at) const { return strategy.time_resolution(t_at, min_step(t_at)); }

  // The final width of a location bracket: the strategy's, or options.event_tolerance.
  S bracket_width(const CrossingDecision<S>& decision) const {
    return decision.tolerance >= S(0) ? decision.tolerance : exact.event_tolerance;
  }

  // The states at the step's start and end into x_a, x_b.
  void keep_step_ends() {
    std::copy(stepper->x_previous(), stepper->x_previous() + n, x_a.begin());
    std::copy(stepper->x_current(), stepper->x_current() + n, x_b.begin());
  }
  // The step is given back: the integrator restarts at its start.
  void take_back() {
    std::copy(stepper->x_previous(), stepper->x_previous() + n, x_a.begin());
    restart(t, x_a.data());
  }
};

// The observer's samples and step log: each step [t, t_end_of_step] is logged, and with
// output_step the grid points t0 + k output_step strictly inside it (with output_times, those
// times) are sampled from its dense output, in the mode it was taken in; else each step's end
// is sampled.
template <class S>
class StepOutput {
 public:
  explicit StepOutput(LoopContext<S>& run) : run_(run), x_grid_(run.n) {}

  void reset() {
    grid_step_ = run_.exact.output_step;
    next_grid_ = 1;
    gridded_ = grid_step_ > S(0) || !run_.exact.output_times.empty();
  }

  void step_done(S t_end_of_step, StepLimit limit) {
    run_.ledger.observer().on_step(run_.t, t_end_of_step - run_.t, limit);
    if (!gridded_) return;
    for (S g = grid_point(next_grid_); g < t_end_of_step; g = grid_point(++next_grid_)) {
      if (g <= run_.t) continue;  // at or before the step's start: already written (an event side)
      run_.stepper->interpolate(g, x_grid_.data());
      run_.sample(g, x_grid_.data());
    }
  }

  // A step end is sampled at the solver's step ends, or with output_step when it is a grid
  // point (then the next point is due) or the run's end.
  bool samples_step_end(S t) {
    if (!gridded_) return true;
    if (t == grid_point(next_grid_)) {
      ++next_grid_;
      return true;
    }
    return t >= run_.exact.t_end;
  }

  // The step ends without an event: the run moves to its end.
  void advance(StepLimit limit) {
    step_done(run_.stepper->t_current(), limit);
    run_.t = run_.stepper->t_current();
    if (samples_step_end(run_.t)) run_.sample(run_.t, run_.stepper->x_current());
  }

 private:
  // t0 + k output_step, computed from k (no accumulated rounding); or the k-th of the given
  // output times (infinity past the last).
  S grid_point(std::int64_t k) const {
    const auto& times = run_.exact.output_times;
    if (times.empty()) return run_.model.t0 + S(k) * grid_step_;
    const auto i = static_cast<std::size_t>(k - 1);
    return i < times.size() ? times[i] : std::numeric_limits<S>::infinity();
  }

  LoopContext<S>& run_;
  std::vector<S> x_grid_;
  S grid_step_ = S(0);
  bool gridded_ = false;  // output_step or output_times: samples on those points, not at step ends
  std::int64_t next_grid_ = 1;
};

}  // namespace hysim
