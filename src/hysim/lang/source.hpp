// Model files as text: where a piece of it is (file:line:column), and the diagnostics that
// point there, with the line shown and a caret under the column.
//
// Every error the language reports is a Diagnostic; a file with errors throws
// ModelFileError carrying all of them (the parser stops at its first syntax error, the
// checks of the resolver report every problem they find). ModelFileError is an
// InvalidArgument, so `hysim` exits with status 2 for a bad file, as for a bad option.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "hysim/core/errors.hpp"

namespace hysim::lang {

// A position in a source file; line and column count from 1 (column in bytes).
struct Location {
  int line = 0;
  int column = 0;
};

// The text of one model file with its name (a path, or "<string>").
class SourceText {
 public:
  SourceText(std::string name, std::string text);

  const std::string& name() const { return name_; }
  const std::string& text() const { return text_; }
  // The location of byte `offset`.
  Location locate(std::size_t offset) const;
  // The text of line `line` (1-based), without its newline; empty past the end.
  std::string_view line(int line) const;

 private:
  std::string name_;
  std::string text_;
  std::vector<std::size_t> line_starts_;
};

enum class Severity { kError, kWarning };

struct Diagnostic {
  Severity severity = Severity::kError;
  Location where;
  std::string message;  // what is wrong, and what was expected or what to do
};

// "file:3:14: error: message", then the line and a caret under column 14.
std::string render(const SourceText& source, const Diagnostic& diagnostic);

// A model file that cannot be compiled: what() holds every diagnostic, rendered.
class ModelFileError : public InvalidArgument {
 public:
  ModelFileError(const SourceText& source, std::vector<Diagnostic> diagnostics);
  const std::vector<Diagnostic>& diagnostics() const { return diagnostics_; }

 private:
  std::vector<Diagnostic> diagnostics_;
};

// The candidate closest to `name` by edit distance, when it is close enough to be a likely
// misspelling (at most a third of the name's length, at least 1); empty otherwise.
std::string closest_name(std::string_view name, const std::vector<std::string>& candidates);

}  // namespace hysim::lang
