// diff_policies (allot/policy_diff.h): two compiled policies compared table by
// table. Shares come from the runtime's share report on an empty cluster at
// `now`, so "in force" means what the cycle would use then.
#include <fmt/format.h>

#include <cmath>
#include <functional>
#include <map>
#include <set>
#include <tuple>

#include "allot/dates.h"
#include "allot/duration.h"
#include "allot/policy_diff.h"
#include "allot/share_report.h"
#include "allot/text.h"

namespace allot::policydiff {
namespace {

std::string percent(double fraction) { return support::format_decimal(fraction * 100, 4) + "%"; }

std::string duration(double seconds) {
  if (seconds <= 0) return "";
  return support::format_duration(static_cast<std::int64_t>(std::llround(seconds)));
}

std::string date(const std::optional<Date>& day) {
  return day ? support::format_timestamp(static_cast<Seconds>(day->days_since_epoch) * 86400).substr(0, 10) : "";
}

std::string timestamp(double seconds) {
  return seconds == 0 ? "" : support::format_timestamp(static_cast<Seconds>(seconds)).substr(0, 10);
}

std::string yes_no(bool value) { return value ? "yes" : "no"; }

bool differs(double a, double b) { return std::fabs(a - b) > 1e-12 * std::max(1.0, std::fabs(a)); }

std::map<std::string, ShareChange::Side> shares_at(const CompiledPolicy& policy, Seconds now) {
  runtime::ClusterState empty;
  empty.now = now;
  std::map<std::string, ShareChange::Side> sides;
  for (const runtime::ShareRow& row : runtime::share_report(policy, empty).rows) {
    if (row.path.empty()) continue;
    sides[row.path] = ShareChange::Side{row.policy_share, row.share_in_force, row.cluster_share};
  }
  return sides;
}

// The entries of two tables (classes, exceptions) paired by name, in name order; null where a side lacks one.
template <typename Info>
std::vector<std::tuple<std::string, const Info*, const Info*>> by_name(const std::vector<Info>& before,
                                                                       const std::vector<Info>& after) {
  std::map<std::string, std::pair<const Info*, const Info*>> paired;
  for (const Info& info : before) paired[info.name].first = &info;
  for (const Info& info : after) paired[info.name].second = &info;
  std::vector<std::tuple<std::string, const Info*, const Info*>> out;
  for (const auto& [name, sides] : paired) out.emplace_back(name, sides.first, sides.second);
  return out;
}

class Differ {
 public:
  Differ(const CompiledPolicy& before, const CompiledPolicy& after, PolicyDiff& out)
      : before_(before.tables()), after_(after.tables()), out_(out) {}

  void field(const std::string& section, const std::string& subject, const std::string& name, const std::string& before,
             const std::string& after) {
    if (before != after) out_.changes.push_back(Change{section, subject, name, before, after});
  }

  void policy_settings() {
    field("policy", "", "name", before_.name, after_.name);
    field("policy", "", "window", duration(before_.window), duration(after_.window));
    field("policy", "", "half_life", before_.half_life ? duration(*before_.half_life) : "",
          after_.half_life ? duration(*after_.half_life) : "");
    field("policy", "", "fairshare", before_.fairshare, after_.fairshare);
    field("unit", "", "kind", before_.unit.dominant ? "dominant" : "gpu_hours",
          after_.unit.dominant ? "dominant" : "gpu_hours");
    std::map<std::string, std::pair<std::string, std::string>> weights;
    for (const auto& [name, weight] : before_.unit.weights) weights[name].first = fmt::format("{:g}", weight);
    for (const auto& [name, weight] : after_.unit.weights) weights[name].second = fmt::format("{:g}", weight);
    for (const auto& [name, sides] : weights) field("unit", name, "weight", sides.first, sides.second);
  }

  void tree() {
    std::map<std::string, const AccountInfo*> before, after;
    for (const AccountInfo& account : before_.accounts) before[account.path] = &account;
    for (const AccountInfo& account : after_.accounts) after[account.path] = &account;
    const auto visit = [&](const std::string& path) {
      if (path.empty()) return;
      const AccountInfo* old_one = before.count(path) ? before[path] : nullptr;
      const AccountInfo* new_one = after.count(path) ? after[path] : nullptr;
      if (!old_one || !new_one) {
        field("tree", path, "account", old_one ? "present" : "", new_one ? "present" : "");
        return;
      }
      field("tree", path, "owner", old_one->owner, new_one->owner);
      field("tree", path, "review", date(old_one->review), date(new_one->review));
      field("tree", path, "hypothesis", old_one->hypothesis, new_one->hypothesis);
      field("tree", path, "share parent", yes_no(old_one->use_parent), yes_no(new_one->use_parent));
    };
    for (const AccountInfo& account : after_.accounts) visit(account.path);
    for (const AccountInfo& account : before_.accounts) {
      if (!after.count(account.path)) visit(account.path);
    }
  }

