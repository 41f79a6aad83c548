// PolicySlot (allot/policy_slot.h): a pointer swapped under a short lock,
// replaced policies released on the swapping thread. Compiling a file into a
// candidate is allot_hot_swap's (hot_swap/src/swap_from_file.cpp).
#include "allot/policy_slot.h"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>
#include <utility>

#include "hot_swap/swap_messages.h"

namespace allot::runtime {

using hot_swap::refuse;
using hot_swap::short_hash;
using hot_swap::warnings_suffix;

PolicySlot::PolicySlot(std::shared_ptr<const CompiledPolicy> initial) : running_{std::move(initial), 1} {
  if (!running_.policy) throw std::invalid_argument("PolicySlot needs a policy to start with");
}

PolicySlot::~PolicySlot() = default;

std::shared_ptr<const CompiledPolicy> PolicySlot::current() const {
  std::lock_guard lock(current_mutex_);
  return running_.policy;
}

std::uint64_t PolicySlot::generation() const {
  std::lock_guard lock(current_mutex_);
  return running_.generation;
}

PolicySlot::Running PolicySlot::running() const {
  std::lock_guard lock(current_mutex_);
  return running_;
}

SwapOutcome PolicySlot::swap(std::shared_ptr<const CompiledPolicy> next) {
  return install(std::move(next), std::nullopt, SwapOutcome{});
}

SwapOutcome PolicySlot::swap_if(std::shared_ptr<const CompiledPolicy> next, std::uint64_t expected_generation) {
  return install(std::move(next), expected_generation, SwapOutcome{});
}

namespace {

// The outcome of a candidate before it is swapped in or refused: its diagnostics and sources.
SwapOutcome outcome_of(SwapCandidate& candidate) {
  SwapOutcome outcome;
  outcome.diagnostics = std::move(candidate.diagnostics);
  outcome.sources = std::move(candidate.sources);
  return outcome;
}

std::string refusal_of(const SwapCandidate& candidate) {
  return candidate.refusal.empty() ? "no policy to swap to" : candidate.refusal;
}

}  // namespace

SwapOutcome PolicySlot::swap_candidate(SwapCandidate candidate) {
  SwapOutcome outcome = outcome_of(candidate);
  if (!candidate.policy) {
    refuse(outcome, running(), refusal_of(candidate));
    return outcome;
  }
  return install(std::move(candidate.policy), std::nullopt, std::move(outcome));
}

DryRun PolicySlot::dry_run_candidate(SwapCandidate candidate, const ClusterState& live,
                                     const CycleOptions& cycle) const {
  const Running base = running();
  DryRun dry_run;
  dry_run.base_generation = base.generation;
  dry_run.outcome = outcome_of(candidate);
  if (!candidate.policy) {
    refuse(dry_run.outcome, base, refusal_of(candidate));
    return dry_run;
  }
  dry_run.diff = diff_rankings(live, *base.policy, *candidate.policy, cycle);
  const RankDiff& diff = *dry_run.diff;
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

SwapOutcome PolicySlot::install(std::shared_ptr<const CompiledPolicy> next,
                                std::optional<std::uint64_t> expected_generation, SwapOutcome outcome) {
  std::lock_guard swap_lock(swap_mutex_);
  std::uint64_t generation = 0;
  std::string replaced_hash;
  {
    const Running before = running();
    if (!next) {
      refuse(outcome, before, "no policy to swap to");
      return outcome;
    }
    if (expected_generation && *expected_generation != before.generation) {
      refuse(outcome, before,
             fmt::format("the dry run was made against generation {}, but generation {} runs now", *expected_generation,
                         before.generation));
      return outcome;
    }
    if (next == before.policy) {
      outcome.policy_hash = next->source_hash();
      outcome.generation = before.generation;
      outcome.message = fmt::format("unchanged: {} is already running (generation {})", short_hash(outcome.policy_hash),
                                    before.generation);
      return outcome;
    }
    generation = before.generation + 1;
    replaced_hash = before.policy->source_hash();
  }  // `before` no longer holds the old policy: only running_ and cycles do.
  Running replaced{next, generation};
  {
    std::lock_guard lock(current_mutex_);
    std::swap(running_, replaced);
  }
  // A policy swapped back in is running again, not retired.
  std::erase(retired_, next);
  if (std::find(retired_.begin(), retired_.end(), replaced.policy) == retired_.end()) {
    retired_.push_back(std::move(replaced.policy));
  }
  replaced.policy.reset();
  release_retired_locked();
  outcome.swapped = true;
  outcome.policy_hash = next->source_hash();
  outcome.generation = generation;
  outcome.message = fmt::format("swapped to {} (generation {}), replacing {}{}", short_hash(outcome.policy_hash),
                                generation, short_hash(replaced_hash), warnings_suffix(outcome.diagnostics));
  return outcome;
}

std::size_t PolicySlot::retired_count() const {
  std::lock_guard lock(swap_mutex_);
  return retired_.size();
}

std::size_t PolicySlot::release_retired() {
  std::lock_guard lock(swap_mutex_);
  return release_retired_locked();
}

std::size_t PolicySlot::release_retired_locked() {
  // use_count() == 1: only this list holds the policy. No one can take a new
  // reference (it is not running_), so the count cannot rise again.
  return std::erase_if(retired_,
                       [](const std::shared_ptr<const CompiledPolicy>& policy) { return policy.use_count() == 1; });
}

}  // namespace allot::runtime
