// How much the engine logs, on stderr. The logger itself (spdlog, hysim/core/log.hpp) is private
// to the library: this header is all a program needs.
#pragma once

namespace hysim {

// 0: warnings only (default), 1: transitions (info), 2: steps (debug); below 0: errors only
// (a benchmark that runs thousands of times; the warnings stay in RunResult::warnings).
void set_verbosity(int verbosity);

}  // namespace hysim
