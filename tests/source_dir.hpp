// Where the source tree is, for tests and benchmarks that read the shipped model files, rule
// tables and fuzz corpora. Defined in source_dir.cpp, the one file compiled with the path, so
// that the files using it do not depend on where the clone is (ccache reuses them).
#pragma once

#include <string>

namespace hysim::testing {

// The project's source directory, without a trailing slash.
std::string source_dir();

}  // namespace hysim::testing
