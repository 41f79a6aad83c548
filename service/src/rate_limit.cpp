#include "rate_limit.h"

#include <algorithm>
#include <cmath>

namespace allot::service {

RateLimiter::RateLimiter(double rate, double burst, std::size_t max_keys)
    : rate_(rate), burst_(std::max(1.0, burst)), max_keys_(std::max<std::size_t>(1, max_keys)) {}

bool RateLimiter::allow(const std::string& key, Clock::time_point now, int& retry_after) {
  retry_after = 0;
  if (rate_ <= 0) return true;
  std::lock_guard lock(mutex_);
  auto found = buckets_.find(key);
  if (found == buckets_.end()) {
    if (buckets_.size() >= max_keys_) {
      buckets_.erase(ages_.back());
      ages_.pop_back();
    }
    ages_.push_front(key);
    found = buckets_.emplace(key, Bucket{burst_, now, ages_.begin()}).first;
  } else {
    ages_.splice(ages_.begin(), ages_, found->second.age);
  }
  Bucket& bucket = found->second;
  const double elapsed = std::chrono::duration<double>(now - bucket.refilled).count();
  bucket.tokens = std::min(burst_, bucket.tokens + std::max(0.0, elapsed) * rate_);
  bucket.refilled = now;
  if (bucket.tokens >= 1) {
    bucket.tokens -= 1;
    return true;
  }
  retry_after = std::max(1, static_cast<int>(std::ceil((1 - bucket.tokens) / rate_)));
  return false;
}

}  // namespace allot::service
