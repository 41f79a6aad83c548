// CycleResult's skips as Decisions (allot/cycle.h): what a person, an audit
// record or `allot explain` reads; the cycle itself writes the compact Skip.
#include "allot/cycle.h"

namespace allot::runtime {

const std::string& CycleResult::skip_job_id(std::size_t index) const {
  const Skip& skip = skips.at(index);
  return skip.position >= 0 ? ranked_job_ids.at(static_cast<std::size_t>(skip.position))
                            : unranked_job_ids.at(skip.unranked);
}

Decision CycleResult::skip_decision(std::size_t index) const {
  const Skip& skip = skips.at(index);
  Decision decision;
  decision.kind = DecisionKind::skip;
  decision.position = skip.position;
  decision.job_id = skip_job_id(index);
  if (skip.position >= 0) decision.rank = ranks.at(static_cast<std::size_t>(skip.position));
  decision.account = skip_names.at(skip.account);
  decision.job_class = skip_names.at(skip.job_class);
  if (index < skip_terms.size()) decision.terms = skip_terms[index];
  decision.reason = skip_reasons.at(skip.reason);
  return decision;
}

std::optional<Decision> CycleResult::skip_for(std::string_view job_id) const {
  for (std::size_t i = 0; i < skips.size(); ++i) {
    if (skip_job_id(i) == job_id) return skip_decision(i);
  }
  return std::nullopt;
}

std::vector<Decision> CycleResult::all_decisions() const {
  std::vector<Decision> all;
  all.reserve(decisions.size() + skips.size());
  all.insert(all.end(), decisions.begin(), decisions.end());
  for (std::size_t i = 0; i < skips.size(); ++i) all.push_back(skip_decision(i));
  return all;
}

}  // namespace allot::runtime
