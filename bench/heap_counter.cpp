// HeapWatch (heap_counter.h): the benchmark binary's own operator new and
// delete, over malloc and free, counting while a watch runs.
#include "heap_counter.h"

#include <malloc.h>

#include <atomic>
#include <cstdlib>
#include <new>

namespace {

std::atomic<bool> counting{false};
std::atomic<std::int64_t> live_bytes{0};
std::atomic<std::int64_t> peak_bytes{0};

void count_allocated(void* block) {
  const auto size = static_cast<std::int64_t>(malloc_usable_size(block));
  const std::int64_t now = live_bytes.fetch_add(size, std::memory_order_relaxed) + size;
  std::int64_t peak = peak_bytes.load(std::memory_order_relaxed);
  while (now > peak && !peak_bytes.compare_exchange_weak(peak, now, std::memory_order_relaxed)) {
  }
}

void* allocate(std::size_t size) {
  void* block = std::malloc(size == 0 ? 1 : size);
  if (block == nullptr) throw std::bad_alloc();
  if (counting.load(std::memory_order_relaxed)) count_allocated(block);
  return block;
}

void release(void* block) noexcept {
  if (block == nullptr) return;
  if (counting.load(std::memory_order_relaxed)) {
    live_bytes.fetch_sub(static_cast<std::int64_t>(malloc_usable_size(block)), std::memory_order_relaxed);
  }
  std::free(block);
}

}  // namespace

void* operator new(std::size_t size) { return allocate(size); }
void* operator new[](std::size_t size) { return allocate(size); }
void operator delete(void* block) noexcept { release(block); }
void operator delete[](void* block) noexcept { release(block); }
void operator delete(void* block, std::size_t) noexcept { release(block); }
void operator delete[](void* block, std::size_t) noexcept { release(block); }

namespace allot::bench {

HeapWatch::HeapWatch() {
  live_bytes.store(0);
  peak_bytes.store(0);
  counting.store(true);
}
HeapWatch::~HeapWatch() { counting.store(false); }
std::int64_t HeapWatch::live() const { return live_bytes.load(); }
std::int64_t HeapWatch::peak() const { return peak_bytes.load(); }

}  // namespace allot::bench
