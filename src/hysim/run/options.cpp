#include "hysim/run/options.hpp"

#include <cmath>

#include "hysim/core/errors.hpp"
#include "hysim/core/scalar.hpp"

namespace hysim {

namespace {

void require(bool ok, const char* field, const std::string& constraint, double value) {
  if (!ok) {
    throw InvalidArgument("option " + std::string(field) + " = " + format_scalar(value) + " violates " + constraint);
  }
}

}  // namespace

void SimulationOptions::validate() const {
  require(std::isfinite(t_end), "t_end", "t_end is finite", t_end);
  require(std::isfinite(rtol) && rtol > 0 && rtol < 1, "rtol", "0 < rtol < 1", rtol);
  // atol = 0 leaves no error scale where a state is 0 (the weight atol + rtol |x| vanishes).
  require(std::isfinite(atol) && atol > 0, "atol", "atol > 0", atol);
  require(std::isfinite(initial_step) && initial_step >= 0, "initial_step", "initial_step >= 0", initial_step);
  require(std::isfinite(max_step) && max_step >= 0, "max_step", "max_step >= 0 (0: unlimited)", max_step);
  require(std::isfinite(min_step) && min_step >= 0, "min_step", "min_step >= 0", min_step);
  require(max_step == 0 || min_step <= max_step, "min_step", "min_step <= max_step", min_step);
  require(std::isfinite(fixed_step) && fixed_step > 0, "fixed_step", "fixed_step > 0", fixed_step);
  require(std::isfinite(event_tolerance) && event_tolerance >= 0, "event_tolerance", "event_tolerance >= 0",
          event_tolerance);
  require(std::isfinite(output_step) && output_step >= 0, "output_step", "output_step >= 0 (0: the step ends)",
          output_step);
  require(std::isfinite(gamma) && gamma > 0 && gamma < 1, "gamma", "0 < gamma < 1", gamma);
  require(std::isfinite(h_min) && h_min > 0, "h_min", "h_min > 0", h_min);
  require(std::isfinite(refine_gamma) && refine_gamma > 0 && refine_gamma < 2, "refine_gamma",
          "0 < refine_gamma < 2", refine_gamma);
  require(samples >= 1, "samples", "samples >= 1", samples);
  require(zeno_events >= 3, "zeno_events", "zeno_events >= 3", zeno_events);
  require(std::isfinite(zeno_ratio_tolerance) && zeno_ratio_tolerance > 0, "zeno_ratio_tolerance",
          "zeno_ratio_tolerance > 0", zeno_ratio_tolerance);
  require(std::isfinite(zeno_horizon) && zeno_horizon > 0, "zeno_horizon", "zeno_horizon > 0", zeno_horizon);
  require(chain_limit >= 1, "chain_limit", "chain_limit >= 1", chain_limit);
  require(event_limit >= 1, "event_limit", "event_limit >= 1", static_cast<double>(event_limit));
  require(stall_events >= 1, "stall_events", "stall_events >= 1", static_cast<double>(stall_events));
}


}  // namespace hysim
