// Hot swap from a policy file: compile and check it off the decision path, then
// swap it into a PolicySlot (allot/policy_slot.h) or dry-run it against a live
// state. allot_hot_swap links the runtime and the compiler's back end; the slot
// itself (runtime/) needs no compiler. docs/HOT_SWAP.md describes what an operator sees.
#pragma once

#include <string>

#include "allot/compile.h"
#include "allot/cycle.h"
#include "allot/frontend.h"
#include "allot/policy_slot.h"

namespace allot::runtime {

// Compiles and checks `path` on the calling thread (not the decision path), then swaps
// atomically (PolicySlot::swap_candidate). A policy with errors, one that fails to compile,
// or one the JIT cannot load when `options` asks for the JIT is refused, and the old one
// keeps running; exceptions from the compiler become refusals, never crashes.
SwapOutcome swap_from_file(PolicySlot& slot, const std::string& path, const CompileOptions& options);

// Compiles `path` as swap_from_file does and diffs the rankings of `live` under the
// running policy and the candidate (PolicySlot::dry_run_candidate). Swaps nothing.
DryRun dry_run_from_file(const PolicySlot& slot, const std::string& path, const CompileOptions& options,
                         const ClusterState& live, const CycleOptions& cycle = {});

// The message, then the diagnostics rendered as text with their source lines.
std::string render_swap_outcome(const SwapOutcome& outcome, TextStyle style = {});

}  // namespace allot::runtime
