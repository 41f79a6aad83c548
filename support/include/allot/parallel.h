// parallel_for: independent pieces of work on a few threads, results kept by index.
#pragma once

#include <cstddef>
#include <functional>

namespace allot::support {

// Calls `work(i)` once for every i in [0, count), on up to `threads` threads (the
// caller's among them; fewer when the system gives no more), each taking the next
// index as it finishes one. Returns when every call has returned. An exception
// thrown by `work` ends no other call; the one of the lowest index is rethrown.
// `work` writes its result to slot i of a vector the caller sized, so results stay
// in index order whichever thread ran them.
void parallel_for(std::size_t count, std::size_t threads, const std::function<void(std::size_t)>& work);

}  // namespace allot::support
