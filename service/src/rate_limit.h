// Token buckets by key (a bearer token, a client address): each key may make
// `rate` requests a second on average and `burst` at once. Thread-safe. At
// most `max_keys` keys are remembered; past that the least recently seen is
// forgotten (it starts again with a full bucket), so a flood of addresses
// cannot grow the table.
#pragma once

#include <chrono>
#include <cstddef>
#include <list>
#include <mutex>
#include <string>
#include <unordered_map>

namespace allot::service {

class RateLimiter {
 public:
  using Clock = std::chrono::steady_clock;

  // `rate` <= 0: no limit.
  RateLimiter(double rate, double burst, std::size_t max_keys = 10000);

  // Whether `key` may make a request at `now`; when not, `retry_after` is how
  // many whole seconds until it may.
  bool allow(const std::string& key, Clock::time_point now, int& retry_after);
  bool limited() const { return rate_ > 0; }

 private:
  struct Bucket {
    double tokens = 0;
    Clock::time_point refilled;
    std::list<std::string>::iterator age;  // its place in `ages_`
  };
  const double rate_;
  const double burst_;
  const std::size_t max_keys_;
  std::mutex mutex_;
  std::unordered_map<std::string, Bucket> buckets_;
  std::list<std::string> ages_;  // keys, most recently seen first
};

}  // namespace allot::service
