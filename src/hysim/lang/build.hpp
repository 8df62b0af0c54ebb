// From a checked model file to what the engine runs: a Model<S> per scalar type and set of
// parameter values, and a catalog entry (models/catalog.hpp) so that every command of
// `hysim` takes a file where it takes a built-in model's name.
#pragma once

#include <memory>
#include <string>

#include "hysim/core/model.hpp"
#include "hysim/core/parameters.hpp"
#include "hysim/lang/native.hpp"
#include "hysim/lang/spec.hpp"
#include "hysim/models/catalog.hpp"

namespace hysim::lang {

// Builds and finalizes the model with these parameter values, on the tape. Throws
// InvalidArgument when a requirement fails, or a let of parameters alone or an initial value
// is not finite with them.
template <class S>
Model<S> build_model(const ModelSpec& spec, const ParameterValues& values);

// The catalog entry of a checked file: its parameters, presets and builders, which run its
// native code (lang/native.hpp) or, by options or when no compiler works, the tape.
// *backend (when given) says which, and why.
ModelEntry model_entry(std::shared_ptr<const ModelSpec> spec,
                       const NativeOptions& options = NativeOptions::from_environment(),
                       std::string* backend = nullptr);

// Reads, compiles and checks a model file (builds it once in double with its defaults).
// Throws ModelFileError (an InvalidArgument) for a bad file; its warnings (an unreachable
// mode), rendered with file:line:column, go to *warnings when given.
ModelEntry load_model_file(const std::string& path, std::string* warnings = nullptr,
                           const NativeOptions& options = NativeOptions::from_environment(),
                           std::string* backend = nullptr);

// A command-line model argument names a file rather than a built-in model when it ends in
// ".hym" or contains a '/'.
bool names_model_file(const std::string& argument);

extern template Model<double> build_model<double>(const ModelSpec&, const ParameterValues&);
extern template Model<long double> build_model<long double>(const ModelSpec&, const ParameterValues&);
extern template Model<float128> build_model<float128>(const ModelSpec&, const ParameterValues&);

}  // namespace hysim::lang
