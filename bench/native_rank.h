// The large organisation policy's rank (policies/large_org.allot), written by
// hand in C++ over the same abi tables: the floor BM_RankBatch/native measures
// the generated code against.
#pragma once

#include <cstddef>

#include "allot/abi.h"

namespace allot::bench {

// Ranks jobs [begin, end) into out[i - begin]. `class_boost[c]` is the boost
// of class index c (the policy's `class_boost` match as a lookup table).
void native_rank_batch(const abi::JobTable& jobs, const abi::AccountTable& accounts, std::size_t begin, std::size_t end,
                       const double* class_boost, double* out);

}  // namespace allot::bench
