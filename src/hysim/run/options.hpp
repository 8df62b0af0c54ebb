// The options of a run (core of the run vocabulary; see simulator.hpp for the algorithm they
// steer). A plain struct with documented defaults and one validate(); run/option_table.hpp
// describes each field once for the command line, JSON and the bindings.
#pragma once

#include <cstdint>
#include <string>

namespace hysim {

// Options of a run: a plain struct with documented defaults. Values are given in double and
// converted to the run's scalar type.
struct SimulationOptions {
  double t_end = 1.0;            // [s] end of the run; the run covers [t0, t_end]
  std::string solver = "dopri5";  // a name from solver_catalog()
  std::string strategy = "gamma-refine";  // a name from strategy_catalog() (events/strategy.hpp);
                                         //     the default: exact, one-sided, grazing-safe, cheapest
  double rtol = 1e-6;            // relative tolerance of adaptive solvers
  double atol = 1e-9;            // absolute tolerance of adaptive solvers
  double initial_step = 0.0;     // [s] first step; 0: Hairer & Wanner's starting-step estimate
  double max_step = 0.0;         // [s] largest step; 0: unlimited (only t_end - t)
  double min_step = 0.0;         // [s] smallest step an adaptive solver may shrink to before the
                                 //     run fails, and the step of a chattering mode; 0: 16 eps max(|t|, 1)
  double fixed_step = 1e-3;      // [s] step of fixed-step solvers (rk4, euler)
  double event_tolerance = 0.0;  // [s] width of the final location bracket [t_a, t_b];
                                 //     0: one ulp of t (t_b = next representable after t_a)
  double output_step = 0.0;      // [s] the observer's samples on the grid t0 + k output_step, from
                                 //     the dense output (the steps and events are unchanged; both
                                 //     sides of each event, t0 and t_end are always sampled);
                                 //     0: at the solver's step ends
  double gamma = 0.6;            // gamma rule (004, Algorithm 2): a step may cover at most this
                                 //     fraction of the predicted time to an approaching guard
  double h_min = 1e-6;           // [s] strategy gamma: the smallest step of the approach (004: 1e-6)
  double refine_gamma = 1.5;     // strategy gamma-refine: a step may cover this multiple of the
                                 //     predicted time to an approaching guard; < 2, so that one
                                 //     step cannot hold both crossings of a locally quadratic e
  int samples = 4;               // strategy sampled: interior points of each step checked
  bool sliding = true;           // move along a sliding surface with the equivalent (Filippov)
                                 //     dynamics; false: the two modes chatter at the minimum step
  int zeno_events = 8;           // Zeno: this many consecutive intervals between pinnacle events,
                                 //     shrinking by a common ratio r < 1 (within zeno_ratio_tolerance)
  double zeno_ratio_tolerance = 1e-3;  //     relative spread allowed among those ratios
  double zeno_horizon = 1e-9;    // [s] ... and the predicted time left to the accumulation point,
                                 //     r d / (1 - r) (d the last interval), at most this
  int chain_limit = 64;          // most modes one event may visit before the run fails
  std::int64_t event_limit = 10'000'000;  // the run stops (reason kEventLimit) after this many events
  std::int64_t stall_events = 10'000;     // the run fails after this many events in a row, each within
                                          //     64 ulps of t of the one before (no progress)

  // Throws InvalidArgument naming the first field that breaks its constraint.
  void validate() const;
};

}  // namespace hysim
