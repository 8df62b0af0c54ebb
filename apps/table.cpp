#include "apps/table.hpp"

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>

#include "hysim/core/errors.hpp"
#include "hysim/core/printable.hpp"

namespace hysim::app {

void Table::print(std::ostream& out) const {
  // Cells hold names from files: shown printable (hysim/core/printable.hpp).
  auto shown = [](const std::vector<std::string>& line) {
    std::vector<std::string> cells;
    for (const auto& cell : line) cells.push_back(printable(cell));
    return cells;
  };
  const std::vector<std::string> head = shown(header);
  std::vector<std::vector<std::string>> body;
  for (const auto& row : rows) body.push_back(shown(row));
  std::vector<std::size_t> width(head.size());
  for (std::size_t c = 0; c < head.size(); ++c) width[c] = head[c].size();
  for (const auto& row : body) {
    if (row.size() > width.size()) width.resize(row.size());
    for (std::size_t c = 0; c < row.size(); ++c) width[c] = std::max(width[c], row[c].size());
  }
  auto print_line = [&](const std::vector<std::string>& line) {
    std::string text;
    for (std::size_t c = 0; c < line.size() && c < width.size(); ++c) {
      text += line[c];
      text.append(width[c] + 2 - line[c].size(), ' ');
    }
    text.erase(text.find_last_not_of(' ') + 1);
    out << text << "\n";
  };
  if (!head.empty()) print_line(head);
  for (const auto& row : body) print_line(row);
}

std::string csv_cell(const std::string& cell) {
  if (cell.find_first_of(",\"\n\r") == std::string::npos) return cell;
  std::string quoted = "\"";
  for (const char c : cell) {
    if (c == '"') quoted += '"';
    quoted += c;
  }
  return quoted + "\"";
}

namespace {

}  // namespace

void Table::write_csv(const std::filesystem::path& path) const {
  errno = 0;
  std::ofstream out(path);
  if (!out) throw InvalidArgument("cannot write '" + printable(path.string()) + "'" + (errno ? ": " + std::string(std::strerror(errno)) : ""));
  auto write_line = [&](const std::vector<std::string>& line) {
    for (std::size_t c = 0; c < line.size(); ++c) out << (c ? "," : "") << csv_cell(line[c]);
    out << "\n";
  };
  errno = 0;
  write_line(header);
  for (const auto& row : rows) write_line(row);
  out.flush();
  if (!out) throw Error("write failed: " + path.string() + ": " + (errno ? std::strerror(errno) : "write error"));
}

void Table::print_markdown(std::ostream& out) const {
  auto print_line = [&](const std::vector<std::string>& line) {
    for (const auto& cell : line) {
      out << "| ";
      for (const char c : cell) out << (c == '|' ? "\\|" : std::string(1, c));
      out << " ";
    }
    out << "|\n";
  };
  print_line(header);
  print_line(std::vector<std::string>(header.size(), "---"));
  for (const auto& row : rows) print_line(row);
}

namespace {

constexpr int kExactDigits = 17;  // round-trip digits of a double

std::string absent(Precision precision) { return precision == Precision::kShort ? kNoValue : ""; }

}  // namespace

std::string error_cell(const std::optional<double>& value, Precision precision) {
  if (!value) return absent(precision);
  if (precision == Precision::kExact) return format_general(*value, kExactDigits);
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.2e", *value);
  return buffer;
}

std::string number_cell(const std::optional<double>& value, int digits, Precision precision) {
  if (!value) return absent(precision);
  return format_general(*value, precision == Precision::kExact ? kExactDigits : digits);
}

std::string count_cell(const std::optional<long long>& value, Precision precision) {
  return value ? std::to_string(*value) : absent(precision);
}

}  // namespace hysim::app
