// libFuzzer entry point for the command line's options; built and run by scripts/fuzz.sh
// with clang (-fsanitize=fuzzer,address,undefined). See tests/fuzz/cli_options_target.hpp.
#include "cli_options_target.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  (void)hysim::fuzz::check_command_line(data, size);
  return 0;
}
