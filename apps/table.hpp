// Text tables for the terminal and the same rows as CSV or Markdown: every command that prints a table
// (the event table of `run`, the comparison tables) goes through this.
#pragma once

#include <filesystem>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "hysim/study/format.hpp"

namespace hysim::app {

using namespace hysim::study;  // format_general, format_shortest

struct Table {
  std::vector<std::string> header;
  std::vector<std::vector<std::string>> rows;

  // Left-aligned columns as wide as their widest cell, two spaces apart; no header line
  // when the header is empty.
  void print(std::ostream& out) const;
  // RFC 4180: cells holding a comma, a quote or a line break are quoted.
  void write_csv(const std::filesystem::path& path) const;
  // A Markdown table (GitHub): the header, its rule, one line per row; '|' in a cell escaped.
  void print_markdown(std::ostream& out) const;
};

// What a table shows for a value that does not exist (no reference, event not matched).
inline constexpr const char* kNoValue = "-";

// How a cell writes a number: short for the terminal ("-" when there is none), or exact for
// CSV (17 significant digits, round-trip for a double; an empty cell when there is none).
enum class Precision { kShort, kExact };

// A signed error: "-2.20e-11" (three significant digits) when short.
std::string error_cell(const std::optional<double>& value, Precision precision);
// A number with `digits` significant digits when short ("0.000127", "1").
std::string number_cell(const std::optional<double>& value, int digits, Precision precision);
// A count.
std::string count_cell(const std::optional<long long>& value, Precision precision);
// A CSV cell (RFC 4180): quoted, with quotes doubled, when it holds a comma, a quote or a line
// break (a message, a name from a file).
std::string csv_cell(const std::string& cell);

}  // namespace hysim::app
