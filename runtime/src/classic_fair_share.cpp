// Slurm's classic fair-share factor (priority_multifactor.c without
// PriorityFlags=FAIR_TREE): F = 2^(-U_E / S), where effective usage U_E mixes an
// account's own normalised usage with its parent's effective usage in
// proportion to its shares among its siblings.
#include <cmath>

#include "allot/fair_share.h"
#include "fair_share_tree.h"

namespace allot::runtime {
namespace {

long double effective_usage(const AccountTree& tree, const FairShareTree& fs, const std::vector<ClassicValues>& values,
                            std::size_t node) {
  const std::size_t parent = static_cast<std::size_t>(fs.fs_parent[node]);
  const long double own = values[node].usage_norm;
  if (parent == 0) return own;  // accounts at the top: their own usage
  if (tree.node(node).use_parent) return values[parent].usage_effective;
  if (fs.level_shares[parent] == 0) return own;
  const long double share_of_level = tree.node(node).shares / static_cast<long double>(fs.level_shares[parent]);
  return own + (values[parent].usage_effective - own) * share_of_level;
}

// Slurm: pow(2.0, -((usage_efctv / shares_norm) / damp_factor)), computed in
// long double and rounded to double for pow, as C's pow does.
double factor(long double usage_effective, double shares_norm, double dampening) {
  if (shares_norm <= 0) return 0.0;
  const long double exponent = (usage_effective / shares_norm) / dampening;
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
  // Parents come before children, so a parent's effective usage is ready when a child needs it.
  for (std::size_t i = 0; i < tree.size(); ++i) {
    ClassicValues& value = values[i];
    value.shares_norm = shares[i];
    value.usage_raw = usage_raw[i];
    value.usage_norm = total != 0 ? usage_raw[i] / total : 0.0L;
    value.usage_effective = i == 0 ? value.usage_norm : effective_usage(tree, fs, values, i);
    value.fair_share = factor(value.usage_effective, value.shares_norm, dampening);
  }
  return values;
}

}  // namespace allot::runtime
