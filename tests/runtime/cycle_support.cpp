#include "cycle_support.h"
#include "allot/compile.h"

#include <fmt/format.h>
#include <catch2/catch.hpp>

#include <algorithm>
#include <deque>
#include <fstream>
#include <sstream>

namespace cycle_test {
namespace {

constexpr int kDecemberFirst2026 = 20788;  // days since 1970-01-01

CompileOptions options_for(Engine engine) {
  CompileOptions options;
  options.engine = engine;
  options.check.today = Date{kDecemberFirst2026};
  return options;
}

std::shared_ptr<const CompiledPolicy> checked(CompileResult result) {
  std::string messages;
  for (const Diagnostic& diagnostic : result.diagnostics) messages += diagnostic.message + "\n";
  INFO(messages);
  REQUIRE(result.policy != nullptr);
  return result.policy;
}

LedgerConfig ledger_config(const PolicyTables& tables) {
  LedgerConfig config;
  for (const auto& [type, weight] : tables.unit.weights) config.unit.gpu_type_weights.emplace(type, weight);
  config.window = static_cast<Seconds>(tables.window);
  return config;
}

AccountTree tree_of(const PolicyTables& tables) {
  std::vector<AccountSpec> specs;
  for (std::size_t i = 1; i < tables.accounts.size(); ++i)
    specs.push_back({tables.accounts[i].path, tables.accounts[i].share});
  return *AccountTree::build(specs);
}

// The time a stopped job resumes from: its last checkpoint, or its start.
Seconds safe_point(const RunningJob& job, Seconds stop) {
  if (!job.contract.resumable) return job.started;
  const Seconds every = job.contract.checkpoint_every;
  if (every <= 0) return job.last_checkpoint;
  return job.started + (stop - job.started) / every * every;
}

}  // namespace

std::shared_ptr<const CompiledPolicy> compile_text(const std::string& text, Engine engine) {
  return checked(compile_policy_source("test.allot", text, options_for(engine)));
}

std::shared_ptr<const CompiledPolicy> compile_file(const std::string& relative_path, Engine engine) {
  return checked(compile_policy_file(std::string(ALLOT_SOURCE_DIR) + "/" + relative_path, options_for(engine)));
}

std::string source_text(const std::string& relative_path) {
  std::ifstream file(std::string(ALLOT_SOURCE_DIR) + "/" + relative_path);
  if (!file) FAIL("cannot read " << relative_path);
  std::stringstream text;
  text << file.rdbuf();
  return text.str();
}

std::string saas_without_fast_lane() {
  std::string source = source_text("policies/saas.allot");
  const std::string lane = "    fast_lane up to 1 gpu per program\n";
  const std::size_t at = source.find(lane);
  if (at == std::string::npos) FAIL("policies/saas.allot's debug class has no fast lane of the expected form");
  source.erase(at, lane.size());
  return source;
}

std::string two_team_policy(const std::string& rank, const std::string& preempt, int alpha_share,
                            const std::string& protect) {
  return fmt::format(R"(policy two_teams {{
  unit gpu_hours {{ h100 = 1.0 }}
  window 7d
  tree {{
    alpha {}% {{ owner "a@example.com" review 2027-01-31 hypothesis "alpha's bet" }}
    beta {}% {{ owner "b@example.com" review 2027-01-31 hypothesis "beta's bet" }}
  }}
  class work {{
    checkpoint every 10m
    protect {}
    resumable
  }}
  class pinned {{
    preemptible false
  }}
  rank = {}
  preempt when {}
}}
)",
                     alpha_share, 100 - alpha_share, protect, rank, preempt);
}

Inventory inventory_from(const std::string& toml) {
  auto inventory = parse_inventory(toml, "test.toml");
  if (!inventory) FAIL(inventory.error().to_string());
  return *inventory;
}

Inventory uniform_inventory(int nodes, int gpus, const std::string& gpu_type, int per_block) {
  return inventory_from(fmt::format(R"([[group]]
prefix = "node-"
count = {}
digits = 2
gpu_type = "{}"
gpus = {}
cpus = 96
memory_gib = 1024
nodes_per_block = {}
block_prefix = "rack-"
)",
                                    nodes, gpu_type, gpus, per_block));
}

JobRequest job(const std::string& id, const std::string& account, const std::string& job_class, int gpus,
               Seconds submitted) {
  JobRequest request;
  request.id = id;
  request.account = account;
  request.job_class = job_class;
  request.gpus_per_node = gpus;
  request.submitted = submitted;
  return request;
}

RunningJob running(JobRequest request, std::vector<int> nodes, Seconds started, Contract contract) {
  RunningJob job;
  job.request = std::move(request);
  job.nodes = std::move(nodes);
  job.started = started;
  job.last_checkpoint = started;
  job.contract = std::move(contract);
  return job;
}

std::vector<const Decision*> decisions_of(const CycleResult& result, DecisionKind kind) {
  std::vector<const Decision*> found;
  for (const Decision& decision : result.decisions) {
    if (decision.kind == kind) found.push_back(&decision);
  }
  return found;
}

const Decision* decision_for(const CycleResult& result, const std::string& job_id, DecisionKind kind) {
  for (const Decision& decision : result.decisions) {
    if (decision.job_id == job_id && decision.kind == kind) return &decision;
  }
  if (kind != DecisionKind::skip) return nullptr;
  // A skip is made a Decision on demand; the test process keeps the ones it
  // handed out (a deque keeps their addresses).
  static std::deque<Decision> skips;
  auto skip = result.skip_for(job_id);
  if (!skip) return nullptr;
  skips.push_back(std::move(*skip));
  return &skips.back();
}

