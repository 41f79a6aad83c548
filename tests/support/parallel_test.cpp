// parallel_for: every index once, results by index whichever thread ran it, and
// a failure reported as the lowest index's after every other call has run.
#include <catch2/catch.hpp>

#include <atomic>
#include <chrono>
#include <mutex>
#include <set>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "allot/parallel.h"

using allot::support::parallel_for;

TEST_CASE("parallel_for calls every index once and keeps results by index", "[support][parallel]") {
  for (const std::size_t threads : {std::size_t{1}, std::size_t{3}, std::size_t{64}}) {
    INFO("threads = " << threads);
    std::vector<std::size_t> squares(1000, 0);
    std::vector<std::atomic<int>> calls(1000);
    parallel_for(squares.size(), threads, [&](std::size_t i) {
      ++calls[i];
      squares[i] = i * i;
    });
    for (std::size_t i = 0; i < squares.size(); ++i) {
      CHECK(calls[i] == 1);
      CHECK(squares[i] == i * i);
    }
  }
  bool called = false;
  parallel_for(0, 4, [&](std::size_t) { called = true; });
  CHECK_FALSE(called);
}

TEST_CASE("parallel_for runs on several threads when asked", "[support][parallel]") {
  std::mutex mutex;
  std::set<std::thread::id> seen;
  std::atomic<int> waiting{0};
  // Each call waits until four are running (10 s at most): only four threads get there.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  parallel_for(4, 4, [&](std::size_t) {
    ++waiting;
    while (waiting < 4 && std::chrono::steady_clock::now() < deadline) std::this_thread::yield();
    const std::lock_guard lock(mutex);
    seen.insert(std::this_thread::get_id());
  });
  CHECK(seen.size() == 4);
  CHECK(seen.count(std::this_thread::get_id()) == 1);  // the caller's thread is one of them
}

TEST_CASE("parallel_for rethrows the lowest index's failure after every call ran", "[support][parallel]") {
  std::atomic<int> ran{0};
  const auto work = [&](std::size_t i) {
    ++ran;
    if (i == 7 || i == 3) throw std::runtime_error("index " + std::to_string(i));
  };
  CHECK_THROWS_WITH(parallel_for(10, 3, work), "index 3");
  CHECK(ran == 10);
}
