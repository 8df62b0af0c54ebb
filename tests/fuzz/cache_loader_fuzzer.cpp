// libFuzzer entry point for the loader of cached model objects; built and run by
// scripts/fuzz.sh with clang (-fsanitize=fuzzer,address,undefined). See
// tests/fuzz/cache_loader_target.hpp.
#include "cache_loader_target.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  (void)hysim::fuzz::check_cached_object(data, size);
  return 0;
}
