// Heap bytes the benchmarks allocate through operator new (std containers
// included), for the memory figures of docs/PERFORMANCE.md. Counting is off
// until a HeapWatch starts it, so other benchmarks pay one relaxed load per
// allocation and nothing else. Bytes are what malloc gives (malloc_usable_size).
#pragma once

#include <cstdint>

namespace allot::bench {

// Counts from construction to destruction: the bytes live now (allocated
// minus freed since it started; may go below zero when older blocks are
// freed) and the highest that has been. One at a time.
class HeapWatch {
 public:
  HeapWatch();
  ~HeapWatch();
  HeapWatch(const HeapWatch&) = delete;
  HeapWatch& operator=(const HeapWatch&) = delete;
  std::int64_t live() const;
  std::int64_t peak() const;
};

}  // namespace allot::bench
