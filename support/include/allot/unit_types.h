// A policy's unit weighs GPU types by name, and a cluster has GPU types of its
// own: the one rule for when the two disagree, shared by `allot check --cluster`,
// `allot serve`, `allot slurm` and `allot replay`, so that a policy one of them
// accepts is never refused or warned about by another.
#pragma once

#include <string>
#include <vector>

namespace allot::support {

// A weight for a type the cluster lacks is harmless while every type the cluster
// has is weighted (a fleet-wide policy's `b300` on a smaller cluster weighs
// nothing); once a type of the cluster is left without a weight (it counts 1.0
// per GPU-hour), it is most likely that type misspelt (`a10O`), and is reported.
struct StrayWeight {
  std::string type;     // the weighted type the cluster does not have
  std::string nearest;  // the unweighted type of the cluster it is a plausible typo of, or ""
};

struct UnitTypeGaps {
  std::vector<std::string> unweighted;  // types of the cluster without a weight, in the cluster's order
  std::vector<StrayWeight> stray;       // in the unit's order; empty when `unweighted` is
};

UnitTypeGaps unit_type_gaps(const std::vector<std::string>& weighted, const std::vector<std::string>& cluster_types);

}  // namespace allot::support
