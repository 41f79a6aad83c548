// The paths of hot swap that compile (allot/policy_slot.h): swap_from_file and
// dry_run_from_file. They are apart from the slot (policy_slot.cpp) so a driver
// that swaps in policies it compiled itself links no compiler code through them.
#include <fmt/format.h>

#include <algorithm>
#include <exception>

#include "allot/policy_slot.h"
#include "hot_swap/swap_messages.h"

namespace allot::runtime {
namespace {

using hot_swap::refuse;
using hot_swap::short_hash;
using hot_swap::warnings_suffix;

// "file:line:column: error[code]: message", the way compilers print a location.
std::string located(const Diagnostic& diagnostic) {
  const char* severity = diagnostic.severity == Severity::error ? "error" : "warning";
  if (diagnostic.span.line <= 0) {
    return fmt::format("{}: {}[{}]: {}", diagnostic.span.file, severity, diagnostic.code, diagnostic.message);
  }
  return fmt::format("{}:{}:{}: {}[{}]: {}", diagnostic.span.file, diagnostic.span.line, diagnostic.span.column,
                     severity, diagnostic.code, diagnostic.message);
}

bool is_error(const Diagnostic& diagnostic) { return diagnostic.severity == Severity::error; }

// The first error with its location, and how many more there are.
std::string first_error(const std::vector<Diagnostic>& diagnostics) {
  const auto error = std::find_if(diagnostics.begin(), diagnostics.end(), is_error);
  if (error == diagnostics.end()) return "the policy did not compile";
  const auto more = std::count_if(diagnostics.begin(), diagnostics.end(), is_error) - 1;
  if (more == 0) return located(*error);
  return fmt::format("{} (and {} more error{})", located(*error), more, more == 1 ? "" : "s");
}

// A policy compiled and checked off the decision path, or why it is refused.
struct Candidate {
  std::shared_ptr<const CompiledPolicy> policy;  // null when refused
  SwapOutcome outcome;                           // diagnostics and sources; the rest is filled later
  std::string refusal;
};

Candidate compile_candidate(const std::string& path, const CompileOptions& options) {
  Candidate candidate;
  CompileResult result;
  try {
    result = compile_policy_file(path, options);
  } catch (const std::exception& failure) {
    // Exceptions stop here: a swap that cannot compile is a refusal, not a crash of the scheduler.
    candidate.refusal = fmt::format("compiling `{}` failed: {}", path, failure.what());
    return candidate;
  }
  candidate.outcome.diagnostics = std::move(result.diagnostics);
  candidate.outcome.sources = std::move(result.sources);
  if (!result.policy) {
    candidate.refusal = first_error(candidate.outcome.diagnostics);
  } else if (options.engine == Engine::jit && result.policy->engine() != Engine::jit) {
    // The interpreter would give the same decisions, only slower; a scheduler
    // sized for the JIT should not slow down silently, so the operator chooses.
    candidate.refusal = fmt::format(
        "the JIT could not load `{}` (warning jit_unavailable); swap with the interpreter engine to run it anyway",
        path);
  } else {
    candidate.policy = std::move(result.policy);
  }
  return candidate;
}

}  // namespace

std::string render_swap_outcome(const SwapOutcome& outcome, TextStyle style) {
  std::string text = outcome.message + "\n";
  if (!outcome.diagnostics.empty()) text += render_text(outcome.diagnostics, outcome.sources, style);
  return text;
}

SwapOutcome PolicySlot::swap_from_file(const std::string& path, const CompileOptions& options) {
  Candidate candidate = compile_candidate(path, options);
  if (!candidate.policy) {
    refuse(candidate.outcome, running(), candidate.refusal);
    return std::move(candidate.outcome);
  }
  return install(std::move(candidate.policy), std::nullopt, std::move(candidate.outcome));
}

DryRun PolicySlot::dry_run_from_file(const std::string& path, const CompileOptions& options, const ClusterState& live,
                                     const CycleOptions& cycle) const {
  Candidate candidate = compile_candidate(path, options);
  const Running base = running();
  DryRun dry_run;
  dry_run.base_generation = base.generation;
  if (!candidate.policy) {
    refuse(candidate.outcome, base, candidate.refusal);
    dry_run.outcome = std::move(candidate.outcome);
    return dry_run;
  }
  dry_run.diff = diff_rankings(live, *base.policy, *candidate.policy, cycle);
  const RankDiff& diff = *dry_run.diff;
  dry_run.outcome = std::move(candidate.outcome);
  dry_run.outcome.policy_hash = base.policy->source_hash();
  dry_run.outcome.generation = base.generation;
  dry_run.outcome.message = fmt::format(
      "dry run: {} would replace {} (generation {}){}: {} of {} jobs ranked by both move, Kendall tau {:.3f}, "
      "{} starts gained, {} lost",
      short_hash(diff.after_hash), short_hash(diff.before_hash), base.generation,
      warnings_suffix(dry_run.outcome.diagnostics), diff.moved, diff.ranked_by_both, diff.kendall_tau,
      diff.starts_gained.size(), diff.starts_lost.size());
  dry_run.candidate = std::move(candidate.policy);
  return dry_run;
}

}  // namespace allot::runtime
