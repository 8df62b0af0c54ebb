// `hysim reproduce shpakov` (apps/shpakov.cpp): the numbers 000-002 print, each beside our
// rule interpreter's value, the engine's value and an exact or independent one.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace hysim::app {

struct ShpakovRow {
  std::string source;     // "002, Table 1"
  std::string quantity;   // what the number is, with its unit
  std::string published;  // as printed
  std::optional<double> interpreter, engine, exact;
  std::string note;

  // published / exact - 1 when the published value is a number and an exact one exists.
  std::optional<double> published_deviation() const;
};

// Runs the shipped tables (models/rules/ under the working directory, else the installed
// copy); a few seconds.
std::vector<ShpakovRow> shpakov_rows();

}  // namespace hysim::app
