#include "hysim/core/log.hpp"

#include <spdlog/sinks/base_sink.h>

#include <cstdio>
#include <mutex>

#include "hysim/core/printable.hpp"

namespace hysim {

namespace {

// stderr, each line printable: the log names modes, guards and states from model files, whose
// control bytes must not reach the terminal (core/printable.hpp).
class PrintableStderrSink final : public spdlog::sinks::base_sink<std::mutex> {
 protected:
  void sink_it_(const spdlog::details::log_msg& message) override {
    spdlog::memory_buf_t formatted;
    formatter_->format(message, formatted);
    const std::string line = printable(std::string_view(formatted.data(), formatted.size()), "\n");
    std::fwrite(line.data(), 1, line.size(), stderr);
  }
  void flush_() override { std::fflush(stderr); }
};

}  // namespace

spdlog::logger& logger() {
  static const std::shared_ptr<spdlog::logger> instance = [] {
    auto created = std::make_shared<spdlog::logger>("hysim", std::make_shared<PrintableStderrSink>());
    spdlog::register_logger(created);
    created->set_pattern("[%l] %v");
    created->set_level(spdlog::level::warn);
    return created;
  }();
  return *instance;
}

void set_verbosity(int verbosity) {
  logger().set_level(verbosity >= 2   ? spdlog::level::debug
                     : verbosity == 1 ? spdlog::level::info
                     : verbosity == 0 ? spdlog::level::warn
                                      : spdlog::level::err);
}

}  // namespace hysim
