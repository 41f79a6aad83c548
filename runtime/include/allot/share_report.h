// `allot shares`: every account of a policy's tree with Slurm's fair-share
// fields, as `sshare -l` prints them for the same tree and usage, beside what
// Slurm cannot show (the share with exceptions in force, debt). The numbers
// are the ones the rank expression reads (AccountColumns), never recomputed.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "allot/account_columns.h"
#include "allot/policy.h"

namespace allot::runtime {

enum class ShareForm { percent, shares, parent };

struct ShareRow {
  std::string path;     // "exploration/ana"; "" for the root
  std::string account;  // sshare's Account column: the account, or a user's parent account
  std::string user;     // sshare's User column: empty for accounts
  int depth = 0;
  // RawShares as Slurm holds them: percentage points for `40%` (40), the
  // integer for `shares N`; `share parent` has none (sshare prints "parent").
  double raw_shares = 0;
  ShareForm share_form = ShareForm::percent;
  double policy_share = 0;    // of the parent, as the policy says (0.4 for 40%; shares N over its siblings' sum)
  double share_in_force = 0;  // of the parent, with the exceptions in force
  double cluster_share = 0;   // of the whole cluster, with the exceptions in force
  FairShareFields fields;     // NormShares .. Rank
  // Over the window, in the policy's unit, when the state carries `[owed]`
  // (docs/STATE.md); delivered = owed - debt.
  std::optional<double> owed;
  std::optional<double> delivered;
  double debt = 0;  // owed minus delivered, in the policy's unit
  // Of the usage, what was held without progress (when the state carries it).
  std::optional<double> without_progress;
  // Running jobs of the account's subtree stalled at the state's `now`, when
  // some running job has a progress rule (docs/LANGUAGE.md "Progress").
  std::optional<int> stalled_jobs;
  // What the rank expression reads as `account.<field>` for this account
  // (abi::AccountField order), from the same account table the cycle ranks with.
  std::array<double, abi::kAccountFieldCount> rank_fields{};
};

struct ShareReport {
  std::string policy;
  std::string algorithm;       // fair_tree or classic
  std::string unit;            // of RawUsage and Debt
  std::vector<ShareRow> rows;  // in sshare's order: depth first, users before accounts, each by name
};

ShareReport share_report(const CompiledPolicy& policy, const ClusterState& state);

// An `sshare -l`-style table, then Allot's columns.
std::string share_report_text(const ShareReport& report);
// The same as one JSON document (numbers as JSON numbers; infinity as the string
// "inf"), each account with its `rank_fields` by the rank expression's names.
std::string share_report_json(const ShareReport& report);

}  // namespace allot::runtime
