#include "check_context.h"
namespace allot {
void check_contracts(const Scope&, const CheckContext&) {}
}  // namespace allot
