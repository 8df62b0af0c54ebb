// A reference read from a file: the events.csv of an earlier `hysim run` of the same model,
// typically in float128 with tight tolerances, for `compare` and `workprecision` on a model
// without an exact reference (a model file, a changed parameter):
//
//   hysim run FILE.hym --scalar float128 --rtol 1e-20 --atol 1e-24 --t-end 10 --out ref
//   hysim workprecision FILE.hym --t-end 10 --reference ref/events.csv --out wp
#pragma once

#include <string>
#include <vector>

#include "hysim/models/reference.hpp"

namespace hysim::study {

// One reference event per event index of the file: its first row's time, mode left, guard and
// state x-, and its last row's mode entered. Times and states are read as float128 from their
// decimal text. Throws InvalidArgument naming the file (and line) when it cannot be read, its
// header is not that of events.csv, or its states are not `state_names` in order.
Reference read_reference_events(const std::string& path, const std::vector<std::string>& state_names);

}  // namespace hysim::study
