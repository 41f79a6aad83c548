// `explain JOB`: why a job is where it is, for a person. It runs the same
// cycle the scheduler runs (run_cycle) on the state, reads the job's decision,
// its rank and rank terms, and its account's standing (share with exceptions,
// usage, fair-share factor, debt); for a waiting job it steps the state forward
// through the times something is expected to change (running jobs' expected
// ends, protections running out, stops, reservations, drains, exceptions) and
// re-runs the cycle until the job starts: its next opportunity to run if
// nothing else changes. No second scheduler: every projected decision is
// run_cycle's. The CLI (`allot explain`), the Slurm adapter and a service
// share this code.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "allot/cycle.h"
#include "allot/expected.h"
#include "allot/policy.h"

namespace allot::runtime {

struct ExplainOptions {
  CycleOptions cycle;            // as the scheduler runs it
  Seconds horizon = 14 * 86400;  // how far ahead the forecast looks
  std::size_t max_steps = 2000;  // cycles the forecast may run
  // When above 0, Explanation::preempt holds `preempt`'s verdicts on up to
  // this many pairs with the job (`allot eval`); the policy must have preempt.
  std::size_t preempt_pairs = 0;
};

// `preempt`'s verdict on one pair, operand by operand (`allot eval`).
struct PreemptVerdict {
  std::string victim, requester;  // job ids
  bool accepted = false;          // `preempt` answered true
  std::vector<bool> operands;     // by CompiledPolicy::preempt_operands()
};

// What `preempt` says about the explained job (ExplainOptions::preempt_pairs):
// a waiting job as the requester, against every running job offered as a
// victim (as exercise_policy counts them); a running job as the victim, against
// every waiting job of another account, when it is offered at all
// (`not_offered` says why not). Victims or requesters in state order.
struct PreemptVerdicts {
  bool as_victim = false;
  std::string not_offered;  // a running job never offered to `preempt` now: why; else ""
  std::vector<PreemptVerdict> pairs;
  std::size_t left_out = 0;  // pairs past ExplainOptions::preempt_pairs
};

// One account on the job's path (program first, the job's leaf account last).
struct AccountStanding {
  std::string path;
  double policy_share = 0;              // of the parent, as the policy's tree says (0.4 for 40%)
  double level_share = 0;               // of the parent, with the exceptions in force
  double cluster_share = 0;             // of the whole cluster, with the exceptions in force
  std::vector<std::string> exceptions;  // in force and touching this account, as sentences
  double usage = 0;                     // over the window, in the policy's unit
  double usage_ratio = 0;               // effective usage / normalised share (> 1: over its share)
  double fair_share = 0;                // the Fair Tree factor, 0..1 (best leaf below for inner accounts)
  double debt = 0;                      // owed minus delivered, in the policy's unit
  double running_gpus = 0;
  double pending_jobs = 0;
};

// When a waiting job would start if nothing else changed.
struct NextOpportunity {
  std::optional<Seconds> at;  // nullopt when it cannot be known (see `why`)
  std::vector<int> nodes;     // where (indexes into Inventory::nodes)
  std::string why;            // what frees the capacity then, or why it cannot be known
  std::size_t cycles = 0;     // cycles the forecast ran
};

// Whether a running job could be preempted now, and why (not).
struct PreemptionStanding {
  bool candidate = false;  // past protection, preemptible, offered to `preempt`
  bool chosen = false;     // this cycle preempts it
  std::string why;
};

struct Explanation {
  std::string job_id;
  bool running = false;
  Seconds now = 0;
  std::string policy_name;
  std::string policy_hash;
  std::string account;
  std::string job_class;
  std::vector<AccountStanding> accounts;  // empty when the policy does not know the account

  // The cycle's decision about the job at `now`, if it made one.
  std::optional<Decision> decision;

  // A waiting job: its place in the ranked queue (0 = first), rank and terms.
  std::optional<std::size_t> position;
  std::size_t queue_length = 0;
  double rank = 0;
  std::vector<RankTerm> terms;                  // the inputs rank reads that the job has (a waiting job has no runtime)
  std::vector<RankContribution> contributions;  // each rank term's part of its rank, in the order written
  std::string ties;                             // how ties with jobs of the same rank go; "" when it has none
  std::optional<NextOpportunity> next;

  // A running job: what it holds, the promise it started under, and its preemption standing.
  std::optional<RunningJob> run;
  std::optional<Seconds> expected_end;  // started + expected runtime, when known
  double lost_if_stopped_now = 0;       // GPU-seconds since its last safe point
  std::optional<PreemptionStanding> preemption;

  // With ExplainOptions::preempt_pairs, when the policy has preempt.
  std::optional<PreemptVerdicts> preempt;
};

// Explains `job_id` in `state` under `policy`; an error when no job has that id.
Expected<Explanation, std::string> explain_job(const ClusterState& state, const CompiledPolicy& policy,
                                               const std::string& job_id, const ExplainOptions& options = {});

// For a person: a few short paragraphs, ending in "\n".
std::string explanation_text(const Explanation& explanation, const Inventory& inventory);

// For tools: indented JSON ending in "\n" (docs/AUDIT.md, "Explain document").
std::string explanation_json(const Explanation& explanation, const Inventory& inventory);

// What one state exercises of a policy's rank terms and preempt operands
// (`allot test --coverage`, docs/TESTING.md "Coverage"): each term's values
// over every rankable waiting job, and each operand's truth over the pairs the
// cycle may ask `preempt` about (a running job offered as a victim: known
// account, not stopping, past its protection, preemptible; and a waiting job of
// another account), at most kMaxExercisedPairs of them per state.
struct TermExercise {
  std::size_t jobs = 0;  // ranked jobs seen
  bool nonzero = false;
  double lowest = 0, highest = 0;  // over the jobs seen (NaN apart)
};
struct OperandExercise {
  std::size_t pairs = 0;
  bool seen_true = false, seen_false = false;
};
struct PolicyExercise {
  std::vector<TermExercise> terms;        // by CompiledPolicy::rank_terms()
  std::vector<OperandExercise> operands;  // by CompiledPolicy::preempt_operands()
};
inline constexpr std::size_t kMaxExercisedPairs = 1'000'000;

// Adds what `state` exercises of `policy` to `into` (sized on first use).
void exercise_policy(const ClusterState& state, const CompiledPolicy& policy, PolicyExercise& into);

}  // namespace allot::runtime
