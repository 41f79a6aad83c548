// Hot swap: the running policy of a scheduler, replaced without a restart.
//
// A PolicySlot holds the compiled policy that scheduling cycles run. A driver
// (the Slurm adapter, a service) calls current() once at the start of each
// cycle and keeps the pointer until the cycle ends, so a swap never changes the
// code under a running cycle; the next cycle picks up the new policy. Compiling
// and checking a new policy happens on the caller of swap_candidate (or of
// swap_from_file, allot/hot_swap.h), never on the decision path, and a policy
// that does not compile is refused with its diagnostics while the old one keeps
// running. Jobs keep the Contract they started under (allot/cycle.h), so a swap
// never takes protection away.
//
// Before a swap an operator can rank the live state with both policies
// (diff_rankings, or PolicySlot::dry_run_candidate) and read who moves.
// docs/HOT_SWAP.md describes what an operator sees.
//
// Linking: nothing here calls the compiler. Compiling a policy file into a
// SwapCandidate (swap_from_file, dry_run_from_file, render_swap_outcome) is
// allot_hot_swap's (hot_swap/, allot/hot_swap.h), which links the compiler.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "allot/cycle.h"
#include "allot/diagnostic.h"
#include "allot/policy.h"

namespace allot::runtime {

// What a swap did, for the operator and the log.
struct SwapOutcome {
  bool swapped = false;
  std::string policy_hash;              // the policy running after the call
  std::uint64_t generation = 0;         // the slot's generation after the call
  std::vector<Diagnostic> diagnostics;  // why a swap was refused (errors), and warnings
  SourceTexts sources;                  // for rendering the diagnostics (render_swap_outcome, allot/hot_swap.h)
  // One line for a log: "swapped to <hash> (generation 3), replacing <hash>" /
  // "refused: <file>:<line>:<column>: error[<code>]: ...; <hash> keeps running (generation 2)".
  std::string message;
};

// Where one pending job stands under the running policy (`before`) and a candidate (`after`).
struct RankChange {
  std::string job_id;
  std::string account;
  std::optional<std::size_t> before_position;  // 0 = first; nullopt: that policy does not rank the job
  std::optional<std::size_t> after_position;
  double before_rank = 0;
  double after_rank = 0;
  std::string unranked_reason;  // why a policy does not rank the job (its skip reason); empty when both do
  bool starts_before = false;   // starts in this cycle under `before`
  bool starts_after = false;
  // Places gained with the swap (positive: closer to the front); 0 unless both rank the job.
  long places_gained() const;
};

// How a swap would reorder the queue of one live state.
struct RankDiff {
  std::string before_hash;
  std::string after_hash;
  Seconds now = 0;
  // Every pending job: first those `after` ranks, in its order, then those only `before` ranks, then the rest.
  std::vector<RankChange> jobs;
  std::size_t ranked_by_both = 0;
  std::size_t moved = 0;             // of those, jobs whose position changes
  std::uint64_t compared_pairs = 0;  // pairs of jobs both policies rank
  std::uint64_t discordant_pairs = 0;
  // Kendall's tau over the jobs both rank: 1 same order, 0 unrelated, -1 reversed.
  double kendall_tau = 1;
  std::vector<std::string> starts_gained;       // jobs that would start this cycle only after the swap
  std::vector<std::string> starts_lost;         // jobs that would start this cycle only before it
  std::vector<std::string> preemptions_gained;  // running jobs preempted this cycle only after the swap
  std::vector<std::string> preemptions_lost;

