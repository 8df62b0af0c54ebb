// Named model parameters and presets.
//
// Values are kept as the decimal text the user gave ("0.1") and parsed into the run's scalar
// type when the model is built, so that a float128 run uses the binary128 number nearest to
// 1/10, not a widened double.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "hysim/core/scalar.hpp"

namespace hysim {

struct ParameterSpec {
  std::string name;           // as on the command line: --param NAME=VALUE
  std::string default_value;  // decimal text
  std::string meaning;        // unit and meaning, one line
  // The declared range [low, high]: the values over which the model is meant to run (a random
  // campaign draws from it, docs/sweeps.md). Decimal text like the default; both empty: none.
  std::string low{};
  std::string high{};

  bool has_range() const { return !low.empty() || !high.empty(); }
};

// Checks a declared range: both ends or neither, numbers, low < high and low <= default <=
// high. Throws InvalidArgument naming the parameter and `owner` (a model, a file) otherwise.
void check_parameter_range(const ParameterSpec& spec, const std::string& owner);

// A named set of parameter values (e.g. the falling rod's "fig6").
struct Preset {
  std::string name;
  std::string description;
  std::vector<std::pair<std::string, std::string>> values;
  double t_end = 0.0;  // [s] the end time `hysim run` uses when --t-end is not given; 0: its default
  std::string t_end_text{};  // t_end as a model file's preset writes it (parsed in the run's type); or empty
};

class ParameterValues {
 public:
  ParameterValues(std::string model_name, std::vector<ParameterSpec> specs);

  // Sets one value. Throws InvalidArgument when the name is unknown or the text malformed.
  void set(const std::string& name, const std::string& text);
  // Parses "NAME=VALUE" and sets it.
  void set_assignment(const std::string& assignment);
  // Sets every value of the preset; unknown preset names throw InvalidArgument.
  void apply_preset(const std::vector<Preset>& presets, const std::string& preset_name);

  const std::string& text(const std::string& name) const;
  template <class S>
  S get(const std::string& name) const {
    return parse_decimal<S>(text(name), "parameter '" + name + "' of model '" + model_name_ + "'");
  }

  const std::vector<ParameterSpec>& specs() const { return specs_; }
  // (name, text) pairs in declaration order.
  const std::vector<std::pair<std::string, std::string>>& values() const { return values_; }

 private:
  std::size_t index_of(const std::string& name) const;

  std::string model_name_;
  std::vector<ParameterSpec> specs_;
  std::vector<std::pair<std::string, std::string>> values_;
};

}  // namespace hysim
