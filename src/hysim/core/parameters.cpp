#include "hysim/core/parameters.hpp"

#include "hysim/core/errors.hpp"

namespace hysim {

void check_parameter_range(const ParameterSpec& spec, const std::string& owner) {
  if (!spec.has_range()) return;
  const std::string what = "the range of parameter '" + spec.name + "' of " + owner;
  if (spec.low.empty() || spec.high.empty()) throw InvalidArgument(what + ": give both ends, [low, high]");
  const auto low = parse_decimal<long double>(spec.low, what);
  const auto high = parse_decimal<long double>(spec.high, what);
  const auto value = parse_decimal<long double>(spec.default_value, "the default of parameter '" + spec.name + "' of " + owner);
  if (!(low < high)) throw InvalidArgument(what + ": [" + spec.low + ", " + spec.high + "] needs low < high");
  if (!(low <= value && value <= high)) {
    throw InvalidArgument(what + ": the default " + spec.default_value + " is outside [" + spec.low + ", " + spec.high + "]");
  }
}

ParameterValues::ParameterValues(std::string model_name, std::vector<ParameterSpec> specs)
    : model_name_(std::move(model_name)), specs_(std::move(specs)) {
  for (const auto& spec : specs_) values_.emplace_back(spec.name, spec.default_value);
}

std::size_t ParameterValues::index_of(const std::string& name) const {
  for (std::size_t i = 0; i < values_.size(); ++i) {
    if (values_[i].first == name) return i;
  }
  std::string known;
  for (const auto& spec : specs_) known += (known.empty() ? "" : ", ") + spec.name;
  throw InvalidArgument("unknown parameter '" + name + "' for model '" + model_name_ +
                        "' (known: " + (known.empty() ? "none" : known) + ")");
}

void ParameterValues::set(const std::string& name, const std::string& text) {
  const std::size_t i = index_of(name);
  // Validate now, in the widest type, so that a malformed value fails before the run.
  (void)parse_decimal<long double>(text, "parameter '" + name + "' of model '" + model_name_ + "'");
  values_[i].second = text;
}

void ParameterValues::set_assignment(const std::string& assignment) {
  const auto eq = assignment.find('=');
  if (eq == std::string::npos || eq == 0) {
    throw InvalidArgument("malformed parameter assignment '" + assignment + "' (expected NAME=VALUE)");
  }
  set(assignment.substr(0, eq), assignment.substr(eq + 1));
}

void ParameterValues::apply_preset(const std::vector<Preset>& presets, const std::string& preset_name) {
  for (const auto& preset : presets) {
    if (preset.name != preset_name) continue;
    for (const auto& [name, value] : preset.values) set(name, value);
    return;
  }
  std::string known;
  for (const auto& preset : presets) known += (known.empty() ? "" : ", ") + preset.name;
  throw InvalidArgument("unknown preset '" + preset_name + "' for model '" + model_name_ +
                        "' (known: " + (known.empty() ? "none" : known) + ")");
}

const std::string& ParameterValues::text(const std::string& name) const {
  return values_[index_of(name)].second;
}

}  // namespace hysim
