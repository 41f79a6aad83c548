#include "allot/compiler.h"
namespace allot {
std::string render_github(const std::vector<Diagnostic>&) { return ""; }
}  // namespace allot
