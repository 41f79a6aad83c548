// Slurm's Fair Tree (src/plugins/priority/multifactor/fair_tree.c, 22.05),
// kept bit-compatible: S is a double, usage and Level FS are long double, and a
// FairShare=parent account's Level FS is Slurm's NO_VAL. docs/FAIRSHARE.md
// says where this code and Slurm's documentation part ways (we follow the code).
#include <algorithm>
#include <cmath>
#include <limits>

#include "allot/fair_share.h"
#include "fairshare/comparison_tree.h"

namespace allot::runtime {
namespace {

// Slurm's NO_VAL (0xfffffffe) as a long double: the Level FS of FairShare=parent
// accounts and of the root, and the "previous Level FS" before the first sibling.
constexpr long double kNoVal = 4294967294.0L;
constexpr long double kInfinity = std::numeric_limits<long double>::infinity();

// _calc_assoc_fs: FairShare=parent users rank first among their siblings,
// FairShare=parent accounts take no Level FS; no shares ranks last; no usage first.
long double level_fs_of(const AccountNode& node, double shares_norm, long double usage_effective) {
  if (node.use_parent) return node.is_user() ? kInfinity : kNoVal;
  if (shares_norm == 0) return 0.0L;
  return static_cast<long double>(shares_norm) / usage_effective;  // infinity when U is 0
}

// _calc_tree_fs: ranks users depth-first in descending Level FS.
class FairTreeRanker {
 public:
  FairTreeRanker(const AccountTree& tree, const FairShareTree& fs, std::vector<FairTreeValues>& values)
      : tree_(tree),
        fs_(fs),
        values_(values),
        rank_(static_cast<std::uint32_t>(tree.user_count())),
        rank_without_ties_(rank_),
        users_(static_cast<double>(rank_)) {}

  // Walks one set of siblings; `account_tied` is the tie flag of the account
  // whose children they are. Recursion depth is the tree's depth.
  void visit(std::vector<int> siblings, bool account_tied);

 private:
  bool is_user(int node) const { return tree_.node(static_cast<std::size_t>(node)).is_user(); }
  long double level_fs(int node) const { return values_[static_cast<std::size_t>(node)].level_fs; }

  const AccountTree& tree_;
  const FairShareTree& fs_;
  std::vector<FairTreeValues>& values_;
  std::uint32_t rank_;               // Slurm's `rank`: the last rank given out, kept by ties
  std::uint32_t rank_without_ties_;  // Slurm's `rnt`: the rank the next user gets when not tied
  double users_;                     // g_user_assoc_count
};

void FairTreeRanker::visit(std::vector<int> siblings, bool account_tied) {
  // _cmp_level_fs through glibc's qsort (a merge sort, so stable): higher Level
  // FS first; on equal Level FS users before accounts; otherwise list order.
  std::stable_sort(siblings.begin(), siblings.end(), [&](int a, int b) {
    if (level_fs(a) != level_fs(b)) return level_fs(a) > level_fs(b);
    return is_user(a) && !is_user(b);
  });
  long double previous = kNoVal;
  for (std::size_t i = 0; i < siblings.size(); ++i) {
    const int node = siblings[i];
    // The first sibling inherits its parent's tie; the others tie with the one before.
    const bool tied = i == 0 && account_tied ? true : previous == level_fs(node);
    if (is_user(node)) {
      if (!tied) rank_ = rank_without_ties_;
      FairTreeValues& value = values_[static_cast<std::size_t>(node)];
      value.rank = rank_;
      value.fair_share = rank_ / users_;
      --rank_without_ties_;
    } else {
      // Slurm's _count_tied_accounts counts the *users* after this account
      // with its Level FS, and sorting put every such user before it: the
      // count is always 0, so tied accounts are never merged (whatever
      // fair_tree.shtml says); the next one is walked after this one, tied.
      visit(fs_.fs_children[static_cast<std::size_t>(node)], tied);
    }
    previous = level_fs(node);
  }
}

}  // namespace

std::vector<FairTreeValues> fair_tree(const AccountTree& tree, std::span<const double> usage) {
  const FairShareTree fs = fair_share_tree(tree);
  const std::vector<double> shares = level_normalized_shares(tree, fs);
  const std::vector<long double> usage_raw = tree.subtree_sums(usage);
  const long double total = usage_raw[0];
  std::vector<FairTreeValues> values(tree.size());
  // The root: sshare shows NormShares 0 and EffectvUsage 1 (set by the plugin's
  // init); Slurm leaves NO_VAL in its NormUsage (sshare prints none), we say 1.
  values[0] = FairTreeValues{0.0, usage_raw[0], 1.0L, 1.0L, kNoVal, 0.0, 0};
  for (std::size_t i = 1; i < tree.size(); ++i) {
    const long double parent_usage = usage_raw[static_cast<std::size_t>(fs.fs_parent[i])];
    const long double effective = parent_usage != 0 ? usage_raw[i] / parent_usage : 0.0L;
    // set_assoc_usage_norm: usage over the root's, at most 1.
    const long double norm = total != 0 ? std::min(usage_raw[i] / total, 1.0L) : 0.0L;
    values[i] = FairTreeValues{
        shares[i], usage_raw[i], norm, effective, level_fs_of(tree.node(i), shares[i], effective), 0.0, 0};
  }
  FairTreeRanker ranker(tree, fs, values);
  ranker.visit(fs.fs_children[0], false);
  return values;
}

}  // namespace allot::runtime
