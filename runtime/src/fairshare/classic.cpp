// Slurm's classic fair-share factor (priority_multifactor.c without
// PriorityFlags=FAIR_TREE): F = 2^(-U_E / S), where effective usage U_E mixes an
// account's own normalised usage with its fair-share parent's effective usage
// in proportion to its shares among its siblings. Bit-compatible with Slurm
// 22.05 (tests/fairshare drives Slurm's own plugin on random trees).
#include <algorithm>
#include <cmath>

#include "allot/fair_share.h"
#include "fairshare/comparison_tree.h"

namespace allot::runtime {
namespace {

// _set_assoc_usage_efctv and _set_usage_efctv.
long double effective_usage(const AccountTree& tree, const FairShareTree& fs, const std::vector<ClassicValues>& values,
                            std::size_t node) {
  const std::size_t parent = static_cast<std::size_t>(fs.fs_parent[node]);
  const long double own = values[node].usage_norm;
  if (parent == 0) return own;  // below the root: their own usage, FairShare=parent or not
  if (tree.node(node).use_parent) return values[parent].usage_effective;
  // No sibling has shares: Slurm avoids the division by taking the parent's.
  if (fs.level_shares[parent] == 0) return values[parent].usage_effective;
  // Slurm: s_child / (long double) s_all_siblings, both integers.
  const long double share_of_level = tree.node(node).shares / static_cast<long double>(fs.level_shares[parent]);
  return own + (values[parent].usage_effective - own) * share_of_level;
}

// priority_p_calc_fs_factor: pow(2.0, -((usage_efctv / shares_norm) / damp_factor)),
// the exponent in long double and rounded to double for pow.
double factor(long double usage_effective, double shares_norm, double dampening) {
  if (shares_norm <= 0) return 0.0;
  const long double exponent = (usage_effective / static_cast<long double>(shares_norm)) / dampening;
  return std::pow(2.0, -static_cast<double>(exponent));
}

}  // namespace

std::vector<ClassicValues> classic_fair_share(const AccountTree& tree, std::span<const double> usage,
                                              double dampening) {
  const FairShareTree fs = fair_share_tree(tree);
  const std::vector<double> shares = tree.normalized_shares();
  const std::vector<long double> usage_raw = tree.subtree_sums(usage);
  const long double total = usage_raw[0];
  std::vector<ClassicValues> values(tree.size());
  // The root: the plugin's init sets its effective usage to 1.
  values[0] = ClassicValues{1.0, total, 1.0L, 1.0L, 0.0, 0.0};
  values[0].fair_share = values[0].fair_share_shown = factor(1.0L, 1.0, dampening);
  // Parents come before children, so a fair-share parent's effective usage is
  // ready when a child needs it.
  for (std::size_t i = 1; i < tree.size(); ++i) {
    ClassicValues& value = values[i];
    value.shares_norm = shares[i];
    value.usage_raw = usage_raw[i];
    value.usage_norm = total != 0 ? std::min(usage_raw[i] / total, 1.0L) : 0.0L;
    value.usage_effective = effective_usage(tree, fs, values, i);
    value.fair_share_shown =
        factor(static_cast<long double>(static_cast<double>(value.usage_effective)), value.shares_norm, dampening);
    value.fair_share = factor(value.usage_effective, value.shares_norm, dampening);
  }
  // _get_fairshare_priority: a FairShare=parent user's jobs use its fair-share parent.
  for (std::size_t i = 1; i < tree.size(); ++i) {
    if (tree.node(i).is_user() && tree.node(i).use_parent) {
      values[i].fair_share = values[static_cast<std::size_t>(fs.fs_parent[i])].fair_share;
    }
  }
  return values;
}

}  // namespace allot::runtime
