// The answer to "is this policy better than my baseline?": every policy of a
// workload measured against the first one (the baseline), per measure the
// difference and whether it is better or worse, and the gates each passes.
// Shared by the table and HTML reports.
#pragma once

#include <string>
#include <vector>

#include "allot/simulator.h"

namespace allot::simulator {

enum class Comparison { baseline, better, worse, same, not_comparable };

// One measure across the policies.
struct VerdictRow {
  std::string measure;                   // "p90 wait, debug"
  std::vector<std::string> values;       // per policy, formatted ("-" when not measured)
  std::vector<std::string> differences;  // per policy, against the first ("" for the first)
  std::vector<Comparison> comparisons;   // per policy
};

struct Verdict {
  std::vector<VerdictRow> rows;
  // One sentence per policy after the first: better and worse on how many measures, which, and gates.
  std::vector<std::string> summaries;
  // One phrase per policy, for the report's summary: "baseline" for the first,
  // "better on 4 of 7 measures, worse on 2" for the others.
  std::vector<std::string> briefs;
};

// Empty when the workload has fewer than two policies.
Verdict compare_policies(const ScenarioReport& scenario);

// "better", "worse", "same", "" for the baseline, "n/a".
std::string comparison_word(Comparison comparison);

}  // namespace allot::simulator
