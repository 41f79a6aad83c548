// Time in the runtime. The runtime owns no clock: every function that depends
// on time takes it from the caller (a real clock in a service, a virtual one in
// the simulator), so any decision can be replayed.
#pragma once

#include <cstdint>

namespace allot::runtime {

// Whole seconds since 1970-01-01T00:00:00Z.
using Seconds = std::int64_t;

}  // namespace allot::runtime
