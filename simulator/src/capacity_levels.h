// How much of the cluster is held, free and fragmented at one moment.
// Fragmented capacity is free GPUs that no waiting job could use: the node
// has too few free GPUs for any waiting shape, the wrong GPU type, or too few
// such nodes exist for a multi-node job (eight free GPUs on four hosts are not
// eight contiguous GPUs).
#pragma once

#include "allot/cycle.h"
#include "timeline_builder.h"

namespace allot::simulator {

// Capacity (up and draining nodes), used, free (up, not held, not reserved),
// fragmented GPUs and waiting jobs of `state`.
ClusterLevels cluster_levels(const runtime::ClusterState& state);

}  // namespace allot::simulator
