// Replays the rule-table fuzzing corpus (tests/fuzz/rules-corpus: the shipped tables, seeds
// and inputs the fuzzer found) through the fuzz target: each table must be read and run or be
// rejected with a diagnostic, never crash. Also a deterministic mutation pass over the shipped
// tables (bytes dropped, duplicated, swapped, tabs and newlines inserted), so that the reader's
// error paths are exercised by every test run, not only when scripts/fuzz.sh runs.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "fuzz/rule_table_target.hpp"
#include "source_dir.hpp"

namespace hysim {
namespace {

std::string contents(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

int check(const std::string& bytes) {
  return fuzz::check_rule_table_text(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size());
}

TEST(RuleTableFuzzCorpus, EveryInputIsReadOrRejected) {
  int inputs = 0, valid = 0;
  for (const auto& entry : std::filesystem::directory_iterator(std::filesystem::path(hysim::testing::source_dir()) / "tests/fuzz/rules-corpus")) {
    SCOPED_TRACE(entry.path().string());
    valid += check(contents(entry.path()));
    ++inputs;
  }
  std::cout << inputs << " corpus inputs, " << valid << " of them valid tables\n";
  EXPECT_GT(inputs, 3);
  EXPECT_GT(valid, 3);
}

TEST(RuleTableFuzzCorpus, MutationsOfTheShippedTables) {
  std::uint64_t state = 0x9E3779B97F4A7C15ull;
  const auto next = [&] {
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
    return state;
  };
  int runs = 0, valid = 0;
  for (const auto& entry : std::filesystem::directory_iterator(std::filesystem::path(hysim::testing::source_dir()) / "models/rules")) {
    const std::string original = contents(entry.path());
    for (int i = 0; i < 300; ++i) {
      std::string text = original;
      for (int edits = 1 + static_cast<int>(next() % 4); edits > 0 && !text.empty(); --edits) {
        const std::size_t at = next() % text.size();
        switch (next() % 5) {
          case 0: text.erase(at, 1 + next() % 8); break;
          case 1: text.insert(at, text.substr(at, 1 + next() % 16)); break;
          case 2: text.insert(at, 1, '\t'); break;
          case 3: text.insert(at, 1, '\n'); break;
          case 4: text[at] = static_cast<char>(next() % 256); break;
        }
      }
      valid += check(text);
      ++runs;
    }
  }
  std::cout << runs << " mutated tables, " << valid << " of them valid\n";
  EXPECT_GT(runs, 0);
}

}  // namespace
}  // namespace hysim
