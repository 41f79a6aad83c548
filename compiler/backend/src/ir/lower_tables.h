// Lowering of the declarations that become constant tables (lower_tables.cpp)
// and the class order both the tables and the expressions use.
#pragma once

#include <vector>

#include "allot/policy.h"
#include "load/loader.h"

namespace allot::ir {

// The classes visible to the root file in class-id order: imported files
// first, in load order, then the root file's own, each in declaration order.
std::vector<const ast::ClassDecl*> visible_classes(const Program& program);

// Everything about `policy` that is data, not code.
PolicyTables lower_tables(const Program& program, const ast::Policy& policy);

}  // namespace allot::ir
