// The Slurm adapter's Prometheus metrics and probes (`allot slurm --metrics
// ADDR`, docs/SLURM.md "Metrics and health"): what each pass took and did,
// the ledger's lag, the policy running and its governance warnings, served
// with /healthz and /readyz on one loopback listener (allot/http_server.h).
#pragma once

#include <chrono>
#include <optional>
#include <set>
#include <string>

#include "allot/http_server.h"
#include "allot/metrics.h"
#include "allot/slurm.h"

namespace allot::cli {

class AdapterMetrics {
 public:
  // Alive while the loop beats at least once per `staleness`.
  explicit AdapterMetrics(std::chrono::seconds staleness);

  // Listens on `address` (HOST:PORT, :PORT for loopback); why it cannot, or nothing.
  std::optional<std::string> listen(const std::string& address);
  int port() const { return server_.bound_port(); }
  // The listener, to put more routes on before listen() (--serve).
  http::HttpServer& server() { return server_; }

  // The loop is alive (call often, also between passes).
  void heartbeat();
  // A pass that succeeded and what it did; `dry_run` passes write nothing to the ledger.
  void pass_done(const slurm::PassReport& report, double seconds, bool dry_run);
  // A pass that failed (nothing written to Slurm), and why.
  void pass_failed(double seconds, const std::string& why);
  // Seconds since usage was last charged through (0 right after a pass).
  void ledger_lag(slurm::Seconds now);
  // A reload: swapped (a new policy generation) or refused.
  void reload(bool swapped);
  // The passed review dates and expired exceptions of the running policy.
  void governance_warnings(std::size_t count);

  std::string exposition() const { return registry_.exposition(); }

 private:
  void progress_by_program(const slurm::PassReport& report);

  metrics::Registry registry_;
  http::Health health_;
  http::HttpServer server_;
  metrics::Histogram& pass_seconds_;
  metrics::Family<metrics::Counter>& passes_;
  metrics::Family<metrics::Counter>& writes_;
  metrics::Counter& preemptions_;
  metrics::Counter& charged_;
  metrics::Gauge& pending_;
  metrics::Gauge& running_;
  metrics::Family<metrics::Gauge>& stalled_;           // by program
  metrics::Family<metrics::Gauge>& without_progress_;  // by program
  metrics::Gauge& last_success_;
  metrics::Gauge& ledger_lag_;
  metrics::Gauge& generation_;
  metrics::Family<metrics::Counter>& reloads_;
  metrics::Gauge& governance_;
  slurm::Seconds charged_through_ = 0;  // 0 until the first pass that charged
  std::set<std::string> programs_;      // programs the progress gauges have a series for
};

}  // namespace allot::cli
