// What the model-file fuzzer does with one input, shared by the libFuzzer binary
// (tests/fuzz/model_file_fuzzer.cpp, scripts/fuzz.sh) and the regression test that replays
// the corpus (tests/model_file_fuzz_test.cpp): compile the text, and when it is a valid model,
// build it with its defaults and evaluate every field, guard atom, rate and reset once at
// the initial state, on the tape. Any input must end in a value or a hysim::Error; a crash,
// a hang or a sanitizer report is a bug.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "hysim/core/errors.hpp"
#include "hysim/lang/build.hpp"
#include "hysim/lang/spec.hpp"

namespace hysim::fuzz {

// 0: rejected with a diagnostic; 1: compiled and evaluated.
inline int check_model_text(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    auto spec = std::make_shared<const lang::ModelSpec>(lang::compile_text("fuzz.hym", text));
    lang::NativeOptions tape;
    tape.backend = lang::NativeOptions::Backend::kTape;
    const ModelEntry entry = lang::model_entry(spec, tape);
    const Model<double> model = entry.make<double>(entry.default_values());
    const std::size_t n = model.state_size();
    std::vector<double> f(n, 0.0), x_post(model.x0);
    for (const auto& mode : model.modes) {
      if (mode.field) mode.field(0.0, model.x0.data(), f.data());
      for (const auto& tr : mode.transitions) {
        for (const auto& atom : tr.guard.atoms()) {
          (void)atom.e(0.0, model.x0.data());
          if (atom.rate) (void)atom.rate(0.0, model.x0.data(), f.data());
          if (atom.jump) (void)atom.jump(0.0, model.x0.data(), x_post.data());
        }
        if (tr.reset) tr.reset(0.0, model.x0.data(), x_post.data());
      }
    }
    return 1;
  } catch (const Error&) {
    return 0;
  }
}

}  // namespace hysim::fuzz
