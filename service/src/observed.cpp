// The read model of a driver whose scheduler owns the jobs (allot slurm
// --serve). Each pass is turned into everything the reads need (the view, the
// jobs by id, the queue's order) off the lock, then swapped in under it, so a
// reader waits at most for a pointer swap, never for a pass.
#include <algorithm>
#include <charconv>
#include <deque>
#include <unordered_map>

#include <fmt/format.h>

#include "allot/service.h"
#include "job_json.h"
#include "view_parts.h"

namespace allot::service {
namespace {

// Slurm's job ids are numbers that grow with submission: newest first by id.
std::int64_t numeric_id(const std::string& id) {
  std::int64_t value = 0;
  const auto [end, error] = std::from_chars(id.data(), id.data() + id.size(), value);
  return error == std::errc() && end == id.data() + id.size() ? value : 0;
}

}  // namespace

// What one pass gave the readers, replaced whole by the next.
struct PassState {
  std::shared_ptr<const View> view;
  std::unordered_map<std::string, JobRecord> jobs;  // waiting and running, by id
  std::vector<std::string> order;                   // waiting: ranked first, in rank order, then the rest
  std::unordered_map<std::string, std::pair<std::size_t, double>> ranked;  // id: position, rank
};

struct ObservedCluster::Impl {
  std::string driver;
  Limits limits;
  mutable std::mutex mutex;
  std::shared_ptr<const PassState> pass;
  runtime::PolicySlot::Running running;
  std::string source;
  std::deque<std::string> feed;  // entries, oldest first
  std::int64_t first_seq = 1;    // the seq of feed.front()
  std::deque<Sample> samples;    // oldest first
  std::optional<Seconds> last_sample;
  std::deque<PolicyRecord> history;  // newest first
  std::uint64_t passes = 0;

