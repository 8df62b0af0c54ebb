// The engine's logger: spdlog, named "hysim", on stderr, quiet (warnings only) unless the
// program asks for more. info: one line per transition; debug: one line per step.
#pragma once

#include <spdlog/spdlog.h>

namespace hysim {

spdlog::logger& logger();

// 0: warnings only (default), 1: transitions (info), 2: steps (debug).
void set_verbosity(int verbosity);

}  // namespace hysim

#define HYSIM_LOG_INFO(...) SPDLOG_LOGGER_INFO(&::hysim::logger(), __VA_ARGS__)
#define HYSIM_LOG_DEBUG(...) SPDLOG_LOGGER_DEBUG(&::hysim::logger(), __VA_ARGS__)
