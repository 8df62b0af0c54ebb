// Replays the command-line fuzzer's corpus (tests/fuzz/cli-corpus: seeds, and crashes once
// found) through its target: each input must parse or be refused, never crash, and nothing is
// run. Under the sanitizer build this is the regression test of `scripts/fuzz.sh 60 1
// cli_options`. A few seeds are checked for their verdict, so that a target that refuses
// everything (or accepts everything) fails here.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "fuzz/cli_options_target.hpp"
#include "source_dir.hpp"

namespace hysim {
namespace {

int verdict(const std::string& bytes) {
  return fuzz::check_command_line(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size());
}

TEST(CliOptionsFuzzCorpus, EveryInputParsesOrIsRefused) {
  const std::filesystem::path folder = std::filesystem::path(hysim::testing::source_dir()) / "tests/fuzz/cli-corpus";
  // 1: parsed, 0: refused, for the seeds that say something about the parser.
  const std::map<std::string, int> expected = {
      {"run-options", 1},       {"workprecision", 1}, {"check", 1},         {"run-hex", 0},
      {"sweep-seed", 0},        {"list-param-twice", 0}, {"options-help", 0}, {"compare-empty-out", 0},
      {"reproduce-time-limit", 0}, {"run-flags", 0},
  };
  int inputs = 0, parsed = 0;
  for (const auto& entry : std::filesystem::directory_iterator(folder)) {
    if (!entry.is_regular_file()) continue;
    std::ifstream in(entry.path(), std::ios::binary);
    std::stringstream text;
    text << in.rdbuf();
    SCOPED_TRACE(entry.path().string());
    const int result = verdict(text.str());
    const auto known = expected.find(entry.path().filename().string());
    if (known != expected.end()) {
      EXPECT_EQ(result, known->second);
    }
    parsed += result;
    ++inputs;
  }
  std::cout << inputs << " corpus inputs, " << parsed << " of them parsed\n";
  EXPECT_GE(inputs, static_cast<int>(expected.size()));
}

TEST(CliOptionsFuzzCorpus, WordsAreLines) {
  EXPECT_EQ(verdict("run\nbouncing-ball\n--t-end\n2"), 1);
  EXPECT_EQ(verdict("run\nbouncing-ball\n--t-end 2"), 0);  // one word: an unknown option
  EXPECT_EQ(verdict(""), 0);                                // no subcommand
  EXPECT_EQ(verdict(std::string("run\nbouncing-ball\0junk", 22)), 1);  // a word ends at a NUL
}

}  // namespace
}  // namespace hysim
