// Command-line helpers shared by the benchmarks: comma lists and positive numbers.
#pragma once

#include <cmath>
#include <cstdlib>
#include <sstream>
#include <string>
#include <vector>

namespace hysim::bench {

// "a,b,c" -> {"a", "b", "c"}.
inline std::vector<std::string> split(const std::string& text) {
  std::vector<std::string> out;
  std::stringstream in(text);
  for (std::string item; std::getline(in, item, ',');) out.push_back(item);
  return out;
}

// The text as a finite positive number; otherwise usage(message) (which does not return).
template <class Usage>
double positive(const std::string& name, const char* text, Usage&& usage) {
  char* end = nullptr;
  const double v = std::strtod(text, &end);
  if (end == text || *end != '\0' || !(v > 0) || !std::isfinite(v)) usage(name + " must be a positive number, got '" + text + "'");
  return v;
}

}  // namespace hysim::bench
