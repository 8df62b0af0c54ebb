// What the command-line fuzzer does with one input, shared by the libFuzzer binary
// (tests/fuzz/cli_options_fuzzer.cpp, scripts/fuzz.sh) and the regression test that replays
// its corpus (tests/cli_options_fuzz_test.cpp): split the bytes into words, one per line, and
// parse them as `hysim WORD...` with the program's own parser (apps/command_line.hpp, every
// subcommand), then run the checks that need no model. Nothing is executed: no model is
// loaded, no run starts, no file is written. Any input must end in a parsed command, a
// CLI::ParseError (--help among them) or a hysim::InvalidArgument; a crash, a hang or a
// sanitizer report is a bug.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "apps/command_line.hpp"
#include "hysim/core/errors.hpp"

namespace hysim::fuzz {

// 0: refused by the parser or its checks; 1: a command that would run.
inline int check_command_line(const std::uint8_t* data, std::size_t size) {
  constexpr std::size_t kMostWords = 256;  // a longer command line says nothing new
  std::vector<std::string> words = {"hysim"};
  std::string word;
  for (std::size_t i = 0; i < size && words.size() < kMostWords; ++i) {
    const char c = static_cast<char>(data[i]);
    if (c == '\n') {
      words.push_back(word);
      word.clear();
    } else {
      word += c;
    }
  }
  if (!word.empty() && words.size() < kMostWords) words.push_back(word);
  std::vector<char*> argv;
  for (auto& w : words) argv.push_back(w.data());
  argv.push_back(nullptr);

  app::CommandLine command_line;
  try {
    command_line.app().parse(static_cast<int>(words.size()), argv.data());
  } catch (const CLI::ParseError&) {
    return 0;
  }
  try {
    (void)command_line.chosen();
  } catch (const InvalidArgument&) {
    return 0;
  }
  return 1;
}

}  // namespace hysim::fuzz
