// Replays the corpus of the cache-loader fuzzer (tests/fuzz/cache-corpus) through its target:
// a truncated, spliced or foreign object, a damaged record, a link, a folder or a file others
// may write is refused, and only the real object is loaded. Under the sanitizer build this is
// the regression test of scripts/fuzz.sh's cache_loader target.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "fuzz/cache_loader_target.hpp"
#include "source_dir.hpp"

namespace hysim {
namespace {

TEST(CacheLoaderFuzzCorpus, OnlyTheRealObjectIsLoaded) {
  int inputs = 0, accepted = 0;
  for (const auto& entry :
       std::filesystem::directory_iterator(std::filesystem::path(testing::source_dir()) / "tests/fuzz/cache-corpus")) {
    std::ifstream in(entry.path(), std::ios::binary);
    std::stringstream bytes;
    bytes << in.rdbuf();
    const std::string input = bytes.str();
    SCOPED_TRACE(entry.path().string());
    accepted += fuzz::check_cached_object(reinterpret_cast<const std::uint8_t*>(input.data()), input.size());
    ++inputs;
  }
  std::cout << inputs << " corpus inputs, " << accepted << " accepted\n";
  EXPECT_GE(inputs, 9);
  EXPECT_EQ(accepted, 1);  // real-pair
}

}  // namespace
}  // namespace hysim
