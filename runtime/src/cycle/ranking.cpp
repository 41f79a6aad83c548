#include "ranking.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

namespace allot::runtime::cycle {

std::vector<double> rank_rows(const CompiledPolicy& policy, const JobColumns& jobs, const AccountColumns& accounts,
                              const abi::ClusterView& cluster) {
  std::vector<double> ranks(jobs.table().count, 0.0);
  if (!ranks.empty()) policy.rank_batch(jobs.table(), accounts.table(), cluster, 0, ranks.size(), ranks.data());
  for (double& rank : ranks) {
    if (std::isnan(rank)) rank = -std::numeric_limits<double>::infinity();
  }
  return ranks;
}

std::vector<std::size_t> rank_order(const std::vector<PendingJob>& pending, const std::vector<double>& ranks) {
  // Sorting small keys, not the jobs, keeps the sort in cache.
  struct Key {
    double rank;
    Seconds submitted;
    std::size_t job;
  };
  std::vector<Key> keys;
  keys.reserve(ranks.size());
  for (std::size_t i = 0; i < pending.size(); ++i) {
    if (pending[i].problem.empty()) keys.push_back({ranks[pending[i].row], pending[i].request->submitted, i});
  }
  std::sort(keys.begin(), keys.end(), [&](const Key& a, const Key& b) {
    if (a.rank != b.rank) return a.rank > b.rank;
    if (a.submitted != b.submitted) return a.submitted < b.submitted;
    return pending[a.job].request->id < pending[b.job].request->id;
  });
  std::vector<std::size_t> order;
  order.reserve(keys.size());
  for (const Key& key : keys) order.push_back(key.job);
  return order;
}

std::vector<RankTerm> rank_terms(const CompiledPolicy& policy, const JobColumns& jobs, std::size_t row,
                                 const AccountColumns& accounts, int account) {
  std::vector<RankTerm> terms;
  for (abi::JobField field : policy.job_fields_read()) terms.push_back({job_field_name(field), jobs.value(field, row)});
  if (account < 0) return terms;
  for (abi::AccountField field : policy.account_fields_read()) {
    terms.push_back({account_field_name(field), accounts.value(field, static_cast<std::size_t>(account))});
  }
  return terms;
}

std::vector<RankContribution> rank_contributions(const CompiledPolicy& policy, const JobColumns& jobs, std::size_t row,
                                                 const AccountColumns& accounts, const abi::ClusterView& cluster) {
  const std::vector<PolicyPart>& terms = policy.rank_terms();
  std::vector<double> values(terms.size());
  if (!values.empty()) policy.rank_contributions(jobs.table(), row, accounts.table(), cluster, values.data());
  std::vector<RankContribution> contributions;
  for (std::size_t i = 0; i < terms.size(); ++i) contributions.push_back({terms[i], values[i]});
  return contributions;
}

}  // namespace allot::runtime::cycle
