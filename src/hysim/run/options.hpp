// The options of a run (core of the run vocabulary; see simulator.hpp for the algorithm they
// steer). A plain struct with documented defaults and one validate(); run/option_table.hpp
// describes each field once for the command line, JSON and the bindings.
#pragma once

#include <cstdint>
#include <string>

#include "hysim/run/decimal.hpp"

namespace hysim {

// Options of a run: a plain struct with documented defaults. The real ones are Decimal
// (run/decimal.hpp): set from a double (`options.t_end = 3.0`), each run converts it to its
// scalar type; set from decimal text (`options.t_end = "0.1"`, as the command line, model
// files' presets and Python strings do), each run parses the text in its own type, exactly.
struct SimulationOptions {
  Decimal t_end{1.0};            // [s] end of the run; the run covers [t0, t_end]
  std::string solver = "dopri5";  // a name from solver_catalog()
  std::string linear_solver = "auto";  // rosenbrock4, ndf: how the iteration matrix is factored:
                                       //     auto, dense or sparse (docs/concepts.md, 3.1)
  std::string strategy = "gamma-refine";  // a name from strategy_catalog() (events/strategy.hpp);
                                         //     the default: exact, one-sided, grazing-safe, cheapest
  Decimal rtol{1e-6};            // relative tolerance of adaptive solvers
  Decimal atol{1e-9};            // absolute tolerance of adaptive solvers
  // Absolute tolerances of single states, NAME -> value (`--atol NAME=VALUE`); the others keep
  // atol. Checked against the model's states when a run is made (exact_options).
  std::vector<std::pair<std::string, Decimal>> atol_states{};
  Decimal initial_step{0.0};     // [s] first step; 0: Hairer & Wanner's starting-step estimate
  Decimal max_step{0.0};         // [s] largest step; 0: unlimited (only t_end - t)
  Decimal min_step{0.0};         // [s] smallest step an adaptive solver takes or may shrink to before
                                 //     the run fails, and the step of a chattering mode; 0: 16 eps max(|t|, 1)
  Decimal fixed_step{1e-3};      // [s] step of fixed-step solvers (rk4, euler)
  Decimal event_tolerance{0.0};  // [s] width of the final location bracket [t_a, t_b];
                                 //     0: one ulp of t (t_b = next representable after t_a)
  Decimal output_step{0.0};      // [s] the observer's samples on the grid t0 + k output_step, from
                                 //     the dense output (the steps and events are unchanged; both
                                 //     sides of each event, t0 and t_end are always sampled);
                                 //     0: at the solver's step ends
  // [s] instead of a grid, the observer's samples at these times (strictly increasing, within
  // [t0, t_end]), from the dense output, as with output_step (Python's t_eval); not with
  // output_step > 0 nor with cvode.
  std::vector<Decimal> output_times{};
  Decimal gamma{0.6};            // strategy gamma (004, Algorithm 2): a step keeps at least this
                                 //     fraction of an approaching event function's value (it
                                 //     covers 1 - gamma of the predicted time to the surface)
  Decimal h_min{1e-6};           // [s] strategy gamma: the smallest step of the approach (004: 1e-6)
  Decimal refine_gamma{1.5};     // strategy gamma-refine: a step may cover this multiple of the
                                 //     predicted time to an approaching guard; < 2, so that one
                                 //     step cannot hold both crossings of a locally quadratic e
  int samples = 4;               // strategy sampled: interior points of each step checked
  int certified_depth = 40;      // strategy certified: the most halvings of a step (<= 60)
  bool certified_strict = true;  // strategy certified: a part it cannot prove fails the run;
                                 //     false: a warning, counted, and the run goes on
  int certified_level = 1;       // strategy certified: 1 proves the dense output's events, 2 the
                                 //     exact flow's from each step's start (docs/certified.md)
  bool sliding = true;           // move along a sliding surface with the equivalent (Filippov)
                                 //     dynamics; false: the two modes chatter at the minimum step
  int zeno_events = 8;           // Zeno: this many consecutive intervals between events (pinnacles,
                                 //     or ordinary switches whose origins repeat: events/zeno.hpp),
                                 //     shrinking by a common ratio r < 1 (within zeno_ratio_tolerance)
  Decimal zeno_ratio_tolerance{1e-3};  //     relative spread allowed among those ratios
  Decimal zeno_horizon{1e-9};    // [s] ... and the predicted time left to the accumulation point,
                                 //     r d / (1 - r) (d the last interval), at most this
  int chain_limit = 64;          // most modes one event may visit before the run fails
  std::int64_t event_limit = 10'000'000;  // the run stops (reason kEventLimit) after this many events
  std::int64_t stall_events = 10'000;     // the run fails after this many events in a row, each within
                                          //     64 ulps of t of the one before (no progress)

  // Throws InvalidArgument naming the first field that breaks its constraint. The strategies'
  // tuning (gamma, h_min, refine_gamma, samples) is checked by the chosen strategy's catalog
  // entry (events/strategy.hpp, StrategyInfo::check), when a run is made.
  void validate() const;
};

}  // namespace hysim
