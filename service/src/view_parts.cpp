#include "view_parts.h"

#include <fmt/format.h>

#include "allot/dates.h"
#include "allot/share_report.h"

namespace allot::service {

void index_terms(View& view) {
  for (const runtime::Decision& decision : view.result.decisions) {
    if (decision.kind != runtime::DecisionKind::preempt && !decision.terms.empty()) {
      view.terms.emplace(decision.job_id, decision.terms);
    }
  }
  const runtime::CycleResult& result = view.result;
  for (std::size_t i = 0; i < result.skip_terms.size(); ++i) {  // by skip index
    if (!result.skip_terms[i].empty()) view.terms.emplace(result.skip_job_id(i), result.skip_terms[i]);
  }
}

std::string feed_entry(std::int64_t seq, std::int64_t cycle, Seconds at, const std::string& record) {
  return fmt::format(R"({{"seq":{},"cycle":{},"at":"{}",{})", seq, cycle, support::format_timestamp(at),
                     record.substr(1));
}

std::vector<Sample> standing_samples(const CompiledPolicy& policy, const runtime::ClusterState& state, Seconds now) {
  std::vector<Sample> samples;
  for (const runtime::ShareRow& row : runtime::share_report(policy, state).rows) {
    if (row.path.empty()) continue;
    samples.push_back(Sample{now, row.path, row.cluster_share, static_cast<double>(row.fields.usage_raw),
                             row.owed.value_or(0), row.delivered.value_or(0), row.debt});
  }
  return samples;
}

}  // namespace allot::service
