// `allot serve`'s Prometheus metrics (docs/SERVE.md "Metrics"): what each cycle
// took and decided, the queue and running jobs by program and class, how long
// started jobs waited, each program's share, usage, owed, delivered and debt,
// preemptions and the work they cost, policy changes and the ledger's lag.
#pragma once

#include <map>
#include <string>
#include <utility>

#include "allot/metrics.h"
#include "allot/service.h"

namespace allot::cli {

class ServeMetrics {
 public:
  ServeMetrics();
  const metrics::Registry& registry() const { return registry_; }

  // A cycle that succeeded, and the view it published.
  void cycle_done(const service::CycleReport& report, const service::View& view);
  void cycle_failed() { cycles_.with({"failed"}).inc(); }
  // A POST /policy: swapped, refused, dry_run or dry_run_refused.
  void policy_change(const service::PolicyChange& change);
  // Seconds of the service's time since usage was last charged through.
  void ledger_lag(runtime::Seconds now);

 private:
  metrics::Registry registry_;
  metrics::Histogram& cycle_seconds_;
  metrics::Family<metrics::Counter>& cycles_;
  metrics::Family<metrics::Counter>& decisions_;
  metrics::Counter& charged_;
  metrics::Family<metrics::Gauge>& pending_;
  metrics::Family<metrics::Gauge>& running_;
  metrics::Family<metrics::Histogram>& wait_;
  metrics::Family<metrics::Gauge>& share_;
  metrics::Family<metrics::Gauge>& usage_;
  metrics::Family<metrics::Gauge>& owed_;
  metrics::Family<metrics::Gauge>& delivered_;
  metrics::Family<metrics::Gauge>& debt_;
  metrics::Family<metrics::Gauge>& without_progress_;
  metrics::Family<metrics::Gauge>& stalled_;
  metrics::Family<metrics::Counter>& preemptions_;
  metrics::Counter& lost_work_;
  metrics::Family<metrics::Counter>& policy_changes_;
  metrics::Gauge& generation_;
  metrics::Gauge& last_cycle_;
  metrics::Gauge& ledger_lag_;
  std::map<std::pair<std::string, std::string>, int> seen_;  // (program, class) pairs gauged so far
  runtime::Seconds charged_through_ = 0;                     // 0 until a cycle charged
};

}  // namespace allot::cli
