#include "hysim/study/format.hpp"

#include <charconv>
#include <sstream>

namespace hysim::study {

std::string format_shortest(double value) {
  char text[32];
  return std::string(text, std::to_chars(text, text + sizeof text, value).ptr);
}

std::string format_general(double value, int digits) {
  std::ostringstream out;
  out.precision(digits);
  out << value;
  return out.str();
}

}  // namespace hysim::study
