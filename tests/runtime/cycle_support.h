// Helpers for the scheduling-cycle tests: compiling policies, building
// clusters and jobs, finding decisions, and a small driver that moves time
// forward (charging usage, finishing jobs, checkpointing) between cycles the
// way the simulator does.
#pragma once

#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "allot/account_tree.h"
#include "allot/cycle.h"
#include "allot/entitlement.h"
#include "allot/ledger.h"
#include "allot/policy.h"

namespace cycle_test {

using namespace allot;
using namespace allot::runtime;

constexpr Seconds kMinute = 60;
constexpr Seconds kHour = 3600;
constexpr Seconds kDay = 86400;
// 2026-12-01T00:00:00Z, a Tuesday: the first day of the seed's story.
constexpr Seconds kTuesday = 1'796'083'200;

// Compiles policy text or a file of the source tree ("policies/saas.allot")
// with "today" = 2026-12-01; fails the test with the diagnostics if it does not compile.
std::shared_ptr<const CompiledPolicy> compile_text(const std::string& text, Engine engine = Engine::interpreter);
std::shared_ptr<const CompiledPolicy> compile_file(const std::string& relative_path,
                                                   Engine engine = Engine::interpreter);

// The text of a file of the source tree ("policies/saas.allot").
std::string source_text(const std::string& relative_path);

// policies/saas.allot without the fast lane of its debug class.
std::string saas_without_fast_lane();

// A two-program policy (alpha/beta, `alpha_share` + the rest) with a
// preemptible class `work` (protected `protect`, checkpoint every 10m, no
// grace), a run-to-completion class `pinned`, and the given rank and preempt.
std::string two_team_policy(const std::string& rank, const std::string& preempt, int alpha_share = 50,
                            const std::string& protect = "10m");

// An inventory from TOML text (fails the test on errors).
Inventory inventory_from(const std::string& toml);

// `nodes` identical up nodes named node-01.., `per_block` to a block.
Inventory uniform_inventory(int nodes, int gpus, const std::string& gpu_type = "h100", int per_block = 4);

// A one-node job asking for `gpus` GPUs of any type, submitted at `submitted`.
JobRequest job(const std::string& id, const std::string& account, const std::string& job_class, int gpus,
               Seconds submitted = kTuesday);

// A job running since `started` on `nodes` under `contract`.
RunningJob running(JobRequest request, std::vector<int> nodes, Seconds started, Contract contract = {});

// The decisions of one kind, and the first decision about a job (null if none).
std::vector<const Decision*> decisions_of(const CycleResult& result, DecisionKind kind);
const Decision* decision_for(const CycleResult& result, const std::string& job_id, DecisionKind kind);

// Ids of the jobs a cycle preempted.
std::set<std::string> preempted_ids(const CycleResult& result);

// Moves a cluster through time: between cycles, running jobs are charged to
// the usage ledger, checkpoint on schedule and finish when their work
// (JobRequest::expected_runtime) is done; a preempted resumable job keeps the
// work up to its last checkpoint.
class Driver {
 public:
  Driver(Inventory inventory, std::shared_ptr<const CompiledPolicy> policy, Seconds start);

  // Queues a job submitted now.
  void submit(JobRequest job);
  // Advances time by `step`, then runs a cycle and applies it.
  const CycleResult& step(Seconds step);
  // Swaps the policy the next cycles run (a hot swap).
  void swap(std::shared_ptr<const CompiledPolicy> policy) { policy_ = std::move(policy); }

  ClusterState& state() { return state_; }
  const CycleResult& last() const { return last_; }
  const RunningJob* find_running(const std::string& id) const;
  bool finished(const std::string& id) const { return finished_.count(id) > 0; }
  // Whether a running job will finish its work within `time` from now.
  bool any_job_ends_within(Seconds time) const;
  // When the job first started (0 if never).
  Seconds first_start(const std::string& id) const;
  // (time, account) of every job that finished its work, in order.
  const std::vector<std::pair<Seconds, std::string>>& completions() const { return completions_; }
  // Every start and preemption so far, in order.
  const std::vector<Decision>& history() const { return history_; }
  // GPUs each leaf account holds now.
  std::map<std::string, int> gpus_by_account() const;
  // Owed, delivered and borrowed GPU-hours per account since the start
  // (runtime/entitlement.h over every step), and one account's row.
  EntitlementReport entitlements() const;
  const Entitlement& entitlement(const EntitlementReport& report, const std::string& account) const;
  CycleOptions options;

 private:
  void advance(Seconds step);
  void run_job(RunningJob& job, Seconds from, Seconds until);
  void record(const CycleResult& result);
  void record_load(Seconds duration);

  std::shared_ptr<const CompiledPolicy> policy_;
  ClusterState state_;
  RollingLedger ledger_;
  std::map<std::string, Seconds> work_done_;  // saved work per job (at its last checkpoint)
  std::map<std::string, Seconds> first_start_;
  std::set<std::string> finished_;
  std::vector<std::pair<Seconds, std::string>> completions_;
  std::vector<Decision> history_;
  CycleResult last_;
  AccountTree tree_;  // the policy's tree without exceptions, for entitlements
  std::vector<EntitlementStep> steps_;
};

}  // namespace cycle_test
