// The real options a run reads, in its scalar type S, and every check that needs them there:
// against the horizon [t0, t_end] and the resolution of t over it, before the run starts.
#pragma once

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "hysim/core/errors.hpp"
#include "hysim/core/scalar.hpp"
#include "hysim/run/options.hpp"

namespace hysim {

// Each parsed once per run from its text (run/decimal.hpp), and passed down to every part
// of the run that reads it: a float128 run starts its grid, steps and ends at the times as
// typed, not at their doubles. (A strategy's own tuning is read by the strategy.)
template <class S>
struct ExactOptions {
  S t_end, rtol, atol, initial_step, max_step, min_step, fixed_step, event_tolerance, output_step;
  S zeno_ratio_tolerance, zeno_horizon;
  std::vector<S> atols;  // absolute tolerance per state when options give some (atol_states), else empty
  std::vector<S> output_times;  // SimulationOptions::output_times
};

template <class S>
std::vector<S> output_times_of(const SimulationOptions& o) {
  std::vector<S> times;
  times.reserve(o.output_times.size());
  for (const Decimal& t : o.output_times) times.push_back(t.template to<S>("option output_times"));
  return times;
}

template <class S>
ExactOptions<S> exact_options(const SimulationOptions& o) {
  return {o.t_end.to<S>("option t_end"),
          o.rtol.to<S>("option rtol"),
          o.atol.to<S>("option atol"),
          o.initial_step.to<S>("option initial_step"),
          o.max_step.to<S>("option max_step"),
          o.min_step.to<S>("option min_step"),
          o.fixed_step.to<S>("option fixed_step"),
          o.event_tolerance.to<S>("option event_tolerance"),
          o.output_step.to<S>("option output_step"),
          o.zeno_ratio_tolerance.to<S>("option zeno_ratio_tolerance"),
          o.zeno_horizon.to<S>("option zeno_horizon"),
          {},
          output_times_of<S>(o)};
}

// The same, with the absolute tolerances of single states laid out over the model's states:
// the options' (SimulationOptions::atol_states; a name that is not a state is an error listing
// them), else the model's own (model_atol, NaN where it gives none), else atol.
template <class S>
ExactOptions<S> exact_options(const SimulationOptions& o, const std::vector<std::string>& state_names,
                              const std::vector<S>& model_atol = {}) {
  ExactOptions<S> exact = exact_options<S>(o);
  if (o.atol_states.empty() && model_atol.empty()) return exact;
  exact.atols.assign(state_names.size(), exact.atol);
  for (std::size_t i = 0; i < model_atol.size() && i < exact.atols.size(); ++i) {
    if (model_atol[i] == model_atol[i]) exact.atols[i] = model_atol[i];
  }
  for (const auto& [name, value] : o.atol_states) {
    const auto found = std::find(state_names.begin(), state_names.end(), name);
    if (found == state_names.end()) {
      std::string states;
      for (const std::string& s : state_names) states += (states.empty() ? "" : ", ") + s;
      throw InvalidArgument("option atol: '" + name + "' is not a state of the model (its states: " + states + ")");
    }
    exact.atols[static_cast<std::size_t>(found - state_names.begin())] = value.template to<S>("option atol of " + name);
  }
  return exact;
}

// What the checks need to know of the run besides its options.
struct RunShape {
  bool adaptive = true;      // the solver controls its step (else: fixed_step)
  std::string driver;        // a strategy whose engine brings its own solver (cvode); empty: none
  bool in_double = true;     // S is double
};

// Throws InvalidArgument naming the option whose value the horizon [t0, t_end] or the
// resolution of t over it makes impossible: t_end not above t0; an event bracket as wide as the
// horizon, or narrower than one ulp of t at its end; more than 1e12 steps or 1e9 samples; a
// fixed step outside [min_step, max_step]; a driver asked for what it does not do. (The
// strategy checks its own tuning against the horizon: EventStrategy::check_horizon.)
template <class S>
void check_against_horizon(const SimulationOptions& options, const ExactOptions<S>& exact, const S& t0,
                           const RunShape& run) {
  using std::abs;
  constexpr double kMostSteps = 1e12, kMaxGridPoints = 1e9;
  if (!run.driver.empty() && (options.output_step > 0 || !options.output_times.empty())) {
    throw InvalidArgument(std::string("option ") + (options.output_step > 0 ? "output_step" : "output_times") +
                          " is not available with strategy " + run.driver +
                          " (it brings its own solver and its own output)");
  }
  if (!exact.output_times.empty() && (exact.output_times.front() < t0 || exact.output_times.back() > exact.t_end)) {
    throw InvalidArgument("option output_times: every time must lie in [t0, t_end] = [" + format_scalar(t0) + ", " +
                          options.t_end.str() + "]");
  }
  if (!run.driver.empty() && !run.in_double) {
    throw InvalidArgument("strategy " + run.driver + " runs in double only (it brings its own double-precision solver)");
  }
  if (!(exact.t_end > t0)) {
    throw InvalidArgument("option t_end = " + options.t_end.str() + " must exceed the model's t0 = " + format_scalar(t0));
  }
  const S exact_horizon = exact.t_end - t0;
  const double horizon = to_double(exact_horizon);
  if (options.output_step > 0 && horizon / options.output_step > kMaxGridPoints) {
    throw InvalidArgument("option output_step = " + options.output_step.str() + " would write more than " +
                          "1e9 samples over [t0, t_end]; choose a coarser grid");
  }
  if (!(exact.event_tolerance < exact_horizon)) {
    throw InvalidArgument("option event_tolerance = " + options.event_tolerance.str() +
                          " (the width of an event's location bracket) must be below t_end - t0 = " +
                          format_scalar(exact_horizon));
  }
  // A location bracket is at least one ulp of t wide: a positive event_tolerance below the
  // spacing of the times at the end of the horizon asks for what t cannot resolve there.
  const S t_far = std::max(abs(t0), abs(exact.t_end));
  const S spacing = next_up(t_far) - t_far;
  if (exact.event_tolerance > S(0) && exact.event_tolerance < spacing) {
    throw InvalidArgument("option event_tolerance = " + options.event_tolerance.str() +
                          " is below the time resolution " + format_scalar(spacing) + " (one ulp of t at " +
                          format_scalar(t_far) + "): no bracket can be that narrow (0: locate to one ulp)");
  }
  if (options.max_step > 0 && horizon / options.max_step > kMostSteps) {
    throw InvalidArgument("option max_step = " + options.max_step.str() + " would take more than 1e12 " +
                          "steps over t_end - t0 = " + format_scalar(horizon));
  }
  if (run.adaptive || !run.driver.empty()) return;
  if (horizon / options.fixed_step > kMostSteps) {
    throw InvalidArgument("option fixed_step = " + options.fixed_step.str() + " would take more than " +
                          "1e12 steps over t_end - t0 = " + format_scalar(horizon));
  }
  if (options.max_step > 0 && options.fixed_step > options.max_step) {
    throw InvalidArgument("option fixed_step = " + options.fixed_step.str() + " exceeds max_step = " +
                          options.max_step.str() + " (solver " + options.solver + " takes fixed steps)");
  }
  if (options.fixed_step < options.min_step) {
    throw InvalidArgument("option fixed_step = " + options.fixed_step.str() + " is below min_step = " +
                          options.min_step.str() + " (solver " + options.solver + " takes fixed steps)");
  }
}

}  // namespace hysim