  // Jobs in the first `top` places after the swap that were not before (unranked counts as outside).
  std::vector<const RankChange*> entering_top(std::size_t top) const;
  // Jobs in the first `top` places before the swap that are not after it.
  std::vector<const RankChange*> leaving_top(std::size_t top) const;
};

// Ranks the same state with two policies (run_cycle on each; no state is modified).
RankDiff diff_rankings(const ClusterState& state, const CompiledPolicy& before, const CompiledPolicy& after,
                       const CycleOptions& options = {});

// The diff for people: a summary, the first `top` places, who enters and leaves them.
std::string render_rank_diff(const RankDiff& diff, std::size_t top);

// A policy compiled and checked off the decision path (allot/hot_swap.h makes one
// from a file), or why it is refused.
struct SwapCandidate {
  std::shared_ptr<const CompiledPolicy> policy;  // null when refused
  std::vector<Diagnostic> diagnostics;           // the compiler's errors and warnings
  SourceTexts sources;
  std::string refusal;  // why, when `policy` is null: "file:line:column: error[code]: ..."
};

// A dry run of a candidate policy on a live state: compiled and checked, not running.
struct DryRun {
  SwapOutcome outcome;                              // swapped is false; refusals as in swap_candidate
  std::shared_ptr<const CompiledPolicy> candidate;  // null when refused; give it to swap_if to run it
  std::uint64_t base_generation = 0;                // the generation the diff compares against
  std::optional<RankDiff> diff;                     // empty when refused
};

// The running policy of a scheduler. Thread-safe: any number of threads call
// current(), any number call the swap functions (swaps are serialised).
class PolicySlot {
 public:
  // The slot starts at generation 1. Throws std::invalid_argument when `initial` is null.
  explicit PolicySlot(std::shared_ptr<const CompiledPolicy> initial);
  ~PolicySlot();
  PolicySlot(const PolicySlot&) = delete;
  PolicySlot& operator=(const PolicySlot&) = delete;

  // What a cycle runs on: the caller holds the pointer for the whole cycle, so a swap
  // never changes the code under a running cycle. Never blocks on a compile.
  std::shared_ptr<const CompiledPolicy> current() const;
  // Incremented by every swap; 1 for the initial policy.
  std::uint64_t generation() const;

  // The policy and its generation, read together.
  struct Running {
    std::shared_ptr<const CompiledPolicy> policy;
    std::uint64_t generation = 0;
  };
  Running running() const;

  // Swaps atomically to a candidate compiled and checked on the calling thread (not the decision
  // path). A refused candidate (errors, or no JIT) is refused; the old one keeps running. The
  // outcome keeps the candidate's diagnostics and sources.
  SwapOutcome swap_candidate(SwapCandidate candidate);
  // Swaps to an already compiled policy; a null one is refused.
  SwapOutcome swap(std::shared_ptr<const CompiledPolicy> next);
  // Swaps only while the slot still runs `expected_generation` (the base of a dry run):
  // otherwise refused, so a policy is never swapped in over one its diff did not see.
  SwapOutcome swap_if(std::shared_ptr<const CompiledPolicy> next, std::uint64_t expected_generation);

  // Diffs the rankings of `live` under the running policy and the candidate (refused as
  // swap_candidate would refuse it). Swaps nothing.
  DryRun dry_run_candidate(SwapCandidate candidate, const ClusterState& live, const CycleOptions& cycle = {}) const;

  // Replaced policies not released yet (a cycle may still hold them). They are
  // released by the thread that swaps (at the next swap, or in release_retired), never
  // by a cycle: a JIT policy's release unmaps code under the JIT's lock, which a cycle
  // must not wait on.
  std::size_t retired_count() const;
  // Releases the replaced policies no cycle holds any more; returns how many.
  std::size_t release_retired();

 private:
  SwapOutcome install(std::shared_ptr<const CompiledPolicy> next, std::optional<std::uint64_t> expected_generation,
                      SwapOutcome outcome);
  std::size_t release_retired_locked();

  // Invariant: `running_.policy` is never null. Readers copy `running_` under
  // `current_mutex_` (a pointer copy and a reference-count increment); a swap
  // holds it only to exchange the pointer. GCC 12's std::atomic<std::shared_ptr>
  // was measured against this (bench/hot_swap_bench.cpp, docs/PERFORMANCE.md)
  // and is not ThreadSanitizer-clean: see docs/HOT_SWAP.md.
  mutable std::mutex current_mutex_;
  Running running_;
  // Serialises swaps and guards `retired_`; never taken by current().
  mutable std::mutex swap_mutex_;
  std::vector<std::shared_ptr<const CompiledPolicy>> retired_;
};

}  // namespace allot::runtime
