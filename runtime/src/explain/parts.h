// The parts of explain_job (explain/explain.cpp): the forecast of a waiting job's next
// opportunity, the preemption standing of a running job, and preempt's verdicts.
#pragma once

#include <optional>

#include "allot/explain.h"
#include "cycle/context.h"

namespace allot::runtime::explain {

// When a running job is expected to end: its start plus the user's runtime
// estimate, else its class's `max_runtime`; nullopt when neither is known.
std::optional<Seconds> expected_end(const RunningJob& job, const PolicyTables& tables);

// Steps `state` forward (see explain.h) from the cycle `first` that ran on it
// until `job_id` starts, the horizon passes or nothing more is expected to change.
NextOpportunity forecast_start(const ClusterState& state, const CompiledPolicy& policy, const CycleResult& first,
                               const std::string& job_id, const ExplainOptions& options);

// Whether running job `index` of the context's state is a preemption candidate
// now and why (not), given the cycle `result` that ran on `context`.
PreemptionStanding preemption_standing(const cycle::CycleContext& context, const CycleResult& result,
                                       std::size_t index);

// `preempt`'s verdicts on up to `limit` pairs with `job_id` (Explanation::preempt).
PreemptVerdicts preempt_verdicts(const cycle::CycleContext& context, const std::string& job_id, std::size_t limit);

}  // namespace allot::runtime::explain
