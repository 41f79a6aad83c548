// Lowering: a policy that checked without errors becomes an ir::LoweredPolicy
// (names resolved, functions and `let`s inlined, literals in abi units,
// constants folded, identical nodes shared, tables built from the tree).
#pragma once

#include "check/typing.h"
#include "ir.h"
#include "load/loader.h"

namespace allot::ir {

// Lowers the policy of a checked program (modules[0] must hold one), with the
// scope and types the checker computed. The program must have checked without
// errors (`checked.clean`): lowering reports nothing and assumes every name,
// type and tree reference is valid.
LoweredPolicy lower_program(const CheckedProgram& checked, const SourceManager& sources);

// The hex SHA-256 over every file in `sources`, in load order, each as its
// byte length in decimal, a newline, then its text.
std::string source_hash(const SourceManager& sources);

}  // namespace allot::ir
