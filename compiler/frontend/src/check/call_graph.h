// Which user functions call which, and the order to type them in: callees
// before callers, with each recursive cycle kept together.
#pragma once

#include <vector>

#include "../ast.h"
#include "check_context.h"

namespace allot {

// One call from a function's body to another user function.
struct CallEdge {
  std::size_t callee = 0;           // index into CallGraph::functions
  const ast::Expr* call = nullptr;  // the first such call in the caller's body
};

// The user functions visible to the root file and the calls between them.
struct CallGraph {
  std::vector<const ast::FnDecl*> functions;  // in the scope's (name) order
  std::vector<std::vector<CallEdge>> calls;   // calls[i]: what functions[i] calls, in source order
};

// The call graph of every function in `scope`. Calls to builtins (which win
// over a user function of the same name) and unknown names are not edges.
CallGraph build_call_graph(const Scope& scope);

// A strongly connected component of the call graph: a single function, or a
// set of functions that reach each other.
struct CallComponent {
  std::vector<std::size_t> members;
  bool recursive = false;  // more than one member, or a function that calls itself
};

// The components of `graph`, callees first (reverse topological order), so
// typing them in this order finds every non-recursive callee already typed.
// Iterative: a chain of thousands of functions does not exhaust the stack.
std::vector<CallComponent> call_components(const CallGraph& graph);

// A shortest cycle through a recursive component: the functions in call
// order starting at its first-declared member, and the call that closes it.
struct CallCycle {
  std::vector<std::size_t> path;
  const ast::Expr* closing_call = nullptr;
};

// The cycle to report for a recursive component.
CallCycle find_cycle(const CallGraph& graph, const CallComponent& component);

}  // namespace allot
