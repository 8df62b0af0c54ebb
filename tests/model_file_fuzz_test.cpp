// Replays the fuzzing corpus of model files (tests/fuzz/corpus: inputs the fuzzer found
// interesting, crashes it once found, and the shipped models) through the fuzz target: each
// must compile or be rejected with a diagnostic, never crash. Under the sanitizer build this
// is the regression test of scripts/fuzz.sh.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "fuzz/model_file_target.hpp"
#include "source_dir.hpp"

namespace hysim {
namespace {

int replay(const std::filesystem::path& folder, int* compiled) {
  int count = 0;
  for (const auto& entry : std::filesystem::directory_iterator(folder)) {
    if (!entry.is_regular_file()) continue;
    std::ifstream in(entry.path(), std::ios::binary);
    std::stringstream text;
    text << in.rdbuf();
    const std::string bytes = text.str();
    SCOPED_TRACE(entry.path().string());
    *compiled += fuzz::check_model_text(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size());
    ++count;
  }
  return count;
}

TEST(ModelFileFuzzCorpus, EveryInputCompilesOrIsRejected) {
  int compiled = 0;
  const int inputs = replay(std::filesystem::path(hysim::testing::source_dir()) / "tests/fuzz/corpus", &compiled);
  std::cout << inputs << " corpus inputs, " << compiled << " of them valid models\n";
  EXPECT_GT(inputs, 0);
}

TEST(ModelFileFuzzCorpus, ShippedModelsCompile) {
  int compiled = 0;
  const int inputs = replay(std::filesystem::path(hysim::testing::source_dir()) / "models", &compiled);
  EXPECT_EQ(compiled, inputs);
}

}  // namespace
}  // namespace hysim
