// Dominant Resource Fairness (Ghodsi et al., NSDI 2011) with resource weights:
// an account's dominant share is the largest weighted fraction of any one
// resource it holds; DRF serves the account with the smallest first.
#include <limits>

#include "allot/fair_share.h"

namespace allot::runtime {
namespace {

double fraction_of(double held, double capacity) { return capacity > 0 ? held / capacity : 0.0; }

DominantShareValues dominant_of(const ResourceAmounts& held, const ResourceAmounts& capacity,
                                const DrfWeights& weights) {
  DominantShareValues values{held, weights.gpu * fraction_of(held.gpus, capacity.gpus), Resource::gpu, 0};
  const double cpu = weights.cpu * fraction_of(held.cpus, capacity.cpus);
  const double memory = weights.memory * fraction_of(held.memory_gib, capacity.memory_gib);
  if (cpu > values.dominant_share) values = DominantShareValues{held, cpu, Resource::cpu, 0};
  if (memory > values.dominant_share) values = DominantShareValues{held, memory, Resource::memory, 0};
  return values;
}

}  // namespace

std::vector<DominantShareValues> dominant_resource_shares(const AccountTree& tree,
                                                          std::span<const ResourceAmounts> held,
                                                          const ResourceAmounts& capacity, const DrfWeights& weights) {
  std::vector<ResourceAmounts> totals(tree.size());
  for (std::size_t i = 0; i < tree.size() && i < held.size(); ++i) totals[i] = held[i];
  for (std::size_t i = tree.size(); i-- > 1;) {
    ResourceAmounts& parent = totals[static_cast<std::size_t>(tree.node(i).parent)];
    parent.gpus += totals[i].gpus;
    parent.cpus += totals[i].cpus;
    parent.memory_gib += totals[i].memory_gib;
  }
  const std::vector<double> shares = tree.normalized_shares();
  std::vector<DominantShareValues> values(tree.size());
  for (std::size_t i = 0; i < tree.size(); ++i) {
    values[i] = dominant_of(totals[i], capacity, weights);
    values[i].share_ratio =
        shares[i] > 0 ? values[i].dominant_share / shares[i] : std::numeric_limits<double>::infinity();
  }
  return values;
}

}  // namespace allot::runtime
