// `allot diff OLD NEW` (docs/DIFF.md): what a change to a policy means, for
// the people who review it: every account's share before and after (as
// written, with the exceptions in force, of the whole cluster), the classes,
// exceptions, unit, window and gates that changed, the rank terms and preempt
// operands added or removed, and with a state the queue reordered. Compares two
// compiled policies; it compiles nothing (the CLI does) and runs the runtime's
// own share report and cycle.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "allot/cluster_state.h"
#include "allot/policy.h"
#include "allot/policy_slot.h"
#include "allot/simulator.h"

namespace allot::policydiff {

using runtime::Seconds;

// One account's shares before and after; a side is empty when the policy lacks the account.
struct ShareChange {
  std::string path;
  struct Side {
    double policy_share = 0;  // of the parent, as written (0.4 for 40%)
    double in_force = 0;      // of the parent, with the exceptions in force at `now`
    double cluster = 0;       // of the whole cluster, with the exceptions in force
  };
  std::optional<Side> before, after;
};

// One setting that differs, for people: `before` or `after` is "" when it is absent on that side.
struct Change {
  std::string section;  // "policy", "tree", "class", "exception", "unit", "gate", "rank", "preempt"
  std::string subject;  // the class's, exception's or account's name; "" for the policy's own settings
  std::string field;    // "protect", "expires", "owner", "term", ...
  std::string before, after;
};

// One program's or class's outcome in a replay under each policy (the same arrivals).
struct GroupChange {
  std::string kind;  // "program" or "class"
  std::string name;
  int jobs = 0;
  double gpu_hours_before = 0, gpu_hours_after = 0;  // GPU-hours its jobs ran
  double p50_wait_before = 0, p50_wait_after = 0;    // seconds
  double p90_wait_before = 0, p90_wait_after = 0;
  double delivered_before = 0, delivered_after = 0;  // programs: delivered / owed (1 when nothing was owed)
};

// Who gains and who loses over a replay of one scenario.
struct ReplayChange {
  std::string workload, description;
  std::size_t jobs = 0;
  std::vector<GroupChange> groups;                     // programs in tree order, then classes
  std::vector<std::string> gates_before, gates_after;  // "PASS p90_wait debug <= 5m (3m)"
};

struct PolicyDiff {
  std::string before_label, after_label;  // how the command line named them ("git:main:policies/saas.allot")
  std::string before_hash, after_hash;
  Seconds now = 0;
  std::vector<ShareChange> shares;  // accounts whose shares differ, were added or removed, in the new tree's order
  std::size_t accounts = 0;         // accounts in either tree
  std::vector<Change> changes;
  std::optional<runtime::RankDiff> ranking;  // with a state
  std::optional<ReplayChange> replay;        // with a replay (add_replay)
};

// Compares `before` and `after` at `now` (exceptions in force, and review dates,
// as of then). With `state`, the ranking diff of one cycle on it under each.
PolicyDiff diff_policies(const CompiledPolicy& before, const CompiledPolicy& after, Seconds now,
                         const runtime::ClusterState* state = nullptr);

// Adds a replay of one workload under the two policies (`report.policies`:
// before, then after) to `diff`.
void add_replay(PolicyDiff& diff, const simulator::ScenarioReport& report);

// Whether the two policies mean the same (no share, setting, term or ranking change).
bool same_meaning(const PolicyDiff& diff);

// For a terminal, for a pull-request comment (GitHub Markdown), for tools (JSON, schema allot.diff/1).
std::string diff_text(const PolicyDiff& diff);
std::string diff_markdown(const PolicyDiff& diff);
std::string diff_json(const PolicyDiff& diff);

}  // namespace allot::policydiff
