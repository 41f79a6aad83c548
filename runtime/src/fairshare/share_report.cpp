// `allot shares` (share_report.h): the policy's tree in sshare's order, each
// row's Slurm fields taken from AccountColumns (what the rank expression reads).
#include "allot/share_report.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "allot/accounting.h"
#include "allot/audit_json.h"
#include "allot/contracts.h"
#include "allot/text.h"

namespace allot::runtime {
namespace {

// sshare's order (slurmdb_sort_hierarchical_assoc_list): depth first; among
// siblings users before accounts, each by name.
void append_in_order(const PolicyTables& tables, const std::vector<FairShareFields>& fields,
                     const std::vector<std::vector<int>>& children, int node, std::vector<int>& order) {
  order.push_back(node);
  std::vector<int> sorted = children[static_cast<std::size_t>(node)];
  std::stable_sort(sorted.begin(), sorted.end(), [&](int a, int b) {
    const bool user_a = fields[static_cast<std::size_t>(a)].user, user_b = fields[static_cast<std::size_t>(b)].user;
    if (user_a != user_b) return user_a;
    return tables.accounts[static_cast<std::size_t>(a)].name < tables.accounts[static_cast<std::size_t>(b)].name;
  });
  for (int child : sorted) append_in_order(tables, fields, children, child, order);
}

// The rank expression's names of the account columns, in abi::AccountField order.
constexpr std::array<const char*, abi::kAccountFieldCount> kRankFieldNames = {
    "share",     "level_share", "norm_share",     "usage",        "effective_usage", "usage_ratio", "debt",
    "fair_tree", "level_fs",    "dominant_share", "running_gpus", "pending_jobs",    "depth"};

// Running jobs stalled at the state's `now`, per account and each of its
// ancestors; empty when no running job has a progress rule.
std::vector<int> stalled_jobs(const PolicyTables& tables, const ClusterState& state) {
  const bool rules = std::any_of(state.running.begin(), state.running.end(),
                                 [](const RunningJob& job) { return job.contract.progress_every > 0; });
  if (!rules) return {};
  std::vector<int> stalled(tables.accounts.size(), 0);
  const AccountIndex accounts(tables);
  for (const RunningJob& job : state.running) {
    if (!stalled_since(job, state.now)) continue;
    // A job of an account the policy does not have counts at the root only.
    for (int a = accounts.find(job.request.account).value_or(0); a >= 0;
         a = tables.accounts[static_cast<std::size_t>(a)].parent) {
      ++stalled[static_cast<std::size_t>(a)];
    }
  }
  return stalled;
}

std::string number(long double value) {
  if (std::isinf(value)) return "inf";
  return fmt::format("{:.6f}", static_cast<double>(value));
}

}  // namespace

ShareReport share_report(const CompiledPolicy& policy, const ClusterState& state) {
  const PolicyTables& tables = policy.tables();
  const AccountColumns columns = account_columns(policy, state);
  const std::vector<FairShareFields>& fields = columns.fair_share_fields();
  std::vector<std::vector<int>> children(tables.accounts.size());
  for (std::size_t i = 1; i < tables.accounts.size(); ++i) {
    children[static_cast<std::size_t>(tables.accounts[i].parent)].push_back(static_cast<int>(i));
  }
  const std::vector<double> owed = account_amounts(tables, state.owed);
  const std::vector<double> without_progress =
      state.without_progress ? account_amounts(tables, *state.without_progress) : std::vector<double>();
  const std::vector<int> stalled = stalled_jobs(tables, state);
  std::vector<int> order;
  if (!tables.accounts.empty()) append_in_order(tables, fields, children, 0, order);
  ShareReport report{tables.name, tables.fairshare, tables.unit.dominant ? "dominant-resource-hours" : "gpu-hours", {}};
  for (int index : order) {
    const std::size_t i = static_cast<std::size_t>(index);
    const AccountInfo& account = tables.accounts[i];
    ShareRow row;
    row.path = account.path;
    row.depth = account.depth;
    if (i == 0) {
      row.account = "root";
    } else if (fields[i].user) {
      row.account = account.parent == 0 ? "root" : tables.accounts[static_cast<std::size_t>(account.parent)].name;
      row.user = account.name;
    } else {
      row.account = account.name;
    }
    row.raw_shares = account.raw_shares;
    row.share_form = account.use_parent       ? ShareForm::parent
                     : account.percent_shares ? ShareForm::percent
                                              : ShareForm::shares;
    row.policy_share = i == 0 ? 1.0 : account.share;
    row.share_in_force = columns.shares().level[i];
    row.cluster_share = columns.shares().of_cluster[i];
    row.fields = fields[i];
    row.debt = columns.value(abi::account_debt, i);
    if (!state.owed.empty()) {
      row.owed = owed[i];
      row.delivered = owed[i] - row.debt;
    }
    if (state.without_progress) row.without_progress = without_progress[i];
    if (!stalled.empty()) row.stalled_jobs = stalled[i];
    for (std::size_t f = 0; f < abi::kAccountFieldCount; ++f) {
      row.rank_fields[f] = columns.value(static_cast<abi::AccountField>(f), i);
    }
    report.rows.push_back(std::move(row));
  }
  return report;
}

std::string share_report_text(const ShareReport& report) {
  const bool fair_tree = report.algorithm != "classic";
  // sshare indents accounts (and a user's account) one space per level below the root.
  const auto account_column = [](const ShareRow& row) {
    const int indent = row.path.empty() ? 0 : std::max(0, row.depth - (row.fields.user ? 2 : 1));
    return std::string(static_cast<std::size_t>(indent), ' ') + row.account;
  };
  std::size_t account_width = 7, user_width = 4;
  for (const ShareRow& row : report.rows) {
    account_width = std::max(account_width, support::display_width(account_column(row)));
    user_width = std::max(user_width, support::display_width(row.user));
  }
  // By the columns a terminal shows (names may be any UTF-8), not by bytes.
  const auto line = [&](const std::array<std::string, 15>& c) {
    return support::pad_right(c[0], account_width) + " " + support::pad_right(c[1], user_width) +
           fmt::format(" {:>9} {:>11} {:>12} {:>11} {:>13} {:>10} {:>10} {:>5} | {:>9} {:>10} {:>10} {:>10} {:>10}\n",
                       c[2], c[3], c[4], c[5], c[6], c[7], c[8], c[9], c[10], c[11], c[12], c[13], c[14]);
  };
  const auto raw_shares = [](const ShareRow& row) -> std::string {
    if (row.path.empty()) return "";
    switch (row.share_form) {
      case ShareForm::parent:
        return "parent";
      case ShareForm::shares:
        return fmt::format("{:g}", row.raw_shares);
      case ShareForm::percent:
        break;
    }
    return fmt::format("{:g}%", row.raw_shares);
  };
  const auto amount = [](const std::optional<double>& value) {
    return value ? fmt::format("{:.2f}", *value) : std::string("-");
  };
  std::string out = fmt::format("policy {} · {} · usage in {}\n", report.policy, report.algorithm, report.unit);
  const bool held = std::any_of(report.rows.begin(), report.rows.end(),
                                [](const ShareRow& row) { return row.without_progress.has_value(); });
  const bool stalled = std::any_of(report.rows.begin(), report.rows.end(),
                                   [](const ShareRow& row) { return row.stalled_jobs.has_value(); });
  out += line({"Account", "User", "RawShares", "NormShares", "RawUsage", "NormUsage", "EffectvUsage", "FairShare",
               "LevelFS", "Rank", "InForce", "OfCluster", "Owed", "Delivered", "Debt"});
  if (held) out.insert(out.size() - 1, fmt::format(" {:>10}", "NoProgress"));
  if (stalled) out.insert(out.size() - 1, fmt::format(" {:>7}", "Stalled"));
  for (const ShareRow& row : report.rows) {
    const FairShareFields& f = row.fields;
    const bool root = row.path.empty();
    out += line({account_column(row), row.user, raw_shares(row), number(f.shares_norm),
                 fmt::format("{:.2f}", static_cast<double>(f.usage_raw)), root ? "" : number(f.usage_norm),
                 number(f.usage_effective), root || (fair_tree && !f.user) ? "" : number(f.fair_share),
                 root || !fair_tree || row.share_form == ShareForm::parent ? "" : number(f.level_fs),
                 f.user && fair_tree ? std::to_string(f.rank) : "",
                 root ? "" : fmt::format("{:g}%", row.share_in_force * 100), number(row.cluster_share),
                 amount(row.owed), amount(row.delivered), fmt::format("{:.2f}", row.debt)});
    // Held without progress, when the state counts it: a column after the others.
    if (held) out.insert(out.size() - 1, fmt::format(" {:>10}", amount(row.without_progress)));
    if (stalled) out.insert(out.size() - 1, fmt::format(" {:>7}", row.stalled_jobs.value_or(0)));
  }
  // User names come from the snapshot: none reaches a terminal raw.
  return support::printable(out);
}

std::string share_report_json(const ShareReport& report) {
  using audit::Json;
  const auto value = [](long double v) -> Json {
    if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
    return audit::finite(static_cast<double>(v));
  };
  Json rows = Json::array();
  for (const ShareRow& row : report.rows) {
    const FairShareFields& f = row.fields;
    Json item;
    item["path"] = row.path;
    item["account"] = row.account;
    item["user"] = row.user.empty() ? Json(nullptr) : Json(row.user);
    item["depth"] = row.depth;
    item["share_form"] = row.share_form == ShareForm::parent   ? "parent"
                         : row.share_form == ShareForm::shares ? "shares"
                                                               : "percent";
    item["raw_shares"] =
        row.path.empty() || row.share_form == ShareForm::parent ? Json(nullptr) : audit::finite(row.raw_shares);
    item["policy_share"] = audit::finite(row.policy_share);
    item["norm_shares"] = audit::finite(f.shares_norm);
    item["raw_usage"] = value(f.usage_raw);
    item["norm_usage"] = value(f.usage_norm);
    item["effective_usage"] = value(f.usage_effective);
    item["fair_share"] = value(f.fair_share);
    // As sshare: no LevelFS under classic, nor for a `share parent` account.
    item["level_fs"] = report.algorithm == "classic" || (!row.path.empty() && row.share_form == ShareForm::parent)
                           ? Json(nullptr)
                           : value(f.level_fs);
    item["rank"] = f.user && report.algorithm != "classic" ? Json(f.rank) : Json(nullptr);
    item["share_in_force"] = audit::finite(row.share_in_force);
    item["cluster_share"] = audit::finite(row.cluster_share);
    item["owed"] = row.owed ? audit::finite(*row.owed) : Json(nullptr);
    item["delivered"] = row.delivered ? audit::finite(*row.delivered) : Json(nullptr);
    item["debt"] = audit::finite(row.debt);
    item["without_progress"] = row.without_progress ? audit::finite(*row.without_progress) : Json(nullptr);
    item["stalled_jobs"] = row.stalled_jobs ? Json(*row.stalled_jobs) : Json(nullptr);
    Json rank_fields;
    for (std::size_t f = 0; f < abi::kAccountFieldCount; ++f)
      rank_fields[kRankFieldNames[f]] = value(row.rank_fields[f]);
    item["rank_fields"] = std::move(rank_fields);
    rows.push_back(std::move(item));
  }
  Json document;
  document["policy"] = report.policy;
  document["algorithm"] = report.algorithm;
  document["unit"] = report.unit;
  document["accounts"] = std::move(rows);
  return audit::dump(document, 2) + "\n";
}

}  // namespace allot::runtime
