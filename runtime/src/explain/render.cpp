// An Explanation for a person (short paragraphs) and for tools (JSON,
// docs/AUDIT.md "Explain document").
#include <fmt/format.h>

#include <algorithm>

#include "allot/audit_json.h"
#include "allot/contracts.h"
#include "allot/dates.h"
#include "allot/duration.h"
#include "allot/explain.h"
#include "allot/snapshot.h"
#include "allot/text.h"
#include "cycle/decisions.h"

namespace allot::runtime {
namespace {

using audit::Json;
using cycle::node_list;
using cycle::ordinal;

constexpr const char* kAssumptions =
    "nothing else changes: no new jobs, running jobs end when expected, usage and debt stay as in the state";

// Terms that are durations read better with the duration beside the seconds.
bool is_duration(const std::string& term) {
  return term == "job.wait" || term == "job.runtime" || term == "job.since_checkpoint" || term == "job.protect" ||
         term == "job.deadline_slack" || term == "job.since_progress";
}

// An input's value for a person: `job.class` as the job's class name, `job.label` as the label's name.
std::string term_value(const RankTerm& term, const std::string& job_class) {
  if (term.name == "job.class" && !job_class.empty()) return fmt::format("`{}`", job_class);
  if (term.name == "job.label") {
    constexpr const char* kLabels[] = {"none", "low", "medium", "high"};
    if (term.value >= 0 && term.value <= 3 && term.value == static_cast<int>(term.value)) {
      return kLabels[static_cast<int>(term.value)];
    }
  }
  if (is_duration(term.name) && term.value > 0 && term.value < 1e12) {
    return fmt::format("{:g} ({})", term.value, support::format_duration(static_cast<Seconds>(term.value)));
  }
  return fmt::format("{:g}", term.value);
}

// An amount in the policy's unit, to a tenth: "13962.3", "60".
std::string quantity(double value) {
  std::string text = fmt::format("{:.1f}", value);
  if (text.ends_with(".0")) text.resize(text.size() - 2);
  return text == "-0" ? "0" : text;
}

std::string percent(double fraction) { return fmt::format("{:.4g}%", fraction * 100); }

void add_header(std::string& out, const Explanation& e, const Inventory& inventory) {
  if (e.running) {
    const RunningJob& run = *e.run;
    out += fmt::format("Job `{}` ({}, class `{}`) is running on {} since {} ({} GPU{} per node).\n", e.job_id,
                       e.account, e.job_class, node_list(inventory, run.nodes), support::format_timestamp(run.started),
                       run.request.gpus_per_node, run.request.gpus_per_node == 1 ? "" : "s");
  } else if (e.position) {
    out += fmt::format("Job `{}` ({}, class `{}`) is waiting: {} of {} in the queue, rank {}.\n", e.job_id, e.account,
                       e.job_class, ordinal(*e.position + 1), e.queue_length, audit::rank_text(e.rank));
  } else {
    out +=
        fmt::format("Job `{}` ({}, class `{}`) is waiting, but it is not ranked.\n", e.job_id, e.account, e.job_class);
  }
  out += fmt::format("  Policy `{}` ({}), at {}.\n", e.policy_name, e.policy_hash.substr(0, 12),
                     support::format_timestamp(e.now));
}

// A rank term as a person reads it: `-x` or `-(a + b)` when it counts against
// the rank, a `let`'s name with what it stands for.
std::string term_label(const PolicyPart& term) {
  std::string text = term.text;
  if (term.negated) text = text.find(' ') == std::string::npos || text.front() == '(' ? "-" + text : "-(" + text + ")";
  if (!term.definition.empty()) text += " = " + term.definition;
  constexpr std::size_t kWidest = 64;
  if (text.size() > kWidest) text = text.substr(0, kWidest - 3) + "...";
  return text;
}

// Each rank term and its part of the rank, as `sprio` lists a priority's factors.
void add_contributions(std::string& out, const Explanation& e) {
  if (e.contributions.empty()) return;
  const std::size_t count = e.contributions.size();
  out += fmt::format("\nRank {}, the sum of {} term{} of `rank` ({}:{}):\n", audit::rank_text(e.rank), count,
                     count == 1 ? "" : "s", e.contributions.front().term.file, e.contributions.front().term.line);
  std::size_t width = 0;
  std::vector<std::string> labels;
  for (const RankContribution& contribution : e.contributions) {
    labels.push_back(term_label(contribution.term));
    width = std::max(width, labels.back().size());
  }
  for (std::size_t i = 0; i < count; ++i) {
    out += fmt::format("  {:<{}}  {:>12}\n", labels[i], width, fmt::format("{:.6g}", e.contributions[i].value));
  }
}

void add_waiting(std::string& out, const Explanation& e, const Inventory& inventory) {
  const bool starts = e.decision && e.decision->kind == DecisionKind::start;
  if (starts) {
    out += fmt::format("\nThis cycle starts it: it {}.\n", e.decision->reason);
  } else if (e.decision) {
    out += fmt::format("\nWhy it is not running: {}.\n", e.decision->reason);
  }
  if (e.next && !starts) {
    if (e.next->at) {
      out += fmt::format("\nNext opportunity to run: {} on {}, {}.\n", support::format_timestamp(*e.next->at),
                         node_list(inventory, e.next->nodes), e.next->why);
    } else {
      out += fmt::format("\nNext opportunity to run: {}.\n", e.next->why);
    }
    if (e.next->cycles > 0) {
      out += fmt::format("  The forecast assumes {} ({} cycle{} run).\n", kAssumptions, e.next->cycles,
                         e.next->cycles == 1 ? "" : "s");
    }
  }
  add_contributions(out, e);
  if (!e.ties.empty()) out += fmt::format("\nTies: {}.\n", e.ties);
  if (e.terms.empty()) return;
  out += "\nWhat it reads of the job and its account:\n";
  for (const RankTerm& term : e.terms) out += fmt::format("  {:<26}{}\n", term.name, term_value(term, e.job_class));
}

// The progress rule the job started under, and whether it keeps it.
std::string progress_text(const RunningJob& run, Seconds now) {
  const Contract& contract = run.contract;
  std::string text =
      fmt::format("Progress: reported at least every {}", support::format_duration(contract.progress_every));
  if (contract.progress_after > 0) text += fmt::format(" after {}", support::format_duration(contract.progress_after));
  const std::optional<Seconds> last = run.last_progress                   ? run.last_progress
                                      : run.last_checkpoint > run.started ? std::optional(run.last_checkpoint)
                                                                          : std::nullopt;
  text += last ? fmt::format("; last report {}", support::format_timestamp(*last)) : std::string("; no report yet");
  const std::optional<Seconds> since = stalled_since(run, now);
  if (!since) return text + ".\n";
  const char* consequence =
      contract.on_stall == StallAction::keep ? "it runs on (the class keeps stalled jobs)"
      : contract.on_stall == StallAction::stop
          ? "its class stops stalled jobs"
          : "it has lost its protection and is taken before progressing jobs when GPUs are wanted";
  return text + fmt::format(".\nSTALLED since {} ({} without progress): {}; its GPU time is charged as held.\n",
                            support::format_timestamp(*since),
                            support::format_duration(now - *since + contract.progress_every), consequence);
}

void add_running(std::string& out, const Explanation& e) {
  const RunningJob& run = *e.run;
  const Contract& contract = run.contract;
  const Seconds left = contract.protected_until - e.now;
  const std::string maker =
      contract.policy_hash.empty() ? "" : fmt::format(" (from policy {})", contract.policy_hash.substr(0, 12));
  out +=
      fmt::format("\nContract{}: protected until {} ({}); ", maker, support::format_timestamp(contract.protected_until),
                  left > 0 ? support::format_duration(left) + " left" : "protection over");
  out += contract.checkpoint_every > 0
             ? fmt::format("checkpoint every {}; ", support::format_duration(contract.checkpoint_every))
             : std::string("no periodic checkpoint; ");
  if (contract.grace > 0) out += fmt::format("grace {}; ", support::format_duration(contract.grace));
  if (contract.yields_at) {
    out += fmt::format("backfilled onto held capacity, yields it at {} (preempted then for the held job); ",
                       support::format_timestamp(*contract.yields_at));
  }
  out += fmt::format("{}, {}.\n", contract.resumable ? "resumable" : "not resumable",
                     contract.preemptible ? "preemptible" : "not preemptible");
  if (contract.progress_every > 0) out += progress_text(run, e.now);
  out += e.expected_end
             ? fmt::format("Expected end: {}.\n", support::format_timestamp(*e.expected_end))
             : std::string("Expected end: unknown (no runtime estimate, and its class has no max_runtime).\n");
  out += fmt::format("Stopping it now would lose {:g} GPU-seconds of work.\n", e.lost_if_stopped_now);
  if (e.preemption) out += fmt::format("\nPreemption: {}.\n", e.preemption->why);
}

void add_accounts(std::string& out, const Explanation& e) {
  if (e.accounts.empty()) {
    out += fmt::format("\nAccount `{}` is not in policy `{}`'s tree.\n", e.account, e.policy_name);
    return;
  }
  out += "\nAccount standing (usage in the policy's unit over its window):\n";
  for (const AccountStanding& a : e.accounts) {
    out += fmt::format("  {}: share {} of its parent", a.path, percent(a.level_share));
    if (a.level_share != a.policy_share) out += fmt::format(" (policy {})", percent(a.policy_share));
    out += fmt::format(", {} of the cluster\n", percent(a.cluster_share));
    for (const std::string& exception : a.exceptions) out += fmt::format("    {}\n", exception);
    out += fmt::format("    usage {} (ratio {:.3g}), fair-share factor {:.3g}, debt {}\n", quantity(a.usage),
                       a.usage_ratio, a.fair_share, quantity(a.debt));
    out += fmt::format("    {:g} GPU{} running, {:g} job{} waiting\n", a.running_gpus, a.running_gpus == 1 ? "" : "s",
                       a.pending_jobs, a.pending_jobs == 1 ? "" : "s");
  }
}

Json account_json(const AccountStanding& a) {
  return Json{{"path", a.path},
              {"policy_share", a.policy_share},
              {"level_share", a.level_share},
              {"cluster_share", a.cluster_share},
              {"exceptions", a.exceptions},
              {"usage", audit::finite(a.usage)},
              {"usage_ratio", audit::finite(a.usage_ratio)},
              {"fair_share", audit::finite(a.fair_share)},
              {"debt", audit::finite(a.debt)},
              {"running_gpus", a.running_gpus},
              {"pending_jobs", a.pending_jobs}};
}

Json next_json(const NextOpportunity& next, const Inventory& inventory) {
  return Json{{"at", next.at ? Json(support::format_timestamp(*next.at)) : Json(nullptr)},
              {"nodes", audit::node_names(inventory, next.nodes)},
              {"why", next.why},
              {"cycles", next.cycles}};
}

Json running_json(const Explanation& e, const Inventory& inventory) {
  const RunningJob& run = *e.run;
  const std::optional<Seconds> stalled = stalled_since(run, e.now);
  return Json{
      {"started", support::format_timestamp(run.started)},
      {"nodes", audit::node_names(inventory, run.nodes)},
      {"gpus_per_node", run.request.gpus_per_node},
      {"last_checkpoint", support::format_timestamp(run.last_checkpoint)},
      {"last_progress", run.last_progress ? Json(support::format_timestamp(*run.last_progress)) : Json(nullptr)},
      {"stalled_since", stalled ? Json(support::format_timestamp(*stalled)) : Json(nullptr)},
      {"contract", audit::contract_json(run.contract)},
      {"protection_left", std::max<Seconds>(0, run.contract.protected_until - e.now)},
      {"expected_end", e.expected_end ? Json(support::format_timestamp(*e.expected_end)) : Json(nullptr)},
      {"lost_gpu_seconds_if_stopped_now", e.lost_if_stopped_now}};
}

}  // namespace

std::string explanation_text(const Explanation& e, const Inventory& inventory) {
  std::string out;
  add_header(out, e, inventory);
  if (e.running) {
    add_running(out, e);
  } else {
    add_waiting(out, e, inventory);
  }
  add_accounts(out, e);
  // Job ids, node names and accounts come from the snapshot: none reaches a terminal raw.
  return support::printable(out);
}

std::string explanation_json(const Explanation& e, const Inventory& inventory) {
  Json document{{"job", e.job_id},
                {"state", e.running ? "running" : "waiting"},
                {"now", support::format_timestamp(e.now)},
                {"policy", Json{{"name", e.policy_name}, {"hash", e.policy_hash}}},
                {"account", e.account},
                {"class", e.job_class}};
  Json decision = Json::object();
  if (e.decision) audit::add_decision(decision, *e.decision, inventory);
  document["decision"] = e.decision ? decision : Json(nullptr);
  document["queue"] =
      e.position ? Json{{"position", *e.position}, {"length", e.queue_length}, {"rank", audit::rank_json(e.rank)}}
                 : Json(nullptr);
  document["terms"] = audit::terms_json(e.terms);
  Json contributions = Json::array();
  for (const RankContribution& contribution : e.contributions) {
    const PolicyPart& term = contribution.term;
    contributions.push_back(Json{{"term", term.text},
                                 {"definition", term.definition.empty() ? Json(nullptr) : Json(term.definition)},
                                 {"negated", term.negated},
                                 {"at", fmt::format("{}:{}", term.file, term.line)},
                                 {"value", audit::finite(contribution.value)}});
  }
  document["contributions"] = std::move(contributions);
  document["ties"] = e.ties.empty() ? Json(nullptr) : Json(e.ties);
  document["next_opportunity"] = e.next ? next_json(*e.next, inventory) : Json(nullptr);
  document["running"] = e.run ? running_json(e, inventory) : Json(nullptr);
  document["preemption"] =
      e.preemption
          ? Json{{"candidate", e.preemption->candidate}, {"chosen", e.preemption->chosen}, {"why", e.preemption->why}}
          : Json(nullptr);
  Json accounts = Json::array();
  for (const AccountStanding& account : e.accounts) accounts.push_back(account_json(account));
  document["accounts"] = std::move(accounts);
  document["assumptions"] = e.next ? Json(kAssumptions) : Json(nullptr);
  return audit::dump(document, 2) + "\n";
}

}  // namespace allot::runtime