std::set<std::string> preempted_ids(const CycleResult& result) {
  std::set<std::string> ids;
  for (const Decision* decision : decisions_of(result, DecisionKind::preempt)) ids.insert(decision->job_id);
  return ids;
}

Driver::Driver(Inventory inventory, std::shared_ptr<const CompiledPolicy> policy, Seconds start)
    : policy_(std::move(policy)), ledger_(ledger_config(policy_->tables())), tree_(tree_of(policy_->tables())) {
  state_.now = start;
  state_.inventory = std::move(inventory);
}

void Driver::submit(JobRequest job) {
  job.submitted = state_.now;
  state_.pending.push_back(std::move(job));
}

const CycleResult& Driver::step(Seconds step) {
  advance(step);
  state_.usage = ledger_.usage_by_account(state_.now);
  last_ = run_cycle(state_, *policy_, options);
  record(last_);
  apply_decisions(state_, last_);
  return last_;
}

void Driver::run_job(RunningJob& job, Seconds from, Seconds until) {
  if (until <= from) return;
  const double gpus = static_cast<double>(job.nodes.size()) * job.request.gpus_per_node;
  const std::string& type =
      state_.inventory.gpu_types[static_cast<std::size_t>(state_.inventory.nodes[job.nodes.front()].gpu_type)];
  ledger_.charge(Charge{job.request.account, job.request.id, from, until, ResourceUse{type, gpus, 0, 0}});
  if (job.contract.checkpoint_every > 0) job.last_checkpoint = safe_point(job, until);
}

void Driver::advance(Seconds step) {
  const Seconds from = state_.now;
  const Seconds until = from + step;
  record_load(step);
  std::vector<RunningJob> still;
  for (RunningJob& job : state_.running) {
    const Seconds needed = job.request.expected_runtime - work_done_[job.request.id];
    const Seconds finish = job.request.expected_runtime > 0 ? job.started + needed : until + 1;
    const Seconds stop = job.stopping_at ? std::min(*job.stopping_at, until) : until;
    run_job(job, std::max(from, job.started), std::min(stop, finish));
    if (finish <= stop && finish <= until) {
      finished_.insert(job.request.id);
      completions_.emplace_back(finish, job.request.account);
      continue;
    }
    still.push_back(std::move(job));
  }
  state_.running = std::move(still);
  state_.now = until;
}

void Driver::record(const CycleResult& result) {
  for (const Decision& decision : result.decisions) {
    if (decision.kind == DecisionKind::skip) continue;
    history_.push_back(decision);
    if (decision.kind == DecisionKind::start) first_start_.emplace(decision.job_id, result.now);
  }
  // Work saved by jobs that leave now: their progress up to the last checkpoint.
  for (const RunningJob& job : state_.running) {
    const Decision* stop = decision_for(result, job.request.id, DecisionKind::preempt);
    const Seconds stops_at = stop ? stop->stops_at : job.stopping_at.value_or(result.now + 1);
    if (stops_at <= result.now) work_done_[job.request.id] += safe_point(job, stops_at) - job.started;
  }
}

const RunningJob* Driver::find_running(const std::string& id) const {
  for (const RunningJob& job : state_.running) {
    if (job.request.id == id) return &job;
  }
  return nullptr;
}

bool Driver::any_job_ends_within(Seconds time) const {
  return std::any_of(state_.running.begin(), state_.running.end(), [&](const RunningJob& job) {
    const auto done = work_done_.find(job.request.id);
    const Seconds saved = done == work_done_.end() ? 0 : done->second;
    return job.request.expected_runtime > 0 && job.started + job.request.expected_runtime - saved <= state_.now + time;
  });
}

Seconds Driver::first_start(const std::string& id) const {
  const auto it = first_start_.find(id);
  return it == first_start_.end() ? 0 : it->second;
}

std::map<std::string, int> Driver::gpus_by_account() const {
  std::map<std::string, int> gpus;
  for (const RunningJob& job : state_.running) {
    gpus[job.request.account] += static_cast<int>(job.nodes.size()) * job.request.gpus_per_node;
  }
  return gpus;
}

}  // namespace cycle_test

namespace cycle_test {

// One entitlement step: the cluster's GPUs, and each leaf's demand (running
// and pending GPUs) and usage (running GPUs) as the step begins.
void Driver::record_load(Seconds duration) {
  EntitlementStep step{duration, static_cast<double>(state_.inventory.schedulable_gpus()),
                       std::vector<AccountLoad>(tree_.size())};
  for (const RunningJob& job : state_.running) {
    const double gpus = static_cast<double>(job.nodes.size()) * job.request.gpus_per_node;
    if (auto node = tree_.find(job.request.account)) {
      step.load[*node].usage += gpus;
      step.load[*node].demand += gpus;
    }
  }
  for (const JobRequest& job : state_.pending) {
    if (auto node = tree_.find(job.account))
      step.load[*node].demand += static_cast<double>(job.nodes) * job.gpus_per_node;
  }
  steps_.push_back(std::move(step));
}

EntitlementReport Driver::entitlements() const {
  return account_entitlements(tree_, tree_.normalized_shares(), steps_);
}

const Entitlement& Driver::entitlement(const EntitlementReport& report, const std::string& account) const {
  return report.accounts.at(*tree_.find(account));
}

}  // namespace cycle_test
