#include "source_dir.hpp"

namespace hysim::testing {

std::string source_dir() { return HYSIM_SOURCE_DIR; }

}  // namespace hysim::testing
