// Numbers as the study's tables and quantities write them.
#pragma once

#include <string>

namespace hysim::study {

// `value` in its shortest form that reads back to it ("0.1", "1.7976931348623157e+308").
std::string format_shortest(double value);
// `value` with `digits` significant digits, the shorter of fixed and scientific notation.
std::string format_general(double value, int digits);

}  // namespace hysim::study
