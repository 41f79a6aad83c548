// Fair-share algorithms over an account tree with usage, selectable by a
// policy's `fairshare` and visible to rank expressions:
//   - Slurm's Fair Tree (the default): Level FS = S / U among siblings, users
//     ranked depth-first, fair-share factor = rank / number of users;
//   - Slurm's classic 2^(-U_E / S) with effective usage;
//   - Dominant Resource Fairness: the largest weighted share of any resource.
// Fair Tree and classic reproduce Slurm's own numbers (tests/runtime), using
// the same floating-point types Slurm does (long double where Slurm has it).
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "allot/account_tree.h"

namespace allot::runtime {

// Fair Tree values of one account, as `sshare -l` shows them.
struct FairTreeValues {
  double shares_norm = 0;           // S: shares / shares of the level (Slurm's NormShares)
  long double usage_raw = 0;        // own usage plus all descendants'
  long double usage_norm = 0;       // usage / the whole cluster's usage, at most 1 (NormUsage)
  long double usage_effective = 0;  // U: usage / the fair-share parent's usage
  long double level_fs = 0;         // S / U; infinity with no usage; 0 with no shares
  double fair_share = 0;            // users only: rank / user count, in (0, 1]
  std::uint32_t rank = 0;           // users only: N for the most deserving user, ties share a rank
};

// Runs Fair Tree exactly as Slurm 22.05's code does (docs/FAIRSHARE.md).
// `usage` holds each node's own usage (index = node index; for accounts it is
// normally 0). Ties follow the code: users with equal Level FS share a rank;
// tied sibling accounts are walked one after another (never merged), the later
// one's first child inheriting the tie, so it shares the last rank given out.
std::vector<FairTreeValues> fair_tree(const AccountTree& tree, std::span<const double> usage);

// Classic fair-share values of one account.
struct ClassicValues {
  double shares_norm = 0;           // S: the product of share ratios down the path
  long double usage_raw = 0;        // own usage plus all descendants'
  long double usage_norm = 0;       // usage / the whole cluster's usage, at most 1
  long double usage_effective = 0;  // U_E = U + (U_E(parent) - U) * shares / level shares
  // 2^(-U_E / S / dampening), 0 with no shares: what a job of this association
  // gets (a FairShare=parent user's jobs get its fair-share parent's figure).
  double fair_share = 0;
  // The same as `sshare -l` prints it: from U_E rounded to double first.
  double fair_share_shown = 0;
};

// Runs Slurm's classic algorithm (PriorityFlags=NO_FAIR_TREE).
std::vector<ClassicValues> classic_fair_share(const AccountTree& tree, std::span<const double> usage,
                                              double dampening = 1.0);

// An amount of each resource the fair-share algorithms know about.
struct ResourceAmounts {
  double gpus = 0;
  double cpus = 0;
  double memory_gib = 0;
};

// The resources a dominant share is taken over.
enum class Resource { gpu, cpu, memory };

// How much each resource counts in DRF (a weight of 2 makes a resource twice as dear).
struct DrfWeights {
  double gpu = 1.0;
  double cpu = 1.0;
  double memory = 1.0;
};

// Dominant Resource Fairness values of one account.
struct DominantShareValues {
  ResourceAmounts held;       // own plus all descendants'
  double dominant_share = 0;  // max over resources of weight * held / capacity
  Resource dominant = Resource::gpu;
  double share_ratio = 0;  // dominant_share / normalised share (infinite with no share); lower is more deserving
};

// Computes each account's dominant share of `capacity`. `held` is indexed by node.
std::vector<DominantShareValues> dominant_resource_shares(const AccountTree& tree,
                                                          std::span<const ResourceAmounts> held,
                                                          const ResourceAmounts& capacity, const DrfWeights& weights);

}  // namespace allot::runtime
