// Slurm's Fair Tree (src/plugins/priority/multifactor/fair_tree.c), kept
// bit-compatible: S is a double, usage and Level FS are long double, and a
// FairShare=parent account's Level FS is Slurm's NO_VAL.
#include <algorithm>
#include <cmath>
#include <limits>

#include "allot/fair_share.h"
#include "fair_share_tree.h"

namespace allot::runtime {
namespace {

// Slurm's NO_VAL (0xfffffffe) as a long double: the Level FS of FairShare=parent
// accounts and the "previous Level FS" before the first sibling.
constexpr long double kNoVal = 4294967294.0L;
constexpr long double kInfinity = std::numeric_limits<long double>::infinity();

long double level_fs_of(const AccountNode& node, double shares_norm, long double usage_effective) {
  if (node.use_parent) return node.is_leaf() ? kInfinity : kNoVal;
  if (shares_norm == 0) return 0.0L;
  return static_cast<long double>(shares_norm) / usage_effective;  // infinity when U is 0
}

// Ranks leaves depth-first in descending Level FS.
class FairTreeRanker {
 public:
  FairTreeRanker(const AccountTree& tree, const FairShareTree& fs, std::vector<FairTreeValues>& values)
      : tree_(tree),
        fs_(fs),
        values_(values),
        rank_(static_cast<std::uint32_t>(tree.leaf_count())),
        rank_without_ties_(rank_),
        leaves_(static_cast<double>(rank_)) {}

  void visit(std::vector<int> siblings, bool starts_tied);

 private:
  bool is_leaf(int node) const { return tree_.node(static_cast<std::size_t>(node)).is_leaf(); }
  long double level_fs(int node) const { return values_[static_cast<std::size_t>(node)].level_fs; }
  void sort_siblings(std::vector<int>& siblings) const;
  void rank_leaf(int node, bool tied);
  std::size_t tied_accounts_after(const std::vector<int>& siblings, std::size_t first) const;
  std::vector<int> merged_children(const std::vector<int>& siblings, std::size_t first, std::size_t last) const;

  const AccountTree& tree_;
  const FairShareTree& fs_;
  std::vector<FairTreeValues>& values_;
  std::uint32_t rank_;               // the rank the next leaf gets if tied
  std::uint32_t rank_without_ties_;  // the rank it gets otherwise
  double leaves_;
};

// Higher Level FS first; on equal Level FS, leaves before accounts.
void FairTreeRanker::sort_siblings(std::vector<int>& siblings) const {
  std::stable_sort(siblings.begin(), siblings.end(), [&](int a, int b) {
    if (level_fs(a) != level_fs(b)) return level_fs(a) > level_fs(b);
    return is_leaf(a) && !is_leaf(b);
  });
}

void FairTreeRanker::rank_leaf(int node, bool tied) {
  if (!tied) rank_ = rank_without_ties_;
  FairTreeValues& value = values_[static_cast<std::size_t>(node)];
  value.rank = rank_;
  value.fair_share = rank_ / leaves_;
  --rank_without_ties_;
}

std::size_t FairTreeRanker::tied_accounts_after(const std::vector<int>& siblings, std::size_t first) const {
  std::size_t count = 0;
  for (std::size_t i = first + 1; i < siblings.size(); ++i, ++count) {
    // Leaves sort before accounts, so no leaf after `first` can tie with it.
    if (is_leaf(siblings[i]) || level_fs(siblings[i]) != level_fs(siblings[first])) break;
  }
  return count;
}

std::vector<int> FairTreeRanker::merged_children(const std::vector<int>& siblings, std::size_t first,
                                                 std::size_t last) const {
  std::vector<int> merged;
  for (std::size_t i = first; i <= last; ++i) {
    const std::vector<int>& children = fs_.fs_children[static_cast<std::size_t>(siblings[i])];
    merged.insert(merged.end(), children.begin(), children.end());
  }
  return merged;
}

void FairTreeRanker::visit(std::vector<int> siblings, bool starts_tied) {
  sort_siblings(siblings);
  long double previous = kNoVal;
  for (std::size_t i = 0; i < siblings.size(); ++i) {
    const int node = siblings[i];
    const bool tied = (i == 0 && starts_tied) || previous == level_fs(node);
    if (is_leaf(node)) {
      rank_leaf(node, tied);
    } else {
      const std::size_t merged = tied_accounts_after(siblings, i);
      visit(merged_children(siblings, i, i + merged), tied);
      i += merged;
    }
    previous = level_fs(node);
  }
}

}  // namespace

std::vector<FairTreeValues> fair_tree(const AccountTree& tree, std::span<const double> usage) {
  const FairShareTree fs = fair_share_tree(tree);
  const std::vector<double> shares = level_normalized_shares(tree, fs);
  const std::vector<long double> usage_raw = tree.subtree_sums(usage);
  std::vector<FairTreeValues> values(tree.size());
  values[0] = FairTreeValues{1.0, usage_raw[0], 1.0L, kNoVal, 0.0, 0};
  for (std::size_t i = 1; i < tree.size(); ++i) {
    const long double parent_usage = usage_raw[static_cast<std::size_t>(fs.fs_parent[i])];
    const long double effective = parent_usage != 0 ? usage_raw[i] / parent_usage : 0.0L;
    values[i] =
        FairTreeValues{shares[i], usage_raw[i], effective, level_fs_of(tree.node(i), shares[i], effective), 0.0, 0};
  }
  FairTreeRanker ranker(tree, fs, values);
  ranker.visit(fs.fs_children[0], false);
  return values;
}

}  // namespace allot::runtime