  void classes() {
    for (const auto& [name, a, b] : by_name(before_.classes, after_.classes)) {
      if (!a || !b) {
        field("class", name, "class", a ? "present" : "", b ? "present" : "");
        continue;
      }
      const auto count = [](int value) { return value > 0 ? std::to_string(value) : std::string(); };
      field("class", name, "max_gpus", count(a->max_gpus), count(b->max_gpus));
      field("class", name, "max_nodes", count(a->max_nodes), count(b->max_nodes));
      field("class", name, "max_runtime", duration(a->max_runtime), duration(b->max_runtime));
      field("class", name, "protect", protect(*a), protect(*b));
      field("class", name, "checkpoint every", duration(a->checkpoint_every), duration(b->checkpoint_every));
      field("class", name, "grace", duration(a->grace), duration(b->grace));
      field("class", name, "resumable", yes_no(a->resumable), yes_no(b->resumable));
      field("class", name, "preemptible", yes_no(a->preemptible), yes_no(b->preemptible));
      field("class", name, "deadline required", yes_no(a->deadline_required), yes_no(b->deadline_required));
      field("class", name, "slo", a->slo ? percent(*a->slo) : "", b->slo ? percent(*b->slo) : "");
      field("class", name, "fast_lane", count(a->fast_lane_gpus), count(b->fast_lane_gpus));
      field("class", name, "progress", progress(*a), progress(*b));
    }
  }

  void exceptions(Seconds now) {
    for (const auto& [name, a, b] : by_name(before_.exceptions, after_.exceptions)) {
      if (!a || !b) {
        field("exception", name, "exception", a ? grant(*a, before_) : "", b ? grant(*b, after_) : "");
        continue;
      }
      field("exception", name, "grant", grant(*a, before_), grant(*b, after_));
      field("exception", name, "starts", timestamp(a->starts), timestamp(b->starts));
      field("exception", name, "expires", timestamp(a->expires), timestamp(b->expires));
      field("exception", name, "owner", a->owner, b->owner);
      field("exception", name, "reason", a->reason, b->reason);
      const auto in_force = [&](const ExceptionInfo& info) {
        return yes_no(info.starts <= static_cast<double>(now) && static_cast<double>(now) < info.expires);
      };
      field("exception", name, "in force now", in_force(*a), in_force(*b));
    }
  }

  void gates() {
    std::multiset<std::string> before, after;
    for (const GateInfo& gate : before_.gates) before.insert(gate_text(gate));
    for (const GateInfo& gate : after_.gates) after.insert(gate_text(gate));
    for (const std::string& gate : before) {
      if (!after.count(gate)) field("gate", "", "gate", gate, "");
    }
    for (const std::string& gate : after) {
      if (!before.count(gate)) field("gate", "", "gate", "", gate);
    }
  }

  // Parts compared as written: a term moved is neither added nor removed.
  void parts(const char* section, const std::vector<PolicyPart>& before, const std::vector<PolicyPart>& after) {
    const auto written = [](const PolicyPart& part) {
      std::string text = (part.negated ? "-" : "") + part.text;
      if (!part.definition.empty()) text += " = " + part.definition;
      return text;
    };
    std::multiset<std::string> old_parts, new_parts;
    for (const PolicyPart& part : before) old_parts.insert(written(part));
    for (const PolicyPart& part : after) new_parts.insert(written(part));
    const char* name = std::string_view(section) == "rank" ? "term" : "operand";
    for (const PolicyPart& part : before) {
      if (!new_parts.count(written(part))) field(section, "", name, written(part), "");
    }
    for (const PolicyPart& part : after) {
      if (!old_parts.count(written(part))) field(section, "", name, "", written(part));
    }
  }

 private:
  static std::string protect(const ClassInfo& info) {
    if (info.protect <= 0) return "";
    return (info.protect_up_to ? "up to " : "") + duration(info.protect);
  }
  static std::string progress(const ClassInfo& info) {
    if (info.progress_every <= 0) return "";
    std::string text = "every " + duration(info.progress_every);
    if (info.progress_after > 0) text += " after " + duration(info.progress_after);
    return text + " else " + stall_action_name(info.on_stall);
  }
  static std::string grant(const ExceptionInfo& info, const PolicyTables& tables) {
    const auto path = [&](int index) {
      return index >= 0 && static_cast<std::size_t>(index) < tables.accounts.size()
                 ? tables.accounts[static_cast<std::size_t>(index)].path
                 : std::string("unallocated");
    };
    const std::string delta = (info.delta >= 0 ? "+" : "") + percent(info.delta);
    return fmt::format("{} {} from {}", path(info.to), delta, info.from < 0 ? "unallocated" : path(info.from));
  }
  static std::string gate_text(const GateInfo& gate) {
    const GateMetricInfo& info = gate_metric_info(gate.metric);
    std::string text(info.name);
    if (!gate.subject.empty()) text += " " + gate.subject;
    text += fmt::format(" {} {}", gate_op_text(gate.op),
                        info.unit == GateUnit::fraction ? percent(gate.threshold) : duration(gate.threshold));
    if (gate.window) text += " over " + duration(*gate.window);
    return text;
  }

