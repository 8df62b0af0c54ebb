// What every engine of a run (the simulator's loop, the CVODE peer) says the same way: where
// the run stands, a state that is not finite, and the one-line message of its result.
#pragma once

#include <cstddef>
#include <string>

#include "hysim/core/errors.hpp"
#include "hysim/core/model.hpp"
#include "hysim/core/scalar.hpp"
#include "hysim/run/result.hpp"

namespace hysim {

// "model 'M', mode 'a', t = T": the prefix of every SimulationError of a run.
template <class S>
std::string where(const Model<S>& model, int mode, const S& t) {
  return "model '" + model.name + "', mode '" + model.modes[static_cast<std::size_t>(mode)].name +
         "', t = " + format_scalar(t);
}

// Throws SimulationError naming the first component of x that is NaN or infinite.
template <class S>
void check_finite(const Model<S>& model, int mode, const S& t, const S* x, const char* what) {
  for (std::size_t j = 0; j < model.state_size(); ++j) {
    if (!is_finite(x[j])) {
      throw SimulationError(where(model, mode, t) + ": " + what + " has " + model.state_names[j] + " = " +
                            format_scalar(x[j]) + " (the field returned a non-finite value)");
    }
  }
}

// "reached t_end at t = T in mode 'a' after N events<detail>; Zeno ...": RunResult::message.
template <class S>
std::string result_message(const RunResult<S>& result, const Model<S>& model, const std::string& detail = "") {
  std::string text = std::string(run_reason_name(result.reason)) + " at t = " + format_scalar(result.t) +
                     " in mode '" + model.modes[static_cast<std::size_t>(result.mode)].name + "' after " +
                     std::to_string(result.stats.events) + " events" + detail;
  if (result.zeno_detected) {
    text += std::string("; Zeno accumulation of ") + (result.zeno_of_pinnacles ? "pinnacles" : "events") + " at t = " + format_scalar(result.t_zeno) +
            (result.reason == RunReason::kZeno ? " (the model declares no continuation)"
                                               : ", continued in mode '" + model.zeno.mode_name + "'");
  }
  return text;
}

}  // namespace hysim
