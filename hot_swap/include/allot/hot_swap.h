// Hot swap from a policy file: compile and check it off the decision path, then
// swap it into a PolicySlot (allot/policy_slot.h) or dry-run it against a live
// state. allot_hot_swap links the runtime and the compiler's back end; the slot
// itself (runtime/) needs no compiler. docs/HOT_SWAP.md describes what an operator sees.
#pragma once

#include <functional>
#include <optional>
#include <string>

#include "allot/compile.h"
#include "allot/cycle.h"
#include "allot/frontend.h"
#include "allot/policy_slot.h"

namespace allot::runtime {

// A driver's own check of a compiled policy before it may run (the Slurm
// adapter: its job map names only accounts and classes the policy has): why
// it is refused, or nullopt.
using CandidateCheck = std::function<std::optional<std::string>(const CompiledPolicy&)>;

// Compiles and checks `path` on the calling thread (not the decision path) into what a
// slot may run: a driver's first policy, and every swap below. Refused: a policy with
// errors, one that fails to compile (exceptions from the compiler become refusals, never
// crashes), one `check` refuses, and one the JIT could not load when `options` asks for
// the JIT (the one rule for that case, at start and at every swap: docs/HOT_SWAP.md).
SwapCandidate compile_candidate(const std::string& path, const CompileOptions& options,
                                const CandidateCheck& check = {});

// compile_candidate for a policy given as text (`allot serve`'s POST /policy):
// `name` is the file it is taken to be (errors name it, and its folder is where
// its own imports may come from, with options.check.import_path).
SwapCandidate compile_candidate_source(const std::string& name, const std::string& text, const CompileOptions& options,
                                       const CandidateCheck& check = {});

// compile_candidate, then an atomic swap (PolicySlot::swap_candidate); a refused
// candidate is refused and the old policy keeps running.
SwapOutcome swap_from_file(PolicySlot& slot, const std::string& path, const CompileOptions& options,
                           const CandidateCheck& check = {});

// compile_candidate, then the rankings of `live` under the running policy and the
// candidate (PolicySlot::dry_run_candidate). Swaps nothing.
DryRun dry_run_from_file(const PolicySlot& slot, const std::string& path, const CompileOptions& options,
                         const ClusterState& live, const CycleOptions& cycle = {}, const CandidateCheck& check = {});

// One line for a log or an audit record, the way compilers print a location:
// "file:line:column: error[code]: message" ("file: warning[code]: ..." without one).
std::string diagnostic_line(const Diagnostic& diagnostic);

// The message, then the diagnostics rendered as text with their source lines.
std::string render_swap_outcome(const SwapOutcome& outcome, TextStyle style = {});

}  // namespace allot::runtime