  std::shared_ptr<const PassState> current() const {
    std::lock_guard lock(mutex);
    return pass;
  }
};

ObservedCluster::ObservedCluster(std::string driver, runtime::PolicySlot::Running policy, std::string source,
                                 Seconds now, Limits limits)
    : impl_(std::make_unique<Impl>()) {
  Impl& s = *impl_;
  s.driver = std::move(driver);
  s.limits = limits;
  auto view = std::make_shared<View>();
  view->at = now;
  view->policy = policy.policy;
  view->generation = policy.generation;
  auto pass = std::make_shared<PassState>();
  pass->view = std::move(view);
  s.pass = std::move(pass);
  s.history.push_front(PolicyRecord{
      static_cast<std::int64_t>(policy.generation), now, policy.policy->source_hash(), "started",
      fmt::format("policy `{}` {} at start", policy.policy->tables().name, policy.policy->source_hash().substr(0, 12)),
      source});
  s.running = std::move(policy);
  s.source = std::move(source);
}

ObservedCluster::~ObservedCluster() = default;

void ObservedCluster::publish(ObservedPass observed) {
  Impl& s = *impl_;
  std::uint64_t number = 0;
  bool sample = false;
  {
    std::lock_guard lock(s.mutex);
    number = s.passes + 1;
    sample = !s.last_sample || observed.at - *s.last_sample >= s.limits.sample_every;
  }
  // Everything the readers need, built without the lock.
  auto pass = std::make_shared<PassState>();
  for (const runtime::JobRequest& job : observed.state.pending) {
    JobRecord record;
    record.seq = numeric_id(job.id);
    record.request = job;
    pass->jobs.emplace(job.id, std::move(record));
  }
  for (const runtime::RunningJob& job : observed.state.running) {
    JobRecord record;
    record.seq = numeric_id(job.request.id);
    record.phase = JobPhase::running;
    record.request = job.request;
    record.run = job;
    record.confirmed = true;  // the scheduler runs it
    pass->jobs.emplace(job.request.id, std::move(record));
  }
  const runtime::CycleResult& result = observed.result;
  for (std::size_t i = 0; i < result.ranked_job_ids.size() && i < result.ranks.size(); ++i) {
    const std::string& id = result.ranked_job_ids[i];
    const auto found = pass->jobs.find(id);
    if (found == pass->jobs.end() || found->second.phase != JobPhase::pending) continue;
    if (pass->ranked.emplace(id, std::make_pair(pass->order.size(), result.ranks[i])).second) pass->order.push_back(id);
  }
  for (const runtime::JobRequest& job : observed.state.pending) {
    if (!pass->ranked.count(job.id)) pass->order.push_back(job.id);
  }
  std::vector<Sample> standing;
  if (sample) standing = standing_samples(*observed.policy.policy, observed.state, observed.at);
  auto view = std::make_shared<View>();
  view->cycle = number;
  view->at = observed.at;
  view->state = std::move(observed.state);
  view->result = std::move(observed.result);
  view->policy = observed.policy.policy;
  view->generation = observed.policy.generation;
  view->duration_seconds = observed.duration_seconds;
  index_terms(*view);
  pass->view = std::move(view);

  std::lock_guard lock(s.mutex);
  s.passes = number;
  for (const std::string& record : observed.decisions) {
    s.feed.push_back(feed_entry(s.first_seq + static_cast<std::int64_t>(s.feed.size()),
                                static_cast<std::int64_t>(number), observed.at, record));
  }
  while (s.feed.size() > s.limits.feed) {
    s.feed.pop_front();
    ++s.first_seq;
  }
  if (sample) {
    s.samples.insert(s.samples.end(), standing.begin(), standing.end());
    s.last_sample = observed.at;
    while (!s.samples.empty() && s.samples.front().at < observed.at - s.limits.keep_samples) s.samples.pop_front();
  }
  s.pass = std::move(pass);
}

void ObservedCluster::record_policy(PolicyRecord record, std::shared_ptr<const CompiledPolicy> policy) {
  Impl& s = *impl_;
  std::lock_guard lock(s.mutex);
  if (policy) {
    s.running = {std::move(policy), static_cast<std::uint64_t>(record.generation)};
    s.source = record.source;
  }
  s.history.push_front(std::move(record));
  while (s.history.size() > s.limits.policy_history) s.history.pop_back();
}

std::string ObservedCluster::driver() const { return impl_->driver; }

std::shared_ptr<const View> ObservedCluster::view() const { return impl_->current()->view; }

QueuePage ObservedCluster::queue(std::size_t offset, std::size_t limit) const {
  const std::shared_ptr<const PassState> pass = impl_->current();
  QueuePage page;
  page.cycle = pass->view->cycle;
  page.total = pass->order.size();
  for (std::size_t index = offset; index < pass->order.size() && page.jobs.size() < limit; ++index) {
    const std::string& id = pass->order[index];
    const JobRecord& record = pass->jobs.at(id);
    const auto ranked = pass->ranked.find(id);
    if (ranked == pass->ranked.end()) {
      page.jobs.push_back({record.request, std::nullopt, std::nullopt});
    } else {
      page.jobs.push_back({record.request, ranked->second.first, ranked->second.second});
    }
  }
  if (offset + page.jobs.size() < pass->order.size()) page.next = offset + page.jobs.size();
  return page;
}

Expected<JobRecord, ApiError> ObservedCluster::job(const std::string& id) const {
  const std::shared_ptr<const PassState> pass = impl_->current();
  if (const auto found = pass->jobs.find(id); found != pass->jobs.end()) return found->second;
  std::vector<std::string> ids;
  ids.reserve(pass->jobs.size());
  for (const auto& entry : pass->jobs) ids.push_back(entry.first);
  return unexpected(ApiError{404,
                             fmt::format("no job `{}` was waiting or running at the last pass (the {} scheduler "
                                         "keeps the jobs that ended)",
                                         id, impl_->driver),
                             "", did_you_mean(id, ids)});
}

Expected<std::vector<JobRecord>, std::string> ObservedCluster::jobs(const std::string& account,
                                                                    const std::string& phase, std::size_t limit) const {
  const std::shared_ptr<const PassState> pass = impl_->current();
  std::vector<const JobRecord*> found;
  for (const auto& [id, record] : pass->jobs) {
    if (!account.empty() && record.request.account != account) continue;
    if (!phase.empty() && phase != job_phase_name(record.phase)) continue;
    found.push_back(&record);
  }
  const auto newest_first = [](const JobRecord* a, const JobRecord* b) {
    return a->seq != b->seq ? a->seq > b->seq : a->request.id > b->request.id;
  };
  const std::size_t kept = std::min(limit, found.size());
  std::partial_sort(found.begin(), found.begin() + static_cast<std::ptrdiff_t>(kept), found.end(), newest_first);
  std::vector<JobRecord> jobs;
  jobs.reserve(kept);
  for (std::size_t i = 0; i < kept; ++i) jobs.push_back(*found[i]);
  return jobs;
}

Expected<std::vector<std::string>, std::string> ObservedCluster::decisions_since(std::int64_t since,
                                                                                 std::size_t limit) const {
  const Impl& s = *impl_;
  std::lock_guard lock(s.mutex);
  std::vector<std::string> entries;
  if (since >= s.first_seq + static_cast<std::int64_t>(s.feed.size())) return entries;  // nothing after it yet
  const std::int64_t first = std::max(since + 1, s.first_seq);
  for (auto index = static_cast<std::size_t>(first - s.first_seq); index < s.feed.size() && entries.size() < limit;
       ++index) {
    entries.push_back(s.feed[index]);
  }
  return entries;
}

Expected<std::vector<std::string>, std::string> ObservedCluster::decisions_tail(std::size_t count) const {
  const Impl& s = *impl_;
  std::lock_guard lock(s.mutex);
  const std::size_t from = s.feed.size() > count ? s.feed.size() - count : 0;
  return std::vector<std::string>(s.feed.begin() + static_cast<std::ptrdiff_t>(from), s.feed.end());
}

Expected<std::vector<Sample>, std::string> ObservedCluster::samples(Seconds since, std::size_t limit) const {
  const Impl& s = *impl_;
  std::lock_guard lock(s.mutex);
  // The newest `limit` at or after `since`, oldest first (as the Service's store answers).
  const auto first = std::find_if(s.samples.begin(), s.samples.end(), [&](const Sample& x) { return x.at >= since; });
  const auto available = static_cast<std::size_t>(s.samples.end() - first);
  return std::vector<Sample>(first + static_cast<std::ptrdiff_t>(available > limit ? available - limit : 0),
                             s.samples.end());
}

Expected<std::vector<PolicyRecord>, std::string> ObservedCluster::policy_history(std::size_t limit) const {
  const Impl& s = *impl_;
  std::lock_guard lock(s.mutex);
  return std::vector<PolicyRecord>(s.history.begin(),
                                   s.history.begin() + static_cast<std::ptrdiff_t>(std::min(limit, s.history.size())));
}

runtime::PolicySlot::Running ObservedCluster::running_policy() const {
  std::lock_guard lock(impl_->mutex);
  return impl_->running;
}

std::string ObservedCluster::policy_source() const {
  std::lock_guard lock(impl_->mutex);
  return impl_->source;
}

}  // namespace allot::service
