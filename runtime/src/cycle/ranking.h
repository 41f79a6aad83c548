// Ranking pending jobs with the policy's batch function, and the terms that
// explain a rank (the job and account fields the policy reads, with values).
#pragma once

#include <vector>

#include "allot/account_columns.h"
#include "cycle_jobs.h"
#include "job_columns.h"

namespace allot::runtime::cycle {

// The rank of every row of `jobs`. A rank that is not a number sorts last.
std::vector<double> rank_rows(const CompiledPolicy& policy, const JobColumns& jobs, const AccountColumns& accounts,
                              const abi::ClusterView& cluster);

// Indexes into `pending` of the rankable jobs, best first: higher rank, then
// earlier submission, then job id.
std::vector<std::size_t> rank_order(const std::vector<PendingJob>& pending, const std::vector<double>& ranks);

// The fields the policy reads for row `row` of `jobs` (account `account`), named and valued.
std::vector<RankTerm> rank_terms(const CompiledPolicy& policy, const JobColumns& jobs, std::size_t row,
                                 const AccountColumns& accounts, int account);

// Each of the policy's rank terms with its part of row `row`'s rank (added in
// order they give the rank, a NaN rank apart).
std::vector<RankContribution> rank_contributions(const CompiledPolicy& policy, const JobColumns& jobs, std::size_t row,
                                                 const AccountColumns& accounts, const abi::ClusterView& cluster);

}  // namespace allot::runtime::cycle
