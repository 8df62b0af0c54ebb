// libFuzzer entry point for model files; built and run by scripts/fuzz.sh with clang
// (-fsanitize=fuzzer,address,undefined). See tests/fuzz/model_file_target.hpp.
#include "model_file_target.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  (void)hysim::fuzz::check_model_text(data, size);
  return 0;
}