  const PolicyTables& before_;
  const PolicyTables& after_;
  PolicyDiff& out_;
};

}  // namespace

PolicyDiff diff_policies(const CompiledPolicy& before, const CompiledPolicy& after, Seconds now,
                         const runtime::ClusterState* state) {
  PolicyDiff diff;
  diff.before_hash = before.source_hash();
  diff.after_hash = after.source_hash();
  diff.now = now;
  const auto old_shares = shares_at(before, now), new_shares = shares_at(after, now);
  std::set<std::string> seen;
  const auto compare = [&](const std::string& path) {
    if (path.empty() || !seen.insert(path).second) return;
    ShareChange change{path, std::nullopt, std::nullopt};
    if (auto it = old_shares.find(path); it != old_shares.end()) change.before = it->second;
    if (auto it = new_shares.find(path); it != new_shares.end()) change.after = it->second;
    const bool changed = !change.before || !change.after ||
                         differs(change.before->policy_share, change.after->policy_share) ||
                         differs(change.before->in_force, change.after->in_force) ||
                         differs(change.before->cluster, change.after->cluster);
    if (changed) diff.shares.push_back(std::move(change));
  };
  for (const AccountInfo& account : after.tables().accounts) compare(account.path);
  for (const AccountInfo& account : before.tables().accounts) compare(account.path);
  diff.accounts = seen.size();

  Differ differ(before, after, diff);
  differ.policy_settings();
  differ.tree();
  differ.classes();
  differ.exceptions(now);
  differ.gates();
  differ.parts("rank", before.rank_terms(), after.rank_terms());
  differ.parts("preempt", before.preempt_operands(), after.preempt_operands());
  if (before.has_preempt() && after.has_preempt() && before.preempt_operands_or() != after.preempt_operands_or()) {
    differ.field("preempt", "", "joined by", before.preempt_operands_or() ? "or" : "and",
                 after.preempt_operands_or() ? "or" : "and");
  }
  differ.field("preempt", "", "preempt", before.has_preempt() ? "present" : "", after.has_preempt() ? "present" : "");
  if (state) diff.ranking = runtime::diff_rankings(*state, before, after);
  return diff;
}

bool same_meaning(const PolicyDiff& diff) {
  const bool ranking_same =
      !diff.ranking ||
      (diff.ranking->moved == 0 && diff.ranking->starts_gained.empty() && diff.ranking->starts_lost.empty() &&
       diff.ranking->preemptions_gained.empty() && diff.ranking->preemptions_lost.empty());
  return diff.shares.empty() && diff.changes.empty() && ranking_same;
}

}  // namespace allot::policydiff

namespace allot::policydiff {
namespace {

// A gate's verdict on one line: "PASS p90_wait debug <= 5m".
std::string gate_line(const simulator::GateResult& gate) {
  return fmt::format("{} {}{}", gate.passed ? "PASS" : "FAIL", gate.text,
                     gate.detail.empty() ? "" : " (" + gate.detail + ")");
}

double delivery(const simulator::GroupMetrics& group) {
  if (!group.share || group.share->owed <= 0) return 1;
  return group.share->delivered / group.share->owed;
}

void add_groups(ReplayChange& change, const char* kind, const std::vector<simulator::GroupMetrics>& before,
                const std::vector<simulator::GroupMetrics>& after) {
  for (const simulator::GroupMetrics& old_group : before) {
    for (const simulator::GroupMetrics& new_group : after) {
      if (new_group.name != old_group.name) continue;
      change.groups.push_back(GroupChange{
          kind, old_group.name, old_group.jobs, old_group.gpu_hours, new_group.gpu_hours, old_group.p50_wait,
          new_group.p50_wait, old_group.p90_wait, new_group.p90_wait, delivery(old_group), delivery(new_group)});
    }
  }
}

}  // namespace

void add_replay(PolicyDiff& diff, const simulator::ScenarioReport& report) {
  if (report.policies.size() < 2) return;
  const simulator::PolicyMetrics& before = report.policies[0];
  const simulator::PolicyMetrics& after = report.policies[1];
  ReplayChange change;
  change.workload = report.workload;
  change.description = report.description;
  change.jobs = report.jobs;
  add_groups(change, "program", before.programs, after.programs);
  add_groups(change, "class", before.classes, after.classes);
  for (const simulator::GateResult& gate : before.gates) change.gates_before.push_back(gate_line(gate));
  for (const simulator::GateResult& gate : after.gates) change.gates_after.push_back(gate_line(gate));
  diff.replay = std::move(change);
}

}  // namespace allot::policydiff
