// libFuzzer entry point for rule tables; built and run by `scripts/fuzz.sh SECONDS JOBS
// rule_table` with clang (-fsanitize=fuzzer,address,undefined). See rule_table_target.hpp.
#include "rule_table_target.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  (void)hysim::fuzz::check_rule_table_text(data, size);
  return 0;
}
