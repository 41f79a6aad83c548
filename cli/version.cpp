// `allot --version`: the version and the commit (cli/CMakeLists.txt defines both for this file alone).
#include <fmt/format.h>

#include "lint.h"

namespace allot::cli {

std::string version_text() { return fmt::format("allot {} ({})", ALLOT_VERSION, ALLOT_REVISION); }

}  // namespace allot::cli
