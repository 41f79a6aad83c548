// diff_rankings (allot/policy_slot.h): one cycle of the same state under two
// policies, compared job by job.
#include <algorithm>
#include <set>
#include <unordered_map>

#include "allot/policy_slot.h"

namespace allot::runtime {
namespace {

// A job's place in one policy's cycle.
struct Placing {
  std::size_t position = 0;
  double rank = 0;
};

std::unordered_map<std::string, Placing> placings(const CycleResult& result) {
  std::unordered_map<std::string, Placing> by_id;
  for (std::size_t i = 0; i < result.ranked_job_ids.size(); ++i) {
    by_id.emplace(result.ranked_job_ids[i], Placing{i, result.ranks[i]});
  }
  return by_id;
}

std::set<std::string> ids_of(const CycleResult& result, DecisionKind kind) {
  std::set<std::string> ids;
  for (const Decision& decision : result.decisions) {
    if (decision.kind == kind) ids.insert(decision.job_id);
  }
  return ids;
}

// The skip reasons of the jobs a policy did not rank (an unknown account or class).
std::unordered_map<std::string, std::string> unranked_reasons(const CycleResult& result,
                                                              const std::unordered_map<std::string, Placing>& ranked) {
  std::unordered_map<std::string, std::string> reasons;
  for (std::size_t i = 0; i < result.skips.size(); ++i) {
    const std::string& id = result.skip_job_id(i);
    if (!ranked.count(id)) reasons.emplace(id, result.skip_reasons.at(result.skips[i].reason));
  }
  return reasons;
}

std::string reason_for(const std::unordered_map<std::string, std::string>& reasons, const std::string& job_id) {
  const auto found = reasons.find(job_id);
  return found == reasons.end() ? "not ranked" : found->second;
}

std::vector<std::string> only_in(const std::set<std::string>& these, const std::set<std::string>& not_those) {
  std::vector<std::string> ids;
  std::set_difference(these.begin(), these.end(), not_those.begin(), not_those.end(), std::back_inserter(ids));
  return ids;
}

// Inversions of `values` (pairs i < j with values[i] > values[j]), by merge sort: O(n log n).
std::uint64_t inversions(std::vector<std::size_t>& values, std::vector<std::size_t>& scratch, std::size_t begin,
                         std::size_t end) {
  if (end - begin < 2) return 0;
  const std::size_t middle = begin + (end - begin) / 2;
  std::uint64_t count = inversions(values, scratch, begin, middle) + inversions(values, scratch, middle, end);
  std::size_t left = begin, right = middle, out = begin;
  while (left < middle && right < end) {
    if (values[right] < values[left]) {
      count += middle - left;
      scratch[out++] = values[right++];
    } else {
      scratch[out++] = values[left++];
    }
  }
  while (left < middle) scratch[out++] = values[left++];
  while (right < end) scratch[out++] = values[right++];
  std::copy(scratch.begin() + static_cast<long>(begin), scratch.begin() + static_cast<long>(end),
            values.begin() + static_cast<long>(begin));
  return count;
}

// Kendall's tau over the jobs both policies rank. Positions are a total order
// (ties in rank are broken by submission, then id), so there are no ties.
void order_agreement(RankDiff& diff) {
  std::vector<const RankChange*> both;
  for (const RankChange& job : diff.jobs) {
    if (job.before_position && job.after_position) both.push_back(&job);
  }
  std::sort(both.begin(), both.end(),
            [](const RankChange* a, const RankChange* b) { return *a->before_position < *b->before_position; });
  std::vector<std::size_t> after(both.size()), scratch(both.size());
  for (std::size_t i = 0; i < both.size(); ++i) after[i] = *both[i]->after_position;
  const std::uint64_t n = both.size();
  diff.ranked_by_both = both.size();
  diff.compared_pairs = n < 2 ? 0 : n * (n - 1) / 2;
  diff.discordant_pairs = inversions(after, scratch, 0, after.size());
  if (diff.compared_pairs > 0) {
    diff.kendall_tau =
        1.0 - 2.0 * static_cast<double>(diff.discordant_pairs) / static_cast<double>(diff.compared_pairs);
  }
}

// Ranked after the swap first (in its order), then ranked only before, then neither.
bool listed_before(const RankChange& a, const RankChange& b) {
  const auto key = [](const RankChange& job) {
    if (job.after_position) return std::pair{0, *job.after_position};
    if (job.before_position) return std::pair{1, *job.before_position};
    return std::pair{2, std::size_t{0}};
  };
  return key(a) < key(b);
}

bool in_top(const std::optional<std::size_t>& position, std::size_t top) { return position && *position < top; }

}  // namespace

long RankChange::places_gained() const {
  if (!before_position || !after_position) return 0;
  return static_cast<long>(*before_position) - static_cast<long>(*after_position);
}

std::vector<const RankChange*> RankDiff::entering_top(std::size_t top) const {
  std::vector<const RankChange*> entering;
  for (const RankChange& job : jobs) {
    if (in_top(job.after_position, top) && !in_top(job.before_position, top)) entering.push_back(&job);
  }
  return entering;
}

std::vector<const RankChange*> RankDiff::leaving_top(std::size_t top) const {
  std::vector<const RankChange*> leaving;
  for (const RankChange& job : jobs) {
    if (in_top(job.before_position, top) && !in_top(job.after_position, top)) leaving.push_back(&job);
  }
  std::sort(leaving.begin(), leaving.end(),
            [](const RankChange* a, const RankChange* b) { return *a->before_position < *b->before_position; });
  return leaving;
}

RankDiff diff_rankings(const ClusterState& state, const CompiledPolicy& before, const CompiledPolicy& after,
                       const CycleOptions& options) {
  const CycleResult old_cycle = run_cycle(state, before, options);
  const CycleResult new_cycle = run_cycle(state, after, options);
  const auto old_placings = placings(old_cycle);
  const auto new_placings = placings(new_cycle);
  const auto old_reasons = unranked_reasons(old_cycle, old_placings);
  const auto new_reasons = unranked_reasons(new_cycle, new_placings);
  const std::set<std::string> old_starts = ids_of(old_cycle, DecisionKind::start);
  const std::set<std::string> new_starts = ids_of(new_cycle, DecisionKind::start);

  RankDiff diff;
  diff.before_hash = before.source_hash();
  diff.after_hash = after.source_hash();
  diff.now = state.now;
  std::set<std::string> seen;
  for (const JobRequest& request : state.pending) {
    if (!seen.insert(request.id).second) continue;  // a duplicated id is one job to the cycle too
    RankChange job;
    job.job_id = request.id;
    job.account = request.account;
    if (const auto found = old_placings.find(request.id); found != old_placings.end()) {
      job.before_position = found->second.position;
      job.before_rank = found->second.rank;
    } else {
      job.unranked_reason = reason_for(old_reasons, request.id);
    }
    if (const auto found = new_placings.find(request.id); found != new_placings.end()) {
      job.after_position = found->second.position;
      job.after_rank = found->second.rank;
    } else {
      job.unranked_reason = reason_for(new_reasons, request.id);
    }
    job.starts_before = old_starts.count(request.id) > 0;
    job.starts_after = new_starts.count(request.id) > 0;
    if (job.before_position && job.after_position && *job.before_position != *job.after_position) ++diff.moved;
    diff.jobs.push_back(std::move(job));
  }
  std::stable_sort(diff.jobs.begin(), diff.jobs.end(), listed_before);
  order_agreement(diff);
  diff.starts_gained = only_in(new_starts, old_starts);
  diff.starts_lost = only_in(old_starts, new_starts);
  const std::set<std::string> old_preemptions = ids_of(old_cycle, DecisionKind::preempt);
  const std::set<std::string> new_preemptions = ids_of(new_cycle, DecisionKind::preempt);
  diff.preemptions_gained = only_in(new_preemptions, old_preemptions);
  diff.preemptions_lost = only_in(old_preemptions, new_preemptions);
  return diff;
}

}  // namespace allot::runtime
