#include "hysim/events/engine.hpp"

#include "hysim/core/errors.hpp"

namespace hysim {

namespace {

std::deque<EngineInfo>& catalog() {
  static std::deque<EngineInfo> engines;
  return engines;
}

}  // namespace

const std::deque<EngineInfo>& engine_catalog() { return catalog(); }

void register_engine(EngineInfo info) {
  if (info.name.empty()) throw InvalidArgument("register_engine: the engine has no name");
  for (const auto& known : catalog()) {
    if (known.name == info.name) throw InvalidArgument("register_engine: engine '" + info.name + "' exists");
  }
  catalog().push_back(std::move(info));
}

const EngineInfo& find_engine(std::string_view name) {
  std::string known;
  for (const auto& info : catalog()) {
    if (info.name == name) return info;
    known += (known.empty() ? "" : ", ") + info.name;
  }
  throw InvalidArgument("unknown engine '" + std::string(name) + "' (known: " + known + ")");
}

}  // namespace hysim
