// explain_job (allot/explain.h): one cycle on the state, then the job's
// decision, queue place, account standing and either its forecast (waiting)
// or its contract and preemption standing (running).
#include "allot/explain.h"
#include "allot/dates.h"

#include <algorithm>
#include <limits>

#include <fmt/format.h>

#include "allot/account_columns.h"
#include "allot/nearest_name.h"
#include "allot/text.h"
#include "cycle/context.h"
#include "cycle/ranking.h"
#include "explain/parts.h"

namespace allot::runtime {
namespace {

std::string percent(double fraction) { return fmt::format("{:g}%", fraction * 100); }

std::string expiry(const ExceptionInfo& exception) {
  return support::format_timestamp(static_cast<Seconds>(exception.expires)).substr(0, 10);
}

// The exceptions in force that give to or take from account `index`, as sentences.
std::vector<std::string> exceptions_of(const PolicyTables& tables, int index, Seconds now) {
  std::vector<std::string> sentences;
  for (const ExceptionInfo& exception : tables.exceptions) {
    if (!exception_in_force(exception, now)) continue;
    if (exception.to == index) {
      const std::string from =
          exception.from > 0 ? fmt::format("from `{}`", tables.accounts[static_cast<std::size_t>(exception.from)].path)
                             : std::string("from the unallocated share");
      sentences.push_back(fmt::format("`{}` grants it +{} {} until {}", exception.name, percent(exception.delta), from,
                                      expiry(exception)));
    } else if (exception.from == index) {
      sentences.push_back(fmt::format("`{}` lends {} of it to `{}` until {}", exception.name, percent(exception.delta),
                                      tables.accounts[static_cast<std::size_t>(exception.to)].path, expiry(exception)));
    }
  }
  return sentences;
}

// The accounts from the program down to `leaf`, with what the rank read of each.
std::vector<AccountStanding> standings(const cycle::CycleContext& context, int leaf) {
  const PolicyTables& tables = context.tables;
  const ClusterState& state = context.state;
  const AccountColumns& columns = context.accounts;
  std::vector<AccountStanding> path;
  for (int index = leaf; index > 0; index = tables.accounts[static_cast<std::size_t>(index)].parent) {
    const auto row = static_cast<std::size_t>(index);
    AccountStanding standing;
    standing.path = tables.accounts[row].path;
    standing.policy_share = tables.accounts[row].share;
    standing.level_share = columns.value(abi::account_level_share, row);
    standing.cluster_share = columns.value(abi::account_share, row);
    standing.exceptions = exceptions_of(tables, index, state.now);
    standing.usage = columns.value(abi::account_usage, row);
    standing.usage_ratio = columns.value(abi::account_usage_ratio, row);
    standing.fair_share = columns.value(abi::account_fair_tree, row);
    standing.debt = columns.value(abi::account_debt, row);
    standing.running_gpus = columns.value(abi::account_running_gpus, row);
    standing.pending_jobs = columns.value(abi::account_pending_jobs, row);
    path.push_back(std::move(standing));
  }
  std::reverse(path.begin(), path.end());
  return path;
}

std::string unknown_job(const ClusterState& state, const std::string& job_id) {
  std::vector<std::string_view> ids;
  for (const JobRequest& job : state.pending) ids.push_back(job.id);
  for (const RunningJob& job : state.running) ids.push_back(job.request.id);
  const std::string suggestion = support::nearest_name(job_id, ids);
  // The id is the command line's, the suggestion the snapshot's: both are shown printable().
  if (suggestion.empty()) {
    return fmt::format("no job `{}` is waiting or running in the state", support::printable(job_id));
  }
  return fmt::format("no job `{}` is waiting or running in the state; did you mean `{}`?", support::printable(job_id),
                     support::printable(suggestion));
}

// The inputs a waiting job has: none of a running job's (runtime, checkpoint,
// progress), and no deadline slack without a deadline.
std::vector<RankTerm> waiting_inputs(std::vector<RankTerm> terms, const JobRequest& job) {
  std::erase_if(terms, [&](const RankTerm& term) {
    return term.name == "job.runtime" || term.name == "job.since_checkpoint" || term.name == "job.stalled" ||
           term.name == "job.since_progress" || (!job.deadline && term.name == "job.deadline_slack");
  });
  return terms;
}

// How the jobs of the same rank as the one at `position` are ordered, or "".
std::string ties_of(const CycleResult& result, std::size_t position) {
  const double rank = result.ranks[position];
  std::size_t first = position, last = position;
  while (first > 0 && result.ranks[first - 1] == rank) --first;
  while (last + 1 < result.ranks.size() && result.ranks[last + 1] == rank) ++last;
  if (first == last) return "";
  const std::size_t others = last - first, ahead = position - first;
  return fmt::format(
      "{} other waiting job{} {} the same rank; ties go to the job submitted first, then to the smaller id, so {} of "
      "them {} ahead of it",
      others, others == 1 ? "" : "s", others == 1 ? "has" : "have", ahead, ahead == 1 ? "is" : "are");
}

void explain_waiting(Explanation& out, const cycle::CycleContext& context, const CycleResult& result,
                     const ExplainOptions& options) {
  const auto it = std::find(result.ranked_job_ids.begin(), result.ranked_job_ids.end(), out.job_id);
  out.queue_length = result.ranked_job_ids.size();
  if (it != result.ranked_job_ids.end()) {
    const auto position = static_cast<std::size_t>(it - result.ranked_job_ids.begin());
    out.position = position;
    out.rank = result.ranks[position];
    out.ties = ties_of(result, position);
  }
  for (const cycle::PendingJob& job : context.jobs.pending) {
    if (job.request->id != out.job_id) continue;
    if (job.problem.empty()) {
      out.contributions =
          cycle::rank_contributions(context.policy, context.pending_table, job.row, context.accounts, context.cluster);
    }
    if (out.decision) out.terms = waiting_inputs(out.decision->terms, *job.request);
    break;
  }
  out.next = explain::forecast_start(context.state, context.policy, result, out.job_id, options);
}

void explain_running(Explanation& out, const cycle::CycleContext& context, const CycleResult& result,
                     std::size_t index) {
  const RunningJob& job = context.state.running[index];
  out.run = job;
  out.expected_end = explain::expected_end(job, context.tables);
  out.lost_if_stopped_now = lost_gpu_seconds(job, context.state.now);
  out.preemption = explain::preemption_standing(context, result, index);
}

}  // namespace

Expected<Explanation, std::string> explain_job(const ClusterState& state, const CompiledPolicy& policy,
                                               const std::string& job_id, const ExplainOptions& options) {
  Explanation out;
  out.job_id = job_id;
  out.now = state.now;
  out.policy_name = policy.tables().name;
  out.policy_hash = policy.source_hash();
  const auto waiting =
      std::find_if(state.pending.begin(), state.pending.end(), [&](const JobRequest& job) { return job.id == job_id; });
  const auto running = std::find_if(state.running.begin(), state.running.end(),
                                    [&](const RunningJob& job) { return job.request.id == job_id; });
  if (waiting == state.pending.end() && running == state.running.end()) return unexpected(unknown_job(state, job_id));
  out.running = waiting == state.pending.end();
  const JobRequest& request = out.running ? running->request : *waiting;
  out.account = request.account;
  out.job_class = request.job_class;
  // One context for the cycle and for what explain shows of it.
  const cycle::CycleContext context(state, policy);
  if (const auto account = context.account_index.find(request.account)) out.accounts = standings(context, *account);
  CycleOptions cycle_options = options.cycle;
  cycle_options.explained_skips = std::numeric_limits<std::size_t>::max();
  const CycleResult result = cycle::run_cycle(context, cycle_options);
  for (const Decision& decision : result.decisions) {
    if (decision.job_id == job_id) out.decision = decision;
  }
  if (auto skip = result.skip_for(job_id)) out.decision = std::move(*skip);
  if (out.running) {
    explain_running(out, context, result, static_cast<std::size_t>(running - state.running.begin()));
  } else {
    explain_waiting(out, context, result, options);
  }
  if (options.preempt_pairs > 0 && policy.has_preempt()) {
    out.preempt = explain::preempt_verdicts(context, job_id, options.preempt_pairs);
  }
  return out;
}

}  // namespace allot::runtime
