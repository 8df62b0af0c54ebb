#include "hysim/lang/source.hpp"

#include <algorithm>
#include <numeric>

#include "hysim/core/printable.hpp"

namespace hysim::lang {

SourceText::SourceText(std::string name, std::string text) : name_(std::move(name)), text_(std::move(text)) {
  line_starts_.push_back(0);
  for (std::size_t i = 0; i < text_.size(); ++i) {
    if (text_[i] == '\n') line_starts_.push_back(i + 1);
  }
}

Location SourceText::locate(std::size_t offset) const {
  offset = std::min(offset, text_.size());
  const auto next = std::upper_bound(line_starts_.begin(), line_starts_.end(), offset);
  const auto line = static_cast<std::size_t>(next - line_starts_.begin());  // >= 1
  return Location{static_cast<int>(line), static_cast<int>(offset - line_starts_[line - 1]) + 1};
}

std::string_view SourceText::line(int line) const {
  if (line < 1 || static_cast<std::size_t>(line) > line_starts_.size()) return {};
  const std::size_t begin = line_starts_[static_cast<std::size_t>(line) - 1];
  std::size_t end = text_.find('\n', begin);
  if (end == std::string::npos) end = text_.size();
  if (end > begin && text_[end - 1] == '\r') --end;
  return std::string_view(text_).substr(begin, end - begin);
}

std::string render(const SourceText& source, const Diagnostic& diagnostic) {
  const Location at = diagnostic.where;
  // The file's name, the message (which quotes names from the file) and the line are shown
  // printable: control bytes in a file never reach the terminal (core/printable.hpp).
  std::string out = printable(source.name()) + ":" + std::to_string(at.line) + ":" + std::to_string(at.column) + ": " +
                    (diagnostic.severity == Severity::kError ? "error: " : "warning: ") + printable(diagnostic.message) +
                    "\n";
  const std::string_view text = source.line(at.line);
  if (at.line < 1) return out;
  // The caret sits under the column: under the escaped text before it, tabs kept so that it
  // lines up in a terminal.
  const std::size_t column = std::min(static_cast<std::size_t>(std::max(at.column, 1)) - 1, text.size());
  const std::string before = printable(text.substr(0, column), "\t");
  out += "  " + before + printable(text.substr(column), "\t") + "\n  ";
  for (const char c : before) {
    if ((static_cast<unsigned char>(c) & 0xC0) == 0x80) continue;  // a UTF-8 character is one column
    out += c == '\t' ? '\t' : ' ';
  }
  // past the end of the line (a missing token at its end)
  for (std::size_t i = column + 1; i < static_cast<std::size_t>(std::max(at.column, 1)); ++i) out += ' ';
  out += "^\n";
  return out;
}

namespace {

std::string render_all(const SourceText& source, const std::vector<Diagnostic>& diagnostics) {
  std::string out;
  for (const auto& d : diagnostics) out += render(source, d);
  if (!out.empty() && out.back() == '\n') out.pop_back();
  return out;
}

std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> row(b.size() + 1);
  std::iota(row.begin(), row.end(), std::size_t{0});
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

}  // namespace

ModelFileError::ModelFileError(const SourceText& source, std::vector<Diagnostic> diagnostics)
    : InvalidArgument(render_all(source, diagnostics)), diagnostics_(std::move(diagnostics)) {}

std::string closest_name(std::string_view name, const std::vector<std::string>& candidates) {
  std::string best;
  std::size_t best_distance = std::max<std::size_t>(1, name.size() / 3) + 1;
  for (const auto& candidate : candidates) {
    const std::size_t d = edit_distance(name, candidate);
    if (d < best_distance) {
      best = candidate;
      best_distance = d;
    }
  }
  return best;
}

}  // namespace hysim::lang
