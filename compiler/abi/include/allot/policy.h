// Compiled policies: a checked policy turned into callable code plus the
// constant tables the runtime needs (tree, classes, exceptions, unit, window).
// Header-only (allot_policy_abi, with abi.h, date.h, gates.h and diagnostic.h): all the
// runtime sees of the compiler. Compiling a policy is allot/compile.h (allot_backend).
#pragma once

#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "allot/abi.h"
#include "allot/date.h"
#include "allot/gates.h"

namespace allot {

// Levels of a budget tree the language accepts (programs are level 1): the
// parser refuses a deeper tree, and `allot import slurm` a deeper dump.
inline constexpr std::size_t kMaxTreeLevels = 64;

// Which engine evaluates rank and preempt.
enum class Engine { jit, interpreter };

// A node of the budget tree. Index 0 is the root (the whole cluster); every
// other node's parent has a smaller index (depth-first order).
struct AccountInfo {
  std::string path;  // "exploration/ana"; "" for the root
  std::string name;
  int parent = -1;
  int depth = 0;  // 0 root, 1 program, then one more per level (at most 64)
  // Fraction of the parent, before exceptions, so that a node's fraction of the
  // cluster is the product of the shares down its path: 0.4 for `40%`; raw / the
  // non-parent siblings' raw sum for `shares N`; through `share parent` as
  // docs/LANGUAGE.md ("Shares in the runtime") has it.
  double share = 1.0;
  double unallocated = 0;      // fraction of this node's children left unallocated
  bool use_parent = false;     // `share parent` (Slurm's FairShare=parent)
  double raw_shares = 0;       // what Slurm would hold as shares_raw: percentage points for `40%` (40), the integer for
                               // `shares N`, 0 for `share parent`
  bool percent_shares = true;  // the sibling set uses percentages (false: raw `shares N`)
  std::string owner;           // inherited when not set on the node
  std::optional<Date> review;
  std::string hypothesis;
  bool leaf = true;
};

// What happens to a running job that stops reporting progress (a class's
// `progress every D ... else ACTION`, docs/LANGUAGE.md "Progress"): it loses
// its protection and is preferred as a victim (preempt, the default of a
// preemptible class), runs on, charged and reported (keep), or is stopped at
// once (stop).
enum class StallAction { preempt, keep, stop };

// An execution contract; durations in seconds, 0 when not set.
struct ClassInfo {
  std::string name;
  int max_gpus = 0;
  int max_nodes = 0;
  double max_runtime = 0;
  double protect = 0;
  bool protect_up_to = false;  // the job chooses its protection, capped at `protect`
  double checkpoint_every = 0;
  double grace = 0;
  bool resumable = false;
  bool preemptible = true;
  bool deadline_required = false;
  std::optional<double> slo;  // fraction
  // `fast_lane up to N gpus per program`: its jobs may stop running jobs past
  // their protection, share rule or not, while the program's running jobs of
  // this class hold at most N GPUs (0: no fast lane). docs/SCHEDULING.md.
  int fast_lane_gpus = 0;
  // `progress every D after A`: once A has passed since its start, a running
  // job reports progress at least every D, or it is stalled (0: no rule).
  double progress_every = 0;
  double progress_after = 0;
  StallAction on_stall = StallAction::preempt;
};

// The action as a policy writes it ("preempt", "keep", "stop").
inline const char* stall_action_name(StallAction action) {
  switch (action) {
    case StallAction::keep:
      return "keep";
    case StallAction::stop:
      return "stop";
    case StallAction::preempt:
      break;
  }
  return "preempt";
}

// A temporary grant, applied by the runtime while starts <= now < expires
// (seconds since the epoch), so it stops at expiry without a recompile.
struct ExceptionInfo {
  std::string name;
  int to = 0;         // account index
  int from = -1;      // account index, or -1 for the level's unallocated share
  double delta = 0;   // fraction points at each node's own level
  double starts = 0;  // 0 when the exception has no start date
  double expires = 0;
  std::string owner;
  std::string reason;
};

struct UnitInfo {
  bool dominant = false;                                // dominant-resource unit instead of GPU-hours
  std::vector<std::pair<std::string, double>> weights;  // GPU type or resource -> weight
};

struct GateInfo {
  GateMetric metric = GateMetric::share_delivery;
  std::string subject;  // a class name, or ""
  GateOp op = GateOp::at_least;
  double threshold = 0;  // in abi units (fraction, seconds)
  std::optional<double> window;
};

// Everything the runtime needs to know about a policy besides its code.
struct PolicyTables {
  std::string name;
  UnitInfo unit;
  double window = 7 * 86400.0;
  std::optional<double> half_life;
  std::string fairshare = "fair_tree";
  std::vector<AccountInfo> accounts;
  std::vector<ClassInfo> classes;  // the class index of abi::job_class
  std::vector<ExceptionInfo> exceptions;
  std::vector<GateInfo> gates;
};

// The program (depth 1) that account `account` (an index into
// PolicyTables::accounts) belongs to; the root (0) is its own. The one answer
// for the cycle's fast lane, the replay's program totals and its metrics.
inline int program_of(const PolicyTables& tables, int account) {
  while (account > 0 && tables.accounts[static_cast<std::size_t>(account)].depth > 1) {
    account = tables.accounts[static_cast<std::size_t>(account)].parent;
  }
  return account;
}

// A piece of `rank` or `preempt` that explain, eval and `allot test --coverage`
// show on its own (docs/TESTING.md "Coverage"): a rank term is an operand of
// rank's outermost `+` / `-` chain, inside any `let`; a preempt operand is one
// of its outermost `and` / `or` chain. A rank that is not a sum is one term,
// and a preempt that is neither an `and` nor an `or` one operand.
struct PolicyPart {
  std::string text;        // as written, on one line: `200 * deadline_urgency(job)`, `share`
  std::string definition;  // a term that is a `let`'s name: the let's value as written; else ""
  std::string file;
  int line = 0;
  bool negated = false;   // a rank term written after `-`: it counts against the rank
  bool constant = false;  // its value is fixed (a literal, or folded to one): nothing a test can vary
};

// A loaded policy: its tables and its code. Owns the code (JIT memory is
// released when the object is destroyed). Safe to call from many threads.
class CompiledPolicy {
 public:
  virtual ~CompiledPolicy() = default;
  virtual const PolicyTables& tables() const = 0;
  virtual Engine engine() const = 0;
  // Hex SHA-256 of the policy's source text and every imported file.
  virtual const std::string& source_hash() const = 0;
  // Which job / account columns rank and preempt read (others may be null).
  virtual const std::vector<abi::JobField>& job_fields_read() const = 0;
  virtual const std::vector<abi::AccountField>& account_fields_read() const = 0;
  virtual double rank(const abi::JobTable& jobs, std::size_t job, const abi::AccountTable& accounts,
                      const abi::ClusterView& cluster) const = 0;
  virtual void rank_batch(const abi::JobTable& jobs, const abi::AccountTable& accounts, const abi::ClusterView& cluster,
                          std::size_t begin, std::size_t end, double* out) const = 0;
  // False when the policy has no `preempt` (then nothing is ever preempted).
  virtual bool has_preempt() const = 0;
  virtual bool preempt(const abi::JobTable& victims, std::size_t victim, const abi::JobTable& requesters,
                       std::size_t requester, const abi::AccountTable& accounts,
                       const abi::ClusterView& cluster) const = 0;

  // rank's terms, in the order written. Both engines evaluate them with the
  // reference interpreter: they explain a rank, they never make one.
  virtual const std::vector<PolicyPart>& rank_terms() const = 0;
  // Each term's contribution to job `job`'s rank (a negated term's negative),
  // into out[0, rank_terms().size()): added in order they give rank() exactly,
  // unless the rank is NaN (then rank() is 0).
  virtual void rank_contributions(const abi::JobTable& jobs, std::size_t job, const abi::AccountTable& accounts,
                                  const abi::ClusterView& cluster, double* out) const = 0;
  // preempt's operands (empty without a `preempt`), and each one's truth for
  // `victim` and `requester` into out[0, preempt_operands().size()).
  virtual const std::vector<PolicyPart>& preempt_operands() const = 0;
  // Whether preempt_operands() are joined by `or` (false: `and`, or a single operand).
  virtual bool preempt_operands_or() const = 0;
  virtual void preempt_operand_values(const abi::JobTable& victims, std::size_t victim, const abi::JobTable& requesters,
                                      std::size_t requester, const abi::AccountTable& accounts,
                                      const abi::ClusterView& cluster, bool* out) const = 0;
};

}  // namespace allot
