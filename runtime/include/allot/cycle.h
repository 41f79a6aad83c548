// The scheduling cycle: a pure function from cluster state and a compiled
// policy to decisions (start, preempt, skip). It owns no clock, thread or
// socket: drivers (simulator, `allot cycle`, the Slurm adapter, a service)
// build a ClusterState, call run_cycle, and enact the decisions.
//
// Semantics (docs/SCHEDULING.md, docs/FAIRSHARE.md):
//   1. account fields (share with the exceptions in force at `now`, usage,
//      fair-share factors, debt) are computed from the policy's tables and the
//      usage in the state; job columns are filled for the fields the policy reads;
//   2. pending jobs are ranked with the policy's batch function (ties: earlier
//      submission first, then job id), and placed best-first: GPU type, memory,
//      node count, topology (multi-node jobs all-or-nothing, preferring one
//      block; best fit to keep large blocks free); reserved capacity is only
//      used by the job it is reserved for;
//   3. when the best unplaced job cannot be placed, victims are sought among
//      running jobs past their protection, preemptible under the contract they
//      started with, requeueable, accepted by the policy's `preempt`, whose
//      preemption does not push their account below its share, choosing the
//      set that frees a fitting block with the least lost work (GPU-seconds
//      since the last checkpoint); the freed capacity is reserved for that job;
//   4. jobs on draining nodes are preempted at their next checkpoint or the
//      drain deadline, whichever comes first; drained and down nodes take no work.
//
// Where the issue is silent:
//   - a preempted job stops after its contract's grace (Decision::stops_at);
//     until then it holds its GPUs, and the capacity is reserved for the job it
//     was freed for, which starts in the first cycle after the victims stop (in
//     the same cycle when no victim has a grace);
//   - anti-loop rule: a job may take capacity from another account only while
//     its own side is below its share (at the level where the two accounts'
//     paths part), and only if the victim's side stays at or above its share.
//     The victim's side then cannot win it back until it falls below its share
//     for another reason, so capacity never flips back and forth;
//   - the best job that can neither start nor preempt holds the nodes it
//     would fit on soonest (by the running jobs' expected ends) from the jobs
//     ranked below it, so a whole-node job is not starved by small ones
//     (CycleOptions::blocked_holds); jobs ranked above it are not affected;
//   - backfill (EASY: reservations only for the held jobs, docs/SCHEDULING.md):
//     a job that fits nowhere else may start on capacity held for a job above
//     it when its runtime limit (its own estimate, else its class's
//     `max_runtime`) ends by the hold's expected start, so no held job starts
//     later because of it; the start says "backfilled ... must end by T". A
//     job without a limit, or a hold without a known start, backfills nothing;
//   - a stopping job's resources are what a reservation on its node waits
//     for: the two are counted once, so one victim frees one job's room;
//   - a job never preempts work of its own leaf account; "holding" and "share"
//     above are what running jobs cost per hour in the policy's unit against
//     the account's exception-adjusted share of the up nodes;
//   - a drain stops a job at its first checkpoint after its protection; the
//     drain deadline overrides protection and `preemptible false` (the node
//     goes away); a job with neither runs to completion; jobs on a down node
//     have stopped;
//   - `protect up to D` gives a job the time it asked for, capped at D, and D
//     when it asked for nothing;
//   - a job whose account or class the policy does not know is not ranked
//     (a skip says why); a running one keeps its resources and contract but is
//     never a victim.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "allot/cluster_state.h"
#include "allot/policy.h"

namespace allot::runtime {

enum class DecisionKind { start, preempt, skip };

// One term of a job's rank, for explanations ("fair_tree = 0.83").
struct RankTerm {
  std::string name;
  double value = 0;

  bool operator==(const RankTerm&) const = default;
};

// One term of the policy's rank (CompiledPolicy::rank_terms) and what it added
// to a job's rank, as `sprio` shows a priority's factors: explain and eval.
struct RankContribution {
  PolicyPart term;
  double value = 0;
};

// One decision with the evidence behind it; also the audit record.
struct Decision {
  DecisionKind kind = DecisionKind::skip;
  std::string job_id;
  std::string account;
  std::string job_class;
  double rank = 0;
  int position = 0;             // place in the ranked queue (0 = first)
  std::vector<int> nodes;       // start: where; preempt: what it frees
  std::string for_job;          // preempt: the job the capacity is freed for
  double lost_gpu_seconds = 0;  // preempt: GPU-seconds since the last checkpoint
  Seconds stops_at = 0;         // preempt: when the job stops (now + grace, or a drain's checkpoint or deadline)
  Contract contract;            // start: the promise made to the job
  std::vector<RankTerm> terms;  // the inputs of the rank that mattered
  std::string reason;           // one sentence for a person

