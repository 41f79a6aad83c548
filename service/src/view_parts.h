// What every read model derives the same way from a cycle: each ranked job's
// rank terms for the queue, and each account's standing for the chart over
// time. One copy, for the Service and for a driver's published passes.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "allot/service.h"

namespace allot::service {

// Fills `view.terms` from its cycle's decisions (a start's or a skip's terms).
void index_terms(View& view);

// One entry of the decision feed: `record` (a JSON object) with its place
// put first: {"seq":N,"cycle":C,"at":"RFC 3339",...}.
std::string feed_entry(std::int64_t seq, std::int64_t cycle, Seconds at, const std::string& record);

// Each account's standing at `now` under `policy` on `state` (the root left out).
std::vector<Sample> standing_samples(const CompiledPolicy& policy, const runtime::ClusterState& state, Seconds now);

}  // namespace allot::service
