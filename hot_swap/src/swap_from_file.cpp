// The paths of hot swap that compile (allot/hot_swap.h): a policy file compiled
// into a SwapCandidate, then swapped in or dry-run by the slot (runtime/,
// allot/policy_slot.h), which knows no compiler.
#include "allot/hot_swap.h"

#include <fmt/format.h>

#include <algorithm>
#include <exception>

namespace allot::runtime {
namespace {

bool is_error(const Diagnostic& diagnostic) { return diagnostic.severity == Severity::error; }

// The first error with its location, and how many more there are.
std::string first_error(const std::vector<Diagnostic>& diagnostics) {
  const auto error = std::find_if(diagnostics.begin(), diagnostics.end(), is_error);
  if (error == diagnostics.end()) return "the policy did not compile";
  const auto more = std::count_if(diagnostics.begin(), diagnostics.end(), is_error) - 1;
  if (more == 0) return diagnostic_line(*error);
  return fmt::format("{} (and {} more error{})", diagnostic_line(*error), more, more == 1 ? "" : "s");
}

}  // namespace

std::string diagnostic_line(const Diagnostic& diagnostic) {
  const char* severity = diagnostic.severity == Severity::error ? "error" : "warning";
  if (diagnostic.span.line <= 0) {
    return fmt::format("{}: {}[{}]: {}", diagnostic.span.file, severity, diagnostic.code, diagnostic.message);
  }
  return fmt::format("{}:{}:{}: {}[{}]: {}", diagnostic.span.file, diagnostic.span.line, diagnostic.span.column,
                     severity, diagnostic.code, diagnostic.message);
}

namespace {

// The rules of compile_candidate around any way of compiling (`compile`).
template <class Compile>
SwapCandidate candidate_from(const std::string& path, const CompileOptions& options, const CandidateCheck& check,
                             Compile compile) {
  SwapCandidate candidate;
  CompileResult result;
  try {
    result = compile();
  } catch (const std::exception& failure) {
    // Exceptions stop here: a swap that cannot compile is a refusal, not a crash of the scheduler.
    candidate.refusal = fmt::format("compiling `{}` failed: {}", path, failure.what());
    return candidate;
  } catch (...) {
    candidate.refusal = fmt::format("compiling `{}` failed", path);
    return candidate;
  }
  candidate.diagnostics = std::move(result.diagnostics);
  candidate.sources = std::move(result.sources);
  if (!result.policy) {
    candidate.refusal = first_error(candidate.diagnostics);
  } else if (options.engine == Engine::jit && result.policy->engine() != Engine::jit) {
    // The interpreter would give the same decisions, only slower; a scheduler
    // sized for the JIT should not slow down silently, so the operator chooses.
    candidate.refusal = fmt::format(
        "the JIT could not load `{}` (warning jit_unavailable); swap with the interpreter engine to run it anyway",
        path);
  } else {
    try {
      if (check) {
        if (auto refusal = check(*result.policy)) {
          candidate.refusal = std::move(*refusal);
          return candidate;
        }
      }
    } catch (const std::exception& failure) {
      candidate.refusal = fmt::format("checking `{}` failed: {}", path, failure.what());
      return candidate;
    }
    candidate.policy = std::move(result.policy);
  }
  return candidate;
}

}  // namespace

SwapCandidate compile_candidate(const std::string& path, const CompileOptions& options, const CandidateCheck& check) {
  return candidate_from(path, options, check, [&] { return compile_policy_file(path, options); });
}

SwapCandidate compile_candidate_source(const std::string& name, const std::string& text, const CompileOptions& options,
                                       const CandidateCheck& check) {
  return candidate_from(name, options, check, [&] { return compile_policy_source(name, text, options); });
}

SwapOutcome swap_from_file(PolicySlot& slot, const std::string& path, const CompileOptions& options,
                           const CandidateCheck& check) {
  return slot.swap_candidate(compile_candidate(path, options, check));
}

DryRun dry_run_from_file(const PolicySlot& slot, const std::string& path, const CompileOptions& options,
                         const ClusterState& live, const CycleOptions& cycle, const CandidateCheck& check) {
  return slot.dry_run_candidate(compile_candidate(path, options, check), live, cycle);
}

std::string render_swap_outcome(const SwapOutcome& outcome, TextStyle style) {
  std::string text = outcome.message + "\n";
  if (!outcome.diagnostics.empty()) text += render_text(outcome.diagnostics, outcome.sources, style);
  return text;
}

}  // namespace allot::runtime
