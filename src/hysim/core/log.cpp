#include "hysim/core/log.hpp"

#include <spdlog/sinks/stdout_color_sinks.h>

namespace hysim {

spdlog::logger& logger() {
  static const std::shared_ptr<spdlog::logger> instance = [] {
    auto created = spdlog::stderr_color_mt("hysim");
    created->set_pattern("[%l] %v");
    created->set_level(spdlog::level::warn);
    return created;
  }();
  return *instance;
}

void set_verbosity(int verbosity) {
  logger().set_level(verbosity >= 2 ? spdlog::level::debug
                     : verbosity == 1 ? spdlog::level::info
                                      : spdlog::level::warn);
}

}  // namespace hysim
