// The engine's logger: spdlog, named "hysim", on stderr, quiet (warnings only) unless the
// program asks for more. info: one line per transition; debug: one line per step.
// Private to the library: included by its .cpp files and by headers that only they include
// (events/event_emitter.hpp), never by a header a user of the library includes.
#pragma once

#include <spdlog/spdlog.h>

#include "hysim/core/verbosity.hpp"

namespace hysim {

spdlog::logger& logger();

}  // namespace hysim

#define HYSIM_LOG_WARN(...) SPDLOG_LOGGER_WARN(&::hysim::logger(), __VA_ARGS__)
#define HYSIM_LOG_INFO(...) SPDLOG_LOGGER_INFO(&::hysim::logger(), __VA_ARGS__)
#define HYSIM_LOG_DEBUG(...) SPDLOG_LOGGER_DEBUG(&::hysim::logger(), __VA_ARGS__)
