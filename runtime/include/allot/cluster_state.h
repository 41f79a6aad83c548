// What a scheduler knows at one moment: the inventory, the jobs waiting and
// running (with the contracts they started under), reservations in force, and
// each account's usage and debt. Snapshots (allot/snapshot.h, docs/STATE.md)
// are its file form; the cycle (allot/cycle.h) decides on it; accounting and
// the snapshot readers need nothing else of the cycle.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "allot/epoch_seconds.h"
#include "allot/inventory.h"
#include "allot/policy.h"

namespace allot::runtime {

// What a user asked for. Resources are per node.
struct JobRequest {
  std::string id;
  std::string account;    // leaf account path in the policy's tree, "exploration/ana"
  std::string job_class;  // a class name of the policy
  int nodes = 1;
  int gpus_per_node = 1;
  std::string gpu_type;  // "" for any type
  double cpus_per_node = 0;
  double memory_gib_per_node = 0;
  Seconds submitted = 0;  // first submission (kept across requeues)
  std::optional<Seconds> deadline;
  int label = 0;                  // baseline priority label: 0 none, 1 low, 2 medium, 3 high
  Seconds requested_protect = 0;  // for `protect up to D` classes
  Seconds expected_runtime = 0;   // the user's estimate, 0 when unknown (deadline slack)
  bool requeueable = true;        // false: never chosen as a victim
  int restarts = 0;
  Seconds queued = 0;  // when it last entered the queue (0: `submitted`); `job.wait` counts from here
  // Where it may run (docs/STATE.md "Where a job may run"); every node when all are empty.
  std::vector<std::string> partitions;  // on the nodes of any one of these (Inventory::partitions)
  std::vector<std::string> features;    // on nodes that have every one of these features
  std::vector<std::string> nodelist;    // only on these nodes
  std::vector<std::string> exclude;     // never on these nodes
  // Inside this advance reservation (Inventory::advance_reservations); when
  // empty, never on a node an advance reservation holds.
  std::string reservation;
  bool exclusive = false;  // on whole nodes it shares with no other job
  // Why it cannot start whatever the policy decides (a dependency, a hold, a
  // begin time, a limit of the site's): ranked, never placed, never a reason
  // to preempt or hold capacity; empty when it may start.
  std::string blocked;
  // Set by a driver that keeps requests from cycle to cycle (the simulator
  // does): a number no other request, and no earlier content of this one, has
  // had. Give a request a new one whenever any field changes, as Kubernetes
  // gives an object a new resourceVersion. A cycle run with a CycleCache then
  // resolves the request's account and class in the policy once per revision
  // instead of once per cycle (allot/cycle.h). 0, the default, means unknown:
  // resolved at every cycle. Not part of snapshots.
  std::uint64_t revision = 0;
};

// The promise a job started under. It stays with the job when the policy is
// swapped, so a hot swap never takes protection away from running work.
struct Contract {
  Seconds protected_until = 0;
  Seconds checkpoint_every = 0;  // 0: no periodic checkpoint
  Seconds grace = 0;             // checkpoint signal to requeue
  bool resumable = false;
  bool preemptible = true;
  std::string policy_hash;
  // Set when the job was backfilled onto capacity held for a blocked job past
  // that hold's time (preemptible and resumable, so the hold may take it back):
  // from then on it may be preempted for the hold, share rule or not.
  std::optional<Seconds> yields_at;
  // The class's progress rule when the job started (docs/LANGUAGE.md
  // "Progress"; 0: none): once `progress_after` has passed since its start,
  // it reports progress at least every `progress_every`, or it is stalled.
  Seconds progress_every = 0;
  Seconds progress_after = 0;
  StallAction on_stall = StallAction::preempt;

  bool operator==(const Contract&) const = default;
};

// A job holding resources.
struct RunningJob {
  JobRequest request;
  Seconds started = 0;          // this run's start
  Seconds last_checkpoint = 0;  // == started until the first checkpoint
  std::vector<int> nodes;       // indexes into Inventory::nodes, one per node used
  Contract contract;
  // Set by apply_decisions once a preemption with a later stop time is decided
  // (a grace, or a drain's checkpoint or deadline): the job stops then, holds its
  // resources until then, and is never chosen again.
  std::optional<Seconds> stopping_at;
  // The last progress the job reported (a step, a metric, a heartbeat);
  // a checkpoint it reported (last_checkpoint after its start) counts too.
  std::optional<Seconds> last_progress;
  // last_checkpoint is one the job reported (allot serve's `checkpointed`, the
  // Slurm Comment, a snapshot's `checkpoint_reported`): the last safe point is
  // it, not the class's schedule after it (contracts.h, last_safe_point).
  bool checkpoint_reported = false;
};

// Capacity freed by preemption, held for the job it was freed for.
struct Reservation {
  std::string job_id;
  std::vector<int> nodes;
  Seconds until = 0;  // released if the job has not started by then
  // Held on each node of `nodes` (the job's request per node); other jobs see
  // each node's free capacity minus these.
  int gpus_per_node = 0;
  double cpus_per_node = 0;
  double memory_gib_per_node = 0;

  bool operator==(const Reservation&) const = default;
};

// Everything a cycle needs, as a snapshot (docs/STATE.md describes its file form).
struct ClusterState {
  Seconds now = 0;
  Inventory inventory;
  std::vector<JobRequest> pending;
  std::vector<RunningJob> running;
  std::vector<Reservation> reservations;
  // Usage per leaf account in the policy's unit over the window at `now`
  // (RollingLedger::usage_by_account), and owed-minus-delivered debt per account.
  std::map<std::string, double> usage;
  std::map<std::string, double> debt;
  // What each account was owed over the window (runtime/entitlement.h), when
  // the ledger's result carries it; only reports read it (delivered = owed - debt).
  std::map<std::string, double> owed;
  // The part of `usage` held without progress (stalled jobs, docs/LANGUAGE.md
  // "Progress"), when the driver's ledger counts it; only reports read it.
  std::optional<std::map<std::string, double>> without_progress;
};

}  // namespace allot::runtime
