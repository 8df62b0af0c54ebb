// SUNDIALS CVODE as a peer strategy ("cvode"): the same model, guards and transition chain,
// but integration and rootfinding are CVODE's own (Hindmarsh et al., ACM TOMS 31(3), 2005).
//
// Each atom of the active mode's guards is one CVODE root function. At a root CVODE returns
// the time it located (its rootfinder, regula falsi with the Illinois modification, stops on
// the post-crossing side); when a guard fires there, the chain is resolved as in every other
// strategy and CVODE is reinitialised at (t, x+) in the arrival mode. Statistics are CVODE's
// own counters, mapped onto RunStatistics (docs/strategies.md).
#pragma once

#include "core/simulator.hpp"

namespace hysim {

// Runs the model from (t0, x0) to options.t_end with CVODE (BDF, Newton with a dense
// direct linear solver, rtol/atol from the options). Passes samples, events and steps to the
// observer like Simulator::run and fills *stats as it goes (also when it throws).
RunResult<double> run_cvode(const Model<double>& model, const SimulationOptions& options,
                            Observer<double>* observer, RunStatistics* stats);

}  // namespace hysim
