// SUNDIALS CVODE as a peer engine ("cvode"): the same model, guards, transition chain and
// ledger (events/ledger.hpp: the chain at t0, Zeno, the result), but integration and
// rootfinding are CVODE's own (Hindmarsh et al., "SUNDIALS: Suite of
// nonlinear and differential/algebraic equation solvers", ACM TOMS 31(3), 2005; Hindmarsh,
// Serban et al., "User Documentation for CVODE", v6.4.1, sections 2.1-2.3 and 4.4).
//
//   t = t0, x = x0, a = initial mode
//   resolve the chain at t0 if a guard of a already fires            (as the engine does)
//   CVodeInit(f_a, t, x); CVodeRootInit(one root function per atom of a's guards)
//   loop: CVode(t_end, CV_ONE_STEP) with stop time t_end
//     a step ended         report it (Observer::on_step, on_sample at its end)
//     CV_ROOT_RETURN at t  CVODE's rootfinder (Illinois regula falsi on its interpolant)
//                          returns the END of its final bracket: the atom has crossed.
//                          fired(a, t, x) decides whether a guard tree is now true; when
//                          none is, integration goes on. Otherwise this is an event, NOT
//                          one-sided (x is on the post-crossing side): resolve the chain,
//                          record it, CVodeReInit(t, x+) in the arrival mode and
//                          CVodeRootInit for its atoms
//     CV_TSTOP_RETURN      t_end reached
//
// Configuration: BDF orders 1-5, Newton iteration, dense direct linear solver with CVODE's
// difference-quotient Jacobian (SUNDenseMatrix, SUNLinSol_Dense); scalar tolerances
// rtol/atol; max_step, initial_step (first step only) and min_step when > 0. Statistics are
// mapped onto RunStatistics in peers/cvode.cpp (run_cvode's comment there lists them).
#pragma once

#include <atomic>

#include "hysim/core/model.hpp"
#include "hysim/events/strategy.hpp"
#include "hysim/run/observer.hpp"
#include "hysim/run/options.hpp"
#include "hysim/run/result.hpp"

namespace hysim {

// The linear multistep family CVODE integrates with (CVODE guide, section 2.1).
enum class CvodeMethod {
  kBdf,    // BDF orders 1-5, Newton iteration with the dense direct solver: strategy "cvode"
  kAdams,  // Adams-Moulton orders 1-12, fixed-point iteration (no Jacobian): non-stiff fields
};

// Runs the model from (t0, x0) to options.t_end with CVODE. Passes samples, events and
// steps to the observer like Simulator::run (not on_finish: the caller reports the result)
// and fills *stats as it goes (also when it throws). Throws SimulationError naming the model, the mode and t when the state, a
// field value or a guard value is not finite, when a chain fails, when more than
// chain_limit events fall at the same time, or when CVODE returns an error flag (its name
// is in the message).
// It polls *stop (when not null) after each of CVODE's internal steps (CV_ONE_STEP) and ends
// with RunReason::kInterrupted once it is set.
RunResult<double> run_cvode(const Model<double>& model, const SimulationOptions& options,
                            Observer<double>* observer, RunStatistics* stats,
                            CvodeMethod method = CvodeMethod::kBdf, const std::atomic<bool>* stop = nullptr);

// The catalog entries of strategy "cvode" (BDF, Newton: the stiff pairing) and "cvode-adams"
// (Adams-Moulton, fixed-point iteration: the non-stiff one), which run on the engines of the
// same names (events/engine.hpp) in place of the simulator's loop. Registered, with the
// engines (register_cvode_engines), by register_peers() (peers/peers.hpp).
StrategyInfo cvode_strategy(CvodeMethod method = CvodeMethod::kBdf);
void register_cvode_engines();

}  // namespace hysim
