#include "backfill.h"

#include <algorithm>

#include "allot/contracts.h"
#include "allot/duration.h"

namespace allot::runtime::cycle {

void Backfill::add(Hold hold) {
  holds_.push_back(std::move(hold));
  failed_.clear();
}

std::optional<BackfillChoice> Backfill::plan(const PendingJob& job, Capacity& capacity) {
  if (holds_.empty()) return std::nullopt;
  const Seconds now = context_.state.now;
  const ClassInfo& info = context_.tables.classes[static_cast<std::size_t>(job.job_class)];
  BackfillChoice choice;
  choice.limit = runtime_estimate(info, *job.request);
  choice.bounded = choice.limit > 0 && choice.limit <= support::kLatestEpochSeconds - now;
  const Seconds ends = choice.bounded ? now + choice.limit : support::kLatestEpochSeconds;
  std::uint64_t lenders = 0;
  std::vector<const Claim*> lent;
  for (std::size_t h = 0; h < holds_.size() && h < 64; ++h) {
    if (!holds_[h].when) continue;
    const bool yields = holds_[h].lends_to_yielders && may_yield_by(job, *holds_[h].when);
    if (ends <= *holds_[h].when || yields) {
      lenders |= std::uint64_t{1} << h;
      lent.push_back(&holds_[h].claim);
    }
  }
  if (lenders == 0) return std::nullopt;
  FailedShapes& failed = failed_[lenders];
  if (failed.known_to_fail(job.shape)) return std::nullopt;
  auto nodes = capacity.find_lending(lent, job.shape);
  if (!nodes) {
    failed.remember(job.shape);
    return std::nullopt;
  }
  choice.until = support::kLatestEpochSeconds;
  for (std::size_t h = 0; h < holds_.size() && h < 64; ++h) {
    if (!(lenders >> h & 1)) continue;
    const std::vector<int>& held = holds_[h].claim.nodes;
    const bool shared = std::any_of(nodes->begin(), nodes->end(),
                                    [&](int node) { return std::find(held.begin(), held.end(), node) != held.end(); });
    if (!shared) continue;
    const Seconds when = *holds_[h].when;
    choice.until = std::min(choice.until, when);
    if (ends > when) choice.yields_at = std::min(choice.yields_at.value_or(when), when);
    choice.held_for.push_back(holds_[h].job_id);
  }
  choice.nodes = std::move(*nodes);
  return choice;
}

// Whether `job` may backfill onto capacity held until `when` and yield it back
// then: its class lets it be preempted and resumed (the job may be requeued,
// checkpoints periodically, and is no fast-lane job, which is never stopped),
// its protection ends by then, and it runs at least one checkpoint interval
// first, so each yield keeps progress. Only some holds lend this way
// (Hold::lends_to_yielders). Yields are no way around the share rule: they
// stop only jobs that took held capacity on this promise, for the job it was
// held for, ranked above them (docs/SCHEDULING.md "Backfill that yields").
bool Backfill::may_yield_by(const PendingJob& job, Seconds when) const {
  const Seconds now = context_.state.now;
  // The contract it would start under now (the same one a start records).
  const Contract contract = contract_at_start(context_.tables.classes[static_cast<std::size_t>(job.job_class)],
                                              *job.request, now, context_.policy.source_hash());
  if (!contract.preemptible || !contract.resumable || !job.request->requeueable || contract.checkpoint_every <= 0 ||
      context_.in_fast_lane(job.job_class)) {
    return false;
  }
  return contract.protected_until <= when && now + contract.checkpoint_every <= when;
}

}  // namespace allot::runtime::cycle
