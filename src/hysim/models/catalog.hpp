// The models hysim ships, by name, with their parameters and presets.
//
// Each model file defines `template <class S> Model<S> make_<name>(const ParameterValues&)`,
// instantiated for every scalar type, and an entry in this catalog.
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "hysim/core/model.hpp"
#include "hysim/core/parameters.hpp"
#include "hysim/models/reference.hpp"

namespace hysim {

struct ModelEntry {
  std::string name;     // hysim name, e.g. "pwm-servo"
  std::string summary;  // one line for `hysim list`
  std::string source;   // paper, equations and figures it reproduces
  std::vector<ParameterSpec> parameters;
  std::vector<Preset> presets;
  // Builders: a function template of models/ instantiated per scalar, or a compiled model
  // file (lang/build.hpp) that holds its description.
  std::function<Model<double>(const ParameterValues&)> make_double;
  std::function<Model<long double>(const ParameterValues&)> make_long_double;
  std::function<Model<float128>(const ParameterValues&)> make_float128;
  // The exact events, when the model has a reference solution; empty otherwise.
  ReferenceFunction reference;
  // Stiff at its defaults (widely separated time constants): `hysim workprecision` then
  // compares with the stiff CVODE peer (BDF, "cvode") instead of the non-stiff one (Adams,
  // "cvode-adams"); docs/cli.md.
  bool stiff = false;

  // Default values, ready for --param and --preset.
  ParameterValues default_values() const { return ParameterValues(name, parameters); }

  // Builds and finalizes the model in scalar type S.
  template <class S>
  Model<S> make(const ParameterValues& values) const;
};

template <>
inline Model<double> ModelEntry::make<double>(const ParameterValues& values) const {
  return make_double(values);
}
template <>
inline Model<long double> ModelEntry::make<long double>(const ParameterValues& values) const {
  return make_long_double(values);
}
template <>
inline Model<float128> ModelEntry::make<float128>(const ParameterValues& values) const {
  return make_float128(values);
}

// Every model, in the order `hysim list` prints them.
const std::vector<ModelEntry>& model_catalog();

// The entry with this name; throws InvalidArgument listing the known names otherwise.
const ModelEntry& find_model(std::string_view name);

// The entry of each model file.
ModelEntry pwm_servo_entry();
ModelEntry bouncing_ball_entry();
ModelEntry exponential_entry();
ModelEntry oscillator_entry();
ModelEntry grazing_entry();
ModelEntry drag_ball_entry();
ModelEntry stiff_relay_entry();

// Fills a catalog entry's three builders from one function template.
#define HYSIM_MODEL_BUILDERS(entry, make)                 \
  do {                                                    \
    (entry).make_double = &make<double>;                  \
    (entry).make_long_double = &make<long double>;        \
    (entry).make_float128 = &make<::hysim::float128>;     \
  } while (false)

}  // namespace hysim
