#include "hysim/run/options.hpp"

#include "hysim/core/errors.hpp"
#include "hysim/core/scalar.hpp"

namespace hysim {

namespace {

void require(bool ok, const char* field, const std::string& constraint, const std::string& value) {
  if (!ok) throw InvalidArgument("option " + std::string(field) + " = " + value + " violates " + constraint);
}

void require(bool ok, const char* field, const std::string& constraint, const Decimal& value) {
  require(ok, field, constraint, value.str());
}

void require(bool ok, const char* field, const std::string& constraint, std::int64_t value) {
  require(ok, field, constraint, std::to_string(value));
}

// A real option in binary128: the text's own number (to 113 bits) when there is text, so that
// a valid text is not refused for its double ("0.99999999999999999999" rounds to rtol = 1).
float128 exact(const Decimal& x) { return x.to<float128>(); }

bool finite(const Decimal& x) { return is_finite(exact(x)); }

}  // namespace

void SimulationOptions::validate() const {
  const float128 zero = 0, one = 1;
  require(finite(t_end), "t_end", "t_end is finite", t_end);
  require(finite(rtol) && exact(rtol) > zero && exact(rtol) < one, "rtol", "0 < rtol < 1", rtol);
  // atol = 0 leaves no error scale where a state is 0 (the weight atol + rtol |x| vanishes).
  require(finite(atol) && exact(atol) > zero, "atol", "atol > 0", atol);
  for (std::size_t i = 0; i < atol_states.size(); ++i) {
    const auto& [name, value] = atol_states[i];
    if (name.empty()) throw InvalidArgument("option atol: NAME=VALUE needs a state's name before '='");
    require(finite(value) && exact(value) > zero, "atol", "atol of " + name + " > 0", value);
    for (std::size_t j = 0; j < i; ++j) {
      if (atol_states[j].first == name) throw InvalidArgument("option atol: state '" + name + "' is given twice");
    }
  }
  require(linear_solver == "auto" || linear_solver == "dense" || linear_solver == "sparse", "linear_solver",
          "linear_solver is auto, dense or sparse", linear_solver);
  require(finite(initial_step) && exact(initial_step) >= zero, "initial_step", "initial_step >= 0", initial_step);
  require(finite(max_step) && exact(max_step) >= zero, "max_step", "max_step >= 0 (0: unlimited)", max_step);
  require(finite(min_step) && exact(min_step) >= zero, "min_step", "min_step >= 0", min_step);
  require(exact(max_step) == zero || exact(min_step) <= exact(max_step), "min_step", "min_step <= max_step",
          min_step);
  require(finite(fixed_step) && exact(fixed_step) > zero, "fixed_step", "fixed_step > 0", fixed_step);
  require(finite(event_tolerance) && exact(event_tolerance) >= zero, "event_tolerance", "event_tolerance >= 0",
          event_tolerance);
  require(finite(output_step) && exact(output_step) >= zero, "output_step", "output_step >= 0 (0: the step ends)",
          output_step);
  if (!output_times.empty() && exact(output_step) > zero) {
    throw InvalidArgument("options output_step and output_times exclude each other: give one of them");
  }
  for (std::size_t i = 0; i < output_times.size(); ++i) {
    if (!finite(output_times[i]) || (i > 0 && !(exact(output_times[i - 1]) < exact(output_times[i])))) {
      throw InvalidArgument("option output_times: " + output_times[i].str() + " (entry " + std::to_string(i) +
                            ") is not finite and above the one before; the times must increase");
    }
  }
  require(zeno_events >= 3, "zeno_events", "zeno_events >= 3", zeno_events);
  require(finite(zeno_ratio_tolerance) && exact(zeno_ratio_tolerance) > zero, "zeno_ratio_tolerance",
          "zeno_ratio_tolerance > 0", zeno_ratio_tolerance);
  require(finite(zeno_horizon) && exact(zeno_horizon) > zero, "zeno_horizon", "zeno_horizon > 0", zeno_horizon);
  require(chain_limit >= 1, "chain_limit", "chain_limit >= 1", chain_limit);
  require(event_limit >= 1, "event_limit", "event_limit >= 1", event_limit);
  require(stall_events >= 1, "stall_events", "stall_events >= 1", stall_events);
}

}  // namespace hysim
