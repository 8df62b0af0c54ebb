// A model file's text turned into a model with its default parameter values, for tests that
// write their models inline (errors name `file_name`, as a file on disk would).
#pragma once

#include <memory>
#include <string>

#include "hysim/lang/build.hpp"
#include "hysim/lang/compiler.hpp"

namespace hysim::testing {

template <class S = double>
Model<S> model_from_text(const std::string& file_name, const std::string& text) {
  const auto spec = std::make_shared<const lang::ModelSpec>(lang::compile_text(file_name, text));
  const ModelEntry entry = lang::model_entry(spec);
  return entry.make<S>(entry.default_values());
}

}  // namespace hysim::testing
