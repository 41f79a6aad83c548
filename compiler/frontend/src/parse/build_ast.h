// Turns a successful ANTLR parse tree into the AST (ast.h).
#pragma once

#include "../ast.h"
#include "parse_tree.h"

namespace allot {

// Builds the module of one parsed file. Reports literal problems the grammar
// cannot see (impossible dates) to `diagnostics`.
ast::Module build_module(const ParsedTree& tree, DiagnosticSink& diagnostics);

}  // namespace allot
