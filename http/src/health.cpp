// Health (liveness, readiness) and the built-in routes over it and the metrics registry.
#include <fmt/format.h>

#include "allot/http_server.h"
#include "allot/metrics.h"

namespace allot::http {
namespace {

Response probe_answer(const Health::Verdict& verdict) {
  return Response{verdict.ok ? 200 : 503, "text/plain; charset=utf-8", verdict.text + "\n", {}};
}

}  // namespace

Health::Health(Clock::duration staleness, std::function<Clock::time_point()> now)
    : staleness_(staleness), now_(std::move(now)), last_heartbeat_(now_()) {}

void Health::heartbeat() {
  const Clock::time_point now = now_();
  std::lock_guard lock(mutex_);
  last_heartbeat_ = now;
}

void Health::mark_ready() {
  std::lock_guard lock(mutex_);
  ready_ = true;
}

void Health::mark_not_ready(std::string reason) {
  std::lock_guard lock(mutex_);
  ready_ = false;
  not_ready_reason_ = std::move(reason);
}

Health::Verdict Health::liveness() const {
  const Clock::time_point now = now_();
  std::lock_guard lock(mutex_);
  const Clock::duration age = now - last_heartbeat_;
  if (age <= staleness_) return Verdict{true, "ok"};
  using std::chrono::duration_cast;
  using Seconds = std::chrono::duration<double>;
  return Verdict{false, fmt::format("stale: the last heartbeat is {:.1f} s old (at most {:.1f} s)",
                                    duration_cast<Seconds>(age).count(), duration_cast<Seconds>(staleness_).count())};
}

Health::Verdict Health::readiness() const {
  std::lock_guard lock(mutex_);
  if (ready_) return Verdict{true, "ready"};
  return Verdict{false, "not ready: " + not_ready_reason_};
}

void serve_metrics_and_health(HttpServer& server, const metrics::Registry& registry, const Health& health) {
  server.get("/metrics", [&registry](const Request&) {
    return Response{200, std::string(metrics::kExpositionContentType), registry.exposition(), {}};
  });
  server.get("/healthz", [&health](const Request&) { return probe_answer(health.liveness()); });
  server.get("/readyz", [&health](const Request&) { return probe_answer(health.readiness()); });
}

}  // namespace allot::http
