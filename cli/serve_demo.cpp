#include "serve_demo.h"

#include <algorithm>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace allot::cli {

DemoExecutor::DemoExecutor(simulator::Workload workload, std::vector<int> classes, const PolicyTables& tables)
    : workload_(std::move(workload)), classes_(std::move(classes)), tables_(tables) {
  for (std::size_t i = 0; i < workload_.jobs.size(); ++i) index_.emplace(workload_.jobs[i].id, i);
}

std::string DemoExecutor::step(service::Service& service, runtime::Seconds now) {
  std::string problems;
  const auto note = [&](const std::string& what, const service::ApiError& error) {
    if (problems.empty()) problems = fmt::format("{}: {}", what, error.message);
  };
  // Arrivals.
  for (; next_ < workload_.jobs.size() && workload_.jobs[next_].submitted <= now; ++next_) {
    const simulator::WorkloadJob& job = workload_.jobs[next_];
    runtime::JobRequest request =
        simulator::workload_request(job, tables_.classes[static_cast<std::size_t>(classes_[next_])].name);
    auto submitted = service.submit(std::move(request), now);
    if (!submitted && submitted.error().status != 409) note("submitting " + job.id, submitted.error());
  }
  // Preempted jobs back in the queue keep the work up to their last checkpoint.
  auto feed = service.decisions_since(feed_, 1000);
  if (feed) {
    for (const std::string& entry : *feed) {
      const nlohmann::json json = nlohmann::json::parse(entry, nullptr, false);
      if (json.is_discarded()) continue;
      feed_ = std::max<std::int64_t>(feed_, json.value("seq", std::int64_t{0}));
      if (json.value("kind", "") != "requeue") continue;
      const std::string id = json.value("job", "");
      const auto run = runs_.find(id);
      if (run != runs_.end() && run->second.resumable) done_[id] += run->second.last_checkpoint - run->second.started;
      runs_.erase(id);
    }
  }
  // Running jobs: checkpoints on schedule, and a finish when the work is done.
  auto running = service.jobs("", "running", 100000);
  if (!running) return "reading the running jobs: " + running.error();
  for (const service::JobRecord& record : *running) {
    if (!record.run) continue;
    const runtime::RunningJob& job = *record.run;
    const auto found = index_.find(job.request.id);
    if (found == index_.end()) continue;  // submitted by someone else: theirs to report
    const runtime::Seconds work = workload_.jobs[found->second].work;
    const runtime::Seconds left = std::max<runtime::Seconds>(0, work - done_[job.request.id]);
    runs_[job.request.id] = Run{job.started, job.last_checkpoint, job.contract.resumable};
    if (job.started + left <= now) {
      service::Event event{"finished", job.request.id, "", job.started + left};
      if (auto error = service.record_event(event, now)) {
        note("finishing " + job.request.id, *error);
      } else {
        ++finished_;
        runs_.erase(job.request.id);
        done_.erase(job.request.id);
      }
      continue;
    }
    const runtime::Seconds every = job.contract.checkpoint_every;
    if (every > 0 && job.contract.resumable) {
      const runtime::Seconds latest = job.started + (now - job.started) / every * every;
      if (latest > job.last_checkpoint) {
        if (auto error = service.record_event(service::Event{"checkpointed", job.request.id, "", latest}, now)) {
          note("checkpointing " + job.request.id, *error);
        } else {
          runs_[job.request.id].last_checkpoint = latest;
        }
      }
    }
  }
  return problems;
}

}  // namespace allot::cli
