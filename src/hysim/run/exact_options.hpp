// The real options a run reads, in its scalar type S, and every check that needs them there:
// against the horizon [t0, t_end] and the resolution of t over it, before the run starts.
#pragma once

#include <algorithm>
#include <cmath>
#include <string>

#include "hysim/core/errors.hpp"
#include "hysim/core/scalar.hpp"
#include "hysim/run/options.hpp"

namespace hysim {

// Each parsed once from its text (run/decimal.hpp): a float128 run starts its grid, steps
// and ends at the times as typed, not at their doubles.
template <class S>
struct ExactOptions {
  S t_end, rtol, atol, initial_step, min_step, fixed_step, event_tolerance, output_step, h_min;
};

template <class S>
ExactOptions<S> exact_options(const SimulationOptions& o) {
  return {o.t_end.to<S>("option t_end"),
          o.rtol.to<S>("option rtol"),
          o.atol.to<S>("option atol"),
          o.initial_step.to<S>("option initial_step"),
          o.min_step.to<S>("option min_step"),
          o.fixed_step.to<S>("option fixed_step"),
          o.event_tolerance.to<S>("option event_tolerance"),
          o.output_step.to<S>("option output_step"),
          o.h_min.to<S>("option h_min")};
}

// What the checks need to know of the run besides its options.
struct RunShape {
  bool adaptive = true;      // the solver controls its step (else: fixed_step)
  std::string driver;        // a strategy that brings its own solver (cvode); empty: none
  bool in_double = true;     // S is double
  // The strategy's time resolution is h_min (gamma: its least step); other strategies do
  // not read h_min, so its value is not checked for them.
  bool uses_h_min = true;
  std::string strategy;      // its name, for the messages
};

// Throws InvalidArgument naming the option whose value the horizon [t0, t_end] or the
// resolution of t over it makes impossible: t_end not above t0; an event bracket as wide as the
// horizon, or narrower than one ulp of t at its end; more than 1e12 steps or 1e9 samples; a
// fixed step outside [min_step, max_step]; gamma's least step (h_min) below 16 ulps of t (it
// would not move t); a driver asked for what it does not do.
template <class S>
void check_against_horizon(const SimulationOptions& options, const ExactOptions<S>& exact, const S& t0,
                           const RunShape& run) {
  using std::abs;
  constexpr double kMostSteps = 1e12, kMaxGridPoints = 1e9;
  if (!run.driver.empty() && options.output_step > 0) {
    throw InvalidArgument("option output_step is not available with strategy " + run.driver +
                          " (it brings its own solver and its own output)");
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
  // The gamma strategy's least step (004, Algorithm 3) must move t: at least 16 ulps of it,
  // which grow with the horizon; the message names both options that meet here.
  const S resolution = S(16) * machine_epsilon<S>() * std::max({abs(t0), abs(exact.t_end), S(1)});
  if (run.uses_h_min && !(exact.h_min >= resolution)) {
    throw InvalidArgument("option h_min = " + options.h_min.str() + " is below the time resolution " +
                          format_scalar(resolution) + " of t at t_end = " + options.t_end.str() +
                          " (16 ulps): strategy " + run.strategy +
                          "'s least step would not move t; raise --h-min or shorten --t-end");
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