  // Field by field (the differential tests of cached against fresh cycles).
  bool operator==(const Decision&) const = default;
};

struct CycleOptions {
  // At most this many pending jobs are considered for placement per cycle
  // (all are ranked); Slurm's default_queue_depth plays the same role.
  std::size_t placement_depth = 100000;
  // How long capacity freed by preemption stays reserved after the victims stop.
  Seconds reservation_ttl = 600;
  // At most this many unplaced jobs (best first) look for victims per cycle.
  std::size_t preemption_depth = 16;
  // The best this many jobs that can neither start nor take capacity by
  // preemption get capacity held: the nodes they would fit on soonest take no
  // job ranked below them (Slurm's reservation for its top job, so a job that
  // needs whole nodes is not starved by a stream of small ones). Recomputed
  // each cycle at the job's place in the queue; 0 turns it off. Jobs below
  // may backfill held capacity when their limit ends before the hold's time.
  std::size_t blocked_holds = 1;
  // Whether a preemptible, resumable job whose limit runs past a hold's time
  // may backfill it and yield at that time (Contract::yields_at), under a
  // policy without `preempt`. Off by default: on the traces measured it cost
  // more waiting than it gained (docs/SCHEDULING.md "Backfill that yields").
  bool yield_backfill = false;
  bool record_skips = true;  // a `skip` decision per pending job that could not start
  // Whether running jobs on draining or down nodes are stopped (drain.h). A
  // driver whose scheduler handles those nodes itself turns it off (Slurm lets
  // a draining node's jobs finish and fails or requeues a down node's jobs), so
  // the cycle decides no stop that would never be enacted.
  bool stop_on_unavailable_nodes = true;
  // Skips (best first) that carry their rank terms; later skips carry the rank only.
  std::size_t explained_skips = 1000;
};

// A pending job that did not start, in a few bytes: a cycle over a long queue
// skips nearly every job, and a Decision per job (strings, vectors, a
// contract) was most of such a cycle's time and memory. The names and the
// reason are indexes into the result's tables; CycleResult::skip_decision
// makes the Decision a person reads.
struct Skip {
  // Place in the ranked queue (0 = first), an index into ranked_job_ids and
  // ranks; -1 when the job is not ranked (its account or class is not the
  // policy's), and `unranked` is its index into unranked_job_ids.
  int position = -1;
  std::uint32_t unranked = 0;
  std::uint32_t account = 0;    // into CycleResult::skip_names
  std::uint32_t job_class = 0;  // into CycleResult::skip_names
  std::uint32_t reason = 0;     // into CycleResult::skip_reasons

  bool operator==(const Skip&) const = default;
};

struct CycleResult {
  Seconds now = 0;
  std::string policy_hash;
  std::vector<Decision> decisions;          // starts and preemptions
  std::vector<Skip> skips;                  // the jobs that wait, in the order the cycle decided them
  std::vector<std::string> ranked_job_ids;  // every ranked pending job, best first
  std::vector<double> ranks;                // parallel to ranked_job_ids
  std::vector<Reservation> reservations;    // in force after the cycle
  // What the skips point into: the ids of the jobs that are not ranked, the
  // accounts' and classes' names, each distinct reason once, and the rank
  // terms of the first skips (CycleOptions::explained_skips; by skip index).
  std::vector<std::string> unranked_job_ids;
  std::vector<std::string> skip_names;
  std::vector<std::string> skip_reasons;
  std::vector<std::vector<RankTerm>> skip_terms;

  // The skip at `index` as a Decision (kind skip): job, account, class, rank,
  // position (-1 when not ranked), the rank terms it carries, and its reason.
  Decision skip_decision(std::size_t index) const;
  // The id of the skip's job at `index`.
  const std::string& skip_job_id(std::size_t index) const;
  // The skip of job `job_id` as a Decision, if the cycle skipped it.
  std::optional<Decision> skip_for(std::string_view job_id) const;
  // Every decision as a Decision: the starts and preemptions, then the skips.
  std::vector<Decision> all_decisions() const;

  bool operator==(const CycleResult&) const = default;
};

// What a driver that runs cycle after cycle (the simulator, `allot slurm`,
// `allot serve`) keeps between them: what the cycle computes from inputs that
// change far less often than it runs (the account tree and its fair-share
// values, the policy's account index), with those inputs, reused while they are
// equal; the account and class each request resolved to, by its revision
// (JobRequest::revision); and the memory of results given back. A cycle given a
// cache decides exactly what a cycle without one decides
// (every decision, reason and rank: tests/simulator/cycle_cache_test.cpp checks
// each cycle of long replays against a fresh one). A cache may be dropped at any
// time, serves any policy (it starts over when the policy changes), and belongs
// to one thread.
class CycleCache {
 public:
  CycleCache();
  ~CycleCache();
  CycleCache(CycleCache&&) noexcept;
  CycleCache& operator=(CycleCache&&) noexcept;

  // Takes back a result the caller is done with: the next cycle writes its
  // skips into that memory. A cycle over a long queue writes a skip per waiting
  // job, and memory fresh from the system costs a page fault every 4 KiB; what
  // is handed back costs none. Optional.
  void give_back(CycleResult&& used);

  struct Kept;  // runtime-internal
  Kept& kept() { return *kept_; }

 private:
  std::unique_ptr<Kept> kept_;
};

// Runs one cycle. Does not modify `state`; apply the decisions to it with
// apply_decisions (the simulator) or enact them elsewhere (Slurm).
CycleResult run_cycle(const ClusterState& state, const CompiledPolicy& policy, const CycleOptions& options = {});
// The same, reusing and refreshing what `cache` keeps.
CycleResult run_cycle(const ClusterState& state, const CompiledPolicy& policy, const CycleOptions& options,
                      CycleCache& cache);

// Applies a cycle's starts and preemptions to `state`: started jobs move to
// running; a preempted job whose stop time has come goes back to pending with
// restarts + 1 and `queued` = now, a later one gets `stopping_at`; running jobs
// whose `stopping_at` has passed are requeued the same way; reservations are
// replaced by the cycle's.
void apply_decisions(ClusterState& state, const CycleResult& result);

}  // namespace allot::runtime
