#include "allot/parallel.h"

#include <algorithm>
#include <atomic>
#include <exception>
#include <system_error>
#include <thread>
#include <vector>

namespace allot::support {

void parallel_for(std::size_t count, std::size_t threads, const std::function<void(std::size_t)>& work) {
  std::vector<std::exception_ptr> failures(count);
  std::atomic<std::size_t> next{0};
  const auto take = [&] {
    for (std::size_t index; (index = next.fetch_add(1)) < count;) {
      try {
        work(index);
      } catch (...) {
        failures[index] = std::current_exception();
      }
    }
  };
  threads = std::min(std::max<std::size_t>(threads, 1), count);
  std::vector<std::thread> workers;
  for (std::size_t i = 1; i < threads; ++i) {
    try {
      workers.emplace_back(take);
    } catch (const std::system_error&) {  // no more threads to be had: fewer do the work
      break;
    }
  }
  take();
  for (std::thread& worker : workers) worker.join();
  for (const std::exception_ptr& failure : failures) {
    if (failure) std::rethrow_exception(failure);
  }
}

}  // namespace allot::support
