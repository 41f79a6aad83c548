#include "check_context.h"
namespace allot {
void check_types(const Program&, const Scope&, const CheckContext&) {}
}  // namespace allot
