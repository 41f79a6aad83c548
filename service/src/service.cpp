// The Service: the live state (jobs by id, node states, reservations), the
// store it is rebuilt from, the usage ledger and the entitlement book, and the
// cycle that turns them into decisions. Every write commits to the store
// before memory changes, under one mutex; the cycle publishes a View that
// readers use without the mutex.
//
// Job records are immutable once in the live map (a change replaces the
// record), and every change is also written to a journal. The cycle keeps its
// own map of the records, brought up to date from the journal, so it holds
// the mutex for what changed since the last cycle, not for the whole queue:
// readers of a page of the queue are never held up by its length.
#include <algorithm>
#include <charconv>
#include <chrono>
#include <condition_variable>
#include <limits>
#include <map>
#include <memory>
#include <set>
#include <thread>
#include <unordered_map>
#include <unordered_set>
#include <utility>

#include <fmt/format.h>

#include "allot/account_columns.h"
#include "allot/accounting.h"
#include "allot/audit.h"
#include "allot/audit_json.h"
#include "allot/contracts.h"
#include "allot/dates.h"
#include "allot/duration.h"
#include "allot/service.h"
#include "allot/share_report.h"
#include "job_json.h"
#include "store.h"
#include "view_parts.h"

namespace allot::service {
namespace {

using runtime::Charge;
using runtime::ClusterState;
using runtime::JobRequest;
using runtime::RunningJob;
using RecordPtr = std::shared_ptr<const JobRecord>;

// How long a cycle waits for readers to let go of the view it replaced, so
// that it frees the view itself.
constexpr auto kRetiredViewWait = std::chrono::milliseconds(100);

ApiError server_error(const std::string& what, const std::string& reason) {
  return ApiError{503, fmt::format("{} was not stored: {}", what, reason), "", ""};
}

runtime::ResourceUse use_of(const RunningJob& job, const runtime::Inventory& inventory) {
  const double nodes = static_cast<double>(std::max<std::size_t>(job.nodes.size(), 1));
  std::string type =
      job.nodes.empty() ? job.request.gpu_type : inventory.gpu_type_name(static_cast<std::size_t>(job.nodes.front()));
  return runtime::ResourceUse{std::move(type), nodes * job.request.gpus_per_node, nodes * job.request.cpus_per_node,
                              nodes * job.request.memory_gib_per_node};
}

std::optional<runtime::NodeState> node_state_of(std::string_view name) {
  for (runtime::NodeState state : {runtime::NodeState::up, runtime::NodeState::drain, runtime::NodeState::down}) {
    if (name == runtime::node_state_name(state)) return state;
  }
  return std::nullopt;
}

Json reservation_json(const runtime::Reservation& reservation) {
  return Json{{"job", reservation.job_id},
              {"nodes", reservation.nodes},
              {"until", reservation.until},
              {"gpus_per_node", reservation.gpus_per_node},
              {"cpus_per_node", reservation.cpus_per_node},
              {"memory_gib_per_node", reservation.memory_gib_per_node}};
}

std::vector<runtime::Reservation> reservations_from(const std::string& text, std::size_t node_count) {
  std::vector<runtime::Reservation> reservations;
  const nlohmann::json json = nlohmann::json::parse(text, nullptr, false);
  if (!json.is_array()) return reservations;
  try {
    for (const auto& item : json) {
      runtime::Reservation reservation{
          item.at("job").get<std::string>(),      item.at("nodes").get<std::vector<int>>(),
          item.at("until").get<Seconds>(),        item.at("gpus_per_node").get<int>(),
          item.at("cpus_per_node").get<double>(), item.at("memory_gib_per_node").get<double>()};
      const bool valid = std::all_of(reservation.nodes.begin(), reservation.nodes.end(), [&](int node) {
        return node >= 0 && static_cast<std::size_t>(node) < node_count;
      });
      if (valid) reservations.push_back(std::move(reservation));
    }
  } catch (const nlohmann::json::exception&) {
    return {};  // reservations are a cycle's memo: the next cycle makes new ones
  }
  return reservations;
}

}  // namespace

const char* job_phase_name(JobPhase phase) {
  switch (phase) {
    case JobPhase::pending:
      return "pending";
    case JobPhase::running:
      return "running";
    case JobPhase::finished:
      return "finished";
    case JobPhase::failed:
      return "failed";
    case JobPhase::cancelled:
      return "cancelled";
  }
  return "pending";
}

struct Service::Impl {
  Impl(ServiceOptions service_options, std::shared_ptr<const CompiledPolicy> policy, std::string source)
      : options(std::move(service_options)), slot(std::move(policy)), policy_source(std::move(source)) {}

  ServiceOptions options;
  runtime::PolicySlot slot;
  std::string policy_source;
  std::unique_ptr<Store> store;

  // Lock order: cycle_mutex, then mutex, then ledger_mutex (each may be taken alone).
  std::mutex cycle_mutex;           // one cycle at a time; guards book, book_policy, owed_hours and last_sample
  mutable std::mutex ledger_mutex;  // guards `ledger` (charged by cycles, cancellations and ends)
  mutable std::mutex
      mutex;  // guards the live state below (not `ledger`, `book`, `book_policy`, `owed_hours`, `last_sample`)
  runtime::Inventory inventory;
  std::unordered_map<std::string, RecordPtr> live;  // pending and running jobs by id
  std::map<std::int64_t, std::string> by_seq;       // the same, in submission order
  // Every change to `live` since the last cycle took it: a job's number and
  // its new record, or null when it left. Past `live.size()` entries (no
  // cycle for a long while) it is dropped, and the next cycle copies `live`.
  std::vector<std::pair<std::int64_t, RecordPtr>> journal;
  bool journal_lost = true;                   // the cycle's copy must be made from `live`
  std::int64_t last_seq = 0;                  // the last submission number handed out
  std::unordered_set<std::string> known_ids;  // every id ever committed: ids are never reused
  std::unordered_set<std::string> inflight;   // ids of submissions waiting for their commit
  std::size_t pending_count = 0;              // live jobs waiting
  std::vector<std::string> fresh;             // submitted since the last cycle, in commit order

  // Group commit (commit_grouped): submissions that arrive while one commit
  // runs are committed together by the next, so a commit's fsync is shared.
  struct Waiter {
    const Write* write = nullptr;
    std::function<void()> apply;  // run under `mutex` once committed
    std::optional<std::string> error;
    bool done = false;
  };
  std::mutex commit_mutex;  // guards the three below; never held while taking `mutex`
  std::condition_variable commit_done;
  std::vector<Waiter*> commit_queue;
  bool committing = false;
  std::optional<std::string> commit_grouped(const Write& write, std::function<void()> apply);
  std::vector<runtime::Reservation> reservations;
  std::optional<Seconds> last_cycle;
  std::optional<Seconds> last_sample;
  std::uint64_t cycles = 0;
  std::unique_ptr<runtime::DurableLedger> ledger;
  std::optional<runtime::EntitlementBook> book;
  // What cycles reuse (the account tree and fair-share values while the usage
  // and shares stand, the memory of the last retired view's decisions); guarded
  // by cycle_mutex.
  runtime::CycleCache cycle_cache;
  const CompiledPolicy* book_policy = nullptr;  // the policy `book` was made for
  runtime::DebtHours owed_hours;
  std::vector<std::string> order;                                          // the last cycle's ranking, still pending
  std::unordered_map<std::string, std::pair<std::size_t, double>> ranked;  // id -> (position, rank)
  // The cycle's copy of `live` by number (guarded by cycle_mutex).
  std::map<std::int64_t, RecordPtr> cycle_jobs;
  // Running jobs stalled at the last cycle (cycle_mutex; serve_meta `stalled`).
  std::set<std::string> stalled;

  mutable std::mutex view_mutex;
  std::shared_ptr<const View> view;

  std::optional<std::string> load();
  std::optional<std::string> open_ledger(const CompiledPolicy& policy);
  runtime::EntitlementBook* entitlement_book(const CompiledPolicy& policy);
  ClusterState live_state(Seconds now) const;
  // Writes of `live` (under `mutex`), each noted in the journal.
  void put(const std::string& id, JobRecord record);
  void forget(const std::string& id);
  void note(std::int64_t seq, RecordPtr record);
  // Brings `cycle_jobs` up to date (under cycle_mutex; takes `mutex` for the journal only).
  ClusterState cycle_state(Seconds& now);
  std::string suggestion(const std::string& id) const;
  Expected<double, std::string> charge(const std::vector<const RunningJob*>& jobs, Seconds until);
  StoredJob stored(const std::string& id, const JobRecord& record) const {
    return StoredJob{id, record.seq, job_phase_name(record.phase), record_text(record, inventory)};
  }
};

void Service::Impl::note(std::int64_t seq, RecordPtr record) {
  if (journal_lost) return;
  if (journal.size() > live.size() + 1024) {
    journal.clear();
    journal.shrink_to_fit();
    journal_lost = true;
    return;
  }
  journal.emplace_back(seq, std::move(record));
}

void Service::Impl::put(const std::string& id, JobRecord record) {
  auto shared = std::make_shared<const JobRecord>(std::move(record));
  const auto [place, added] = live.try_emplace(id, shared);
  if (added) {
    by_seq.emplace(shared->seq, id);
  } else {
    pending_count -= place->second->phase == JobPhase::pending;
    place->second = shared;
  }
  pending_count += shared->phase == JobPhase::pending;
  const std::int64_t seq = shared->seq;
  note(seq, std::move(shared));
}

void Service::Impl::forget(const std::string& id) {
  const auto found = live.find(id);
  if (found == live.end()) return;
  const std::int64_t seq = found->second->seq;
  pending_count -= found->second->phase == JobPhase::pending;
  by_seq.erase(seq);
  live.erase(found);
  note(seq, nullptr);
}

std::optional<std::string> Service::Impl::load() {
  auto nodes = store->nodes();
  if (!nodes) return nodes.error();
  for (const auto& [name, state_name] : *nodes) {
    const auto node = inventory.find_node(name);
    const auto state = node_state_of(state_name);
    if (node && state) inventory.nodes[*node].state = *state;
  }
  auto jobs = store->live_jobs();
  if (!jobs) return jobs.error();
  for (const StoredJob& row : *jobs) {
    auto record = record_from_text(row.record, row.seq, inventory);
    if (!record) return fmt::format("job `{}` in the database: {}", row.id, record.error());
    put(row.id, std::move(*record));
  }
  auto seq = store->last_job_seq();
  if (!seq) return seq.error();
  last_seq = *seq;
  auto ids = store->job_ids(std::numeric_limits<std::int64_t>::max());
  if (!ids) return ids.error();
  known_ids.insert(ids->begin(), ids->end());
  auto saved = store->meta("reservations");
  if (!saved) return saved.error();
  if (*saved) reservations = reservations_from(**saved, inventory.nodes.size());
  auto cycle = store->meta("last_cycle");
  if (!cycle) return cycle.error();
  if (*cycle) last_cycle = std::stoll(**cycle);
  auto sampled = store->meta("last_sample");
  if (!sampled) return sampled.error();
  if (*sampled) last_sample = std::stoll(**sampled);
  auto count = store->meta("cycles");
  if (!count) return count.error();
  if (*count) cycles = std::stoull(**count);
  auto stalled_ids = store->meta("stalled");
  if (!stalled_ids) return stalled_ids.error();
  if (*stalled_ids) {
    const Json ids = Json::parse(**stalled_ids, nullptr, false);
    if (!ids.is_array()) return std::string("serve_meta `stalled` is not a JSON array");
    for (const Json& id : ids) {
      if (id.is_string()) stalled.insert(id.get<std::string>());
    }
  }
  auto owed = store->owed_hours();
  if (!owed) return owed.error();
  owed_hours = std::move(*owed);
  return std::nullopt;
}

std::optional<std::string> Service::Impl::commit_grouped(const Write& write, std::function<void()> apply) {
  Waiter me{&write, std::move(apply), std::nullopt, false};
  std::unique_lock lock(commit_mutex);
  commit_queue.push_back(&me);
  while (!me.done) {
    if (committing) {
      commit_done.wait(lock);
      continue;
    }
    // This thread commits everything queued so far, its own write among it.
    committing = true;
    std::vector<Waiter*> batch;
    batch.swap(commit_queue);
    lock.unlock();
    std::vector<const Write*> writes;
    for (const Waiter* waiter : batch) writes.push_back(waiter->write);
    const std::optional<std::string> error = store->commit_all(writes);
    if (!error) {
      std::lock_guard state(mutex);
      for (Waiter* waiter : batch) waiter->apply();
    }
    lock.lock();
    for (Waiter* waiter : batch) {
      waiter->error = error;
      waiter->done = true;
    }
    committing = false;
    commit_done.notify_all();
  }
  return me.error;
}

std::optional<std::string> Service::Impl::open_ledger(const CompiledPolicy& policy) {
  runtime::LedgerConfig config = runtime::ledger_config(policy.tables(), inventory);
  if (ledger && ledger->ledger().config() == config) return std::nullopt;
  ledger.reset();  // a new unit, window or capacity: usage is rebuilt from the stored charges
  auto opened = runtime::DurableLedger::open(options.database, std::move(config), options.durability);
  if (!opened) return opened.error().message;
  ledger = std::move(*opened);
  return std::nullopt;
}

runtime::EntitlementBook* Service::Impl::entitlement_book(const CompiledPolicy& policy) {
  if (book && book_policy == &policy) return &*book;
  book.reset();
  auto created = runtime::EntitlementBook::create(policy.tables());
  if (!created) return nullptr;
  book.emplace(std::move(*created));
  book_policy = &policy;
  auto debt = store->debt_hours();
  if (debt) book->add_debt(*debt);
  return &*book;
}

namespace {

void add_job(ClusterState& state, const JobRecord& record) {
  if (record.phase == JobPhase::running && record.run) {
    state.running.push_back(*record.run);
  } else {
    state.pending.push_back(record.request);
  }
}

}  // namespace

ClusterState Service::Impl::live_state(Seconds now) const {
  ClusterState state;
  state.now = now;
  state.inventory = inventory;
  for (const auto& [seq, id] : by_seq) add_job(state, *live.at(id));
  for (const runtime::Reservation& reservation : reservations) {
    const auto found = live.find(reservation.job_id);
    if (found != live.end() && found->second->phase == JobPhase::pending) state.reservations.push_back(reservation);
  }
  return state;
}

ClusterState Service::Impl::cycle_state(Seconds& now) {
  ClusterState state;
  std::vector<std::pair<std::int64_t, RecordPtr>> changes;
  bool copy_all = false;
  {
    std::lock_guard lock(mutex);
    if (last_cycle) now = std::max(now, *last_cycle);
    state.now = now;
    state.inventory = inventory;
    for (const runtime::Reservation& reservation : reservations) {
      const auto found = live.find(reservation.job_id);
      if (found != live.end() && found->second->phase == JobPhase::pending) state.reservations.push_back(reservation);
    }
    copy_all = journal_lost;
    if (copy_all) {
      changes.reserve(live.size());
      for (const auto& [id, record] : live) changes.emplace_back(record->seq, record);
      journal_lost = false;
    } else {
      changes.swap(journal);
    }
  }
  if (copy_all) cycle_jobs.clear();
  for (auto& [seq, record] : changes) {
    if (record) {
      cycle_jobs.insert_or_assign(seq, std::move(record));
    } else {
      cycle_jobs.erase(seq);
    }
  }
  for (const auto& [seq, record] : cycle_jobs) add_job(state, *record);
  return state;
}

std::string Service::Impl::suggestion(const std::string& id) const {
  std::vector<std::string> known;
  known.reserve(live.size());
  for (const auto& [known_id, record] : live) known.push_back(known_id);
  if (auto recent = store->job_ids(10000)) known.insert(known.end(), recent->begin(), recent->end());
  return did_you_mean(id, known);
}

Expected<double, std::string> Service::Impl::charge(const std::vector<const RunningJob*>& jobs, Seconds until) {
  std::lock_guard ledger_lock(ledger_mutex);
  std::vector<Charge> charges;
  for (const RunningJob* job : jobs) {
    // A job holds its resources until its decided stop, and no longer.
    const Seconds end = std::min(until, job->stopping_at.value_or(until));
    if (end <= job->started) continue;
    // The part since it stalled, if it did, is held without progress.
    for (Charge& charge :
         runtime::holding_charges(*job, job->request.account, job->started, end, use_of(*job, inventory)))
      charges.push_back(std::move(charge));
  }
  if (charges.empty()) return 0.0;
  auto added = ledger->charge_batch(charges);
  if (!added) return unexpected(added.error().message);
  return *added;
}

Service::Service(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Service::~Service() = default;

Expected<std::unique_ptr<Service>, std::string> Service::open(ServiceOptions options,
                                                              std::shared_ptr<const CompiledPolicy> policy,
                                                              std::string policy_source, Seconds now) {
  if (!policy) return unexpected(std::string("no policy"));
  auto impl = std::make_unique<Impl>(std::move(options), policy, std::move(policy_source));
  impl->inventory = impl->options.inventory;
  auto store = Store::open(impl->options.database, impl->options.durability);
  if (!store) return unexpected(store.error());
  impl->store = std::move(*store);
  if (auto error = impl->load()) return unexpected(fmt::format("{}: {}", impl->options.database, *error));
  if (auto error = impl->open_ledger(*policy)) return unexpected(*error);
  auto history = impl->store->policies(1);
  if (!history) return unexpected(history.error());
  if (history->empty() || history->front().hash != policy->source_hash()) {
    const std::string outcome = history->empty() ? "initial" : "started";
    if (auto error = impl->store->add_policy(StoredPolicy{
            1, now, policy->source_hash(), outcome,
            fmt::format("policy `{}` {} at start", policy->tables().name, policy->source_hash().substr(0, 12)),
            impl->policy_source})) {
      return unexpected(*error);
    }
  }
  auto view = std::make_shared<View>();
  view->state = impl->live_state(now);
  view->policy = policy;
  view->generation = impl->slot.generation();
  view->cycle = impl->cycles;
  view->at = now;
  impl->view = std::move(view);
  return std::unique_ptr<Service>(new Service(std::move(impl)));
}

Expected<JobRequest, ApiError> Service::submit(JobRequest job, Seconds now) {
  const auto policy = impl_->slot.current();
  const PolicyTables& tables = policy->tables();
  // What the cycle would skip forever is refused at the door, with a
  // suggestion (the lists of names are made only then: this is the hot path).
  const bool account_known = std::any_of(
      tables.accounts.begin(), tables.accounts.end(),
      [&](const AccountInfo& account) { return account.leaf && !account.path.empty() && account.path == job.account; });
  if (!account_known) {
    return unexpected(ApiError{400, fmt::format("`{}` is not a leaf account of policy `{}`", job.account, tables.name),
                               "account", did_you_mean(job.account, leaf_accounts(tables))});
  }
  const auto info = std::find_if(tables.classes.begin(), tables.classes.end(),
                                 [&](const ClassInfo& candidate) { return candidate.name == job.job_class; });
  if (info == tables.classes.end()) {
    std::vector<std::string> classes;
    for (const ClassInfo& candidate : tables.classes) classes.push_back(candidate.name);
    return unexpected(ApiError{400, fmt::format("`{}` is not a class of policy `{}`", job.job_class, tables.name),
                               "class", did_you_mean(job.job_class, classes)});
  }
  if (auto problem = runtime::class_limit_problem(*info, job)) {
    return unexpected(ApiError{400, fmt::format("the job {}", *problem), "", ""});
  }
  Impl& s = *impl_;
  std::int64_t seq = 0;
  {
    std::lock_guard lock(s.mutex);
    if (job.id.empty()) job.id = fmt::format("job-{}", s.last_seq + 1);
    if (const auto found = s.live.find(job.id); found != s.live.end()) {
      return unexpected(
          ApiError{409, fmt::format("a job with id `{}` is already {}", job.id, job_phase_name(found->second->phase)),
                   "id", ""});
    }
    if (s.inflight.count(job.id)) {
      return unexpected(ApiError{409, fmt::format("a job with id `{}` is being submitted", job.id), "id", ""});
    }
    if (s.known_ids.count(job.id)) {
      return unexpected(ApiError{
          409, fmt::format("a job with id `{}` was submitted before (ids are never reused)", job.id), "id", ""});
    }
    seq = ++s.last_seq;
    s.inflight.insert(job.id);
  }
  JobRecord record;
  record.seq = seq;
  record.request = job;
  Write write;
  write.events.push_back(StoredEvent{now, "submit", job.id, runtime::audit::dump(job_json(job), -1)});
  write.jobs.push_back(s.stored(job.id, record));
  // Acknowledged once committed, in a group with the submissions that came meanwhile.
  const std::optional<std::string> error = s.commit_grouped(write, [&s, &job, &record] {
    s.inflight.erase(job.id);
    s.known_ids.insert(job.id);
    s.put(job.id, std::move(record));
    s.fresh.push_back(job.id);
  });
  if (error) {
    std::lock_guard lock(s.mutex);
    s.inflight.erase(job.id);
    return unexpected(server_error("the job", *error));
  }
  return job;
}

std::optional<ApiError> Service::cancel(const std::string& id, Seconds now) {
  std::lock_guard lock(impl_->mutex);
  Impl& s = *impl_;
  const auto found = s.live.find(id);
  if (found == s.live.end()) {
    auto earlier = s.store->job(id);
    if (!earlier) return server_error("the cancellation", earlier.error());
    if (*earlier) return ApiError{409, fmt::format("job `{}` is already {}", id, (*earlier)->phase), "", ""};
    return ApiError{404, fmt::format("no job `{}`", id), "", s.suggestion(id)};
  }
  JobRecord record = *found->second;
  Write write;
  write.events.push_back(StoredEvent{now, "cancel", id, "{}"});
  if (record.run) {
    if (auto charged = s.charge({&*record.run}, now); !charged)
      return server_error("the cancellation", charged.error());
    Json stop{{"kind", "cancel"},
              {"job", id},
              {"account", record.request.account},
              {"nodes", runtime::audit::node_names(s.inventory, record.run->nodes)},
              {"reason", "cancelled through the API: stop it now"}};
    write.decisions.push_back(
        StoredDecision{0, static_cast<std::int64_t>(s.cycles), now, "cancel", id, runtime::audit::dump(stop, -1)});
  }
  record.phase = JobPhase::cancelled;
  record.ended = now;
  write.jobs.push_back(s.stored(id, record));
  if (auto error = s.store->commit(write)) return server_error("the cancellation", *error);
  s.forget(id);
  return std::nullopt;
}

std::optional<ApiError> Service::record_event(const Event& event, Seconds now) {
  const Seconds at = event.at.value_or(now);
  if (at > now) {
    return ApiError{400,
                    fmt::format("`at` ({}) is in the future (now is {})", support::format_timestamp(at),
                                support::format_timestamp(now)),
                    "at", ""};
  }
  std::lock_guard lock(impl_->mutex);
  Impl& s = *impl_;
  Json body{{"kind", event.kind}, {"at", support::format_timestamp(at)}};
  Write write;
  const bool node_event = event.kind == "node_up" || event.kind == "node_down" || event.kind == "node_drain";
  if (node_event) {
    const auto node = s.inventory.find_node(event.node);
    if (!node) {
      std::vector<std::string> names;
      for (const runtime::Node& n : s.inventory.nodes) names.push_back(n.name);
      return ApiError{404, fmt::format("no node `{}` in cluster `{}`", event.node, s.inventory.name), "node",
                      did_you_mean(event.node, names)};
    }
    const runtime::NodeState state = event.kind == "node_up"     ? runtime::NodeState::up
                                     : event.kind == "node_down" ? runtime::NodeState::down
                                                                 : runtime::NodeState::drain;
    body["node"] = event.node;
    write.events.push_back(StoredEvent{at, event.kind, "", runtime::audit::dump(body, -1)});
    write.nodes.emplace_back(event.node, runtime::node_state_name(state));
    if (auto error = s.store->commit(write)) return server_error("the event", *error);
    s.inventory.nodes[*node].state = state;
    return std::nullopt;
  }
  const auto found = s.live.find(event.job);
  if (found == s.live.end()) {
    auto earlier = s.store->job(event.job);
    if (!earlier) return server_error("the event", earlier.error());
    if (*earlier) {
      // A terminal event sent again (a retry after a lost answer) changes nothing.
      if ((*earlier)->phase == event.kind) return std::nullopt;
      return ApiError{409, fmt::format("job `{}` is already {}", event.job, (*earlier)->phase), "job", ""};
    }
    return ApiError{404, fmt::format("no job `{}`", event.job), "job", s.suggestion(event.job)};
  }
  JobRecord record = *found->second;
  if (!record.run) {
    return ApiError{409, fmt::format("job `{}` is pending: the service has not started it", event.job), "job", ""};
  }
  RunningJob& run = *record.run;
  if (at < run.started) {
    return ApiError{400,
                    fmt::format("`at` ({}) is before the job started ({})", support::format_timestamp(at),
                                support::format_timestamp(run.started)),
                    "at", ""};
  }
  body["job"] = event.job;
  write.events.push_back(StoredEvent{at, event.kind, event.job, runtime::audit::dump(body, -1)});
  bool ends = false;
  if (event.kind == "started") {
    record.confirmed = true;
  } else if (event.kind == "checkpointed") {
    if (at < run.last_checkpoint) {
      return ApiError{409,
                      fmt::format("a checkpoint at {} is older than the last one reported ({})",
                                  support::format_timestamp(at), support::format_timestamp(run.last_checkpoint)),
                      "at", ""};
    }
    run.last_checkpoint = at;
    run.checkpoint_reported = true;
  } else if (event.kind == "progress") {
    if (run.last_progress && at < *run.last_progress) {
      return ApiError{409,
                      fmt::format("progress at {} is older than the last progress reported ({})",
                                  support::format_timestamp(at), support::format_timestamp(*run.last_progress)),
                      "at", ""};
    }
    run.last_progress = at;
  } else if (event.kind == "finished" || event.kind == "failed") {
    if (auto charged = s.charge({&run}, at); !charged) return server_error("the event", charged.error());
    record.phase = event.kind == "finished" ? JobPhase::finished : JobPhase::failed;
    record.ended = at;
    ends = true;
  } else {
    return ApiError{400, fmt::format("unknown event kind `{}`", event.kind), "kind", ""};
  }
  write.jobs.push_back(s.stored(event.job, record));
  if (auto error = s.store->commit(write)) return server_error("the event", *error);
  if (ends) {
    s.forget(event.job);
  } else {
    s.put(event.job, std::move(record));
  }
  return std::nullopt;
}

namespace {

// The feed's record of a job found stalled: since when, what its class does
// about it, and why, in one sentence.
Json stall_record(const RunningJob& job, Seconds since, const runtime::Inventory& inventory) {
  return Json{{"kind", "stalled"},
              {"job", job.request.id},
              {"account", job.request.account},
              {"class", job.request.job_class},
              {"nodes", runtime::audit::node_names(inventory, job.nodes)},
              {"since", support::format_timestamp(since)},
              {"progress_every", support::format_duration(job.contract.progress_every)},
              {"on_stall", stall_action_name(job.contract.on_stall)},
              {"reason", runtime::stall_reason(job, since)}};
}

// The feed's record of a stalled job that reported progress again.
Json recovery_record(const RunningJob& job) {
  return Json{{"kind", "recovered"},
              {"job", job.request.id},
              {"account", job.request.account},
              {"class", job.request.job_class},
              {"progress_at", support::format_timestamp(runtime::last_progress_point(job))},
              {"reason", runtime::recovery_reason(job)}};
}

}  // namespace

Expected<CycleReport, std::string> Service::run_cycle(Seconds now) {
  const auto started_at = std::chrono::steady_clock::now();
  const runtime::PolicySlot::Running running = impl_->slot.running();
  const CompiledPolicy& policy = *running.policy;
  Impl& s = *impl_;
  // One cycle at a time. The live state is locked only to take the journal
  // and, after the cycle, to fold its decisions in: submissions and reads go on
  // meanwhile.
  std::lock_guard cycle_lock(s.cycle_mutex);
  ClusterState state = s.cycle_state(now);
  CycleReport report;
  runtime::LedgerConfig config;
  std::vector<const RunningJob*> holding;  // due a charge: charge_every passed, or never charged
  {
    std::lock_guard ledger_lock(s.ledger_mutex);
    if (auto error = s.open_ledger(policy)) return unexpected(*error);
    config = s.ledger->ledger().config();
    for (const RunningJob& job : state.running) {
      const std::optional<Seconds> mark = s.ledger->ledger().charged_until(job.request.id);
      if (!mark || *mark < job.started || now - *mark >= s.options.charge_every) holding.push_back(&job);
    }
  }
  auto charged = s.charge(holding, now);
  if (!charged) return unexpected(charged.error());
  report.charged = *charged;
  {
    std::lock_guard ledger_lock(s.ledger_mutex);
    state.usage = s.ledger->ledger().usage_by_account(now);
    state.without_progress = s.ledger->without_progress().usage_by_account(now);
  }
  runtime::EntitlementBook* book = s.entitlement_book(policy);
  if (book) state.debt = book->debt_in_window(now, config.window);
  state.owed = runtime::sum_in_window(s.owed_hours, now, config.window);
  for (const auto& [account, debt] : state.debt) state.owed[account] = std::max(state.owed[account], debt);

  runtime::CycleResult result = runtime::run_cycle(state, policy, s.options.cycle, s.cycle_cache);

  // The debt since the last cycle, at this cycle's loads.
  Write write;
  if (book && s.last_cycle && *s.last_cycle < now && now - *s.last_cycle <= s.options.max_accounting_gap) {
    book->load(state, config.unit);
    book->step(*s.last_cycle, now, runtime::capacity_rate(config.unit, state.inventory));
    write.debt = book->last_step_debt();
    write.owed = book->last_step_owed();
  }
  write.forget_hours_before = (now - config.window) / 3600;
  ClusterState after = state;
  runtime::apply_decisions(after, result);
  const std::int64_t cycle = static_cast<std::int64_t>(s.cycles + 1);

  // Stalls and recoveries since the last cycle go on the feed (docs/SERVE.md, "Progress").
  std::set<std::string> stalled_now;
  std::vector<StoredDecision> progress_records;
  for (const RunningJob& job : state.running) {
    const std::optional<Seconds> since = runtime::stalled_since(job, now);
    if (since) stalled_now.insert(job.request.id);
    if (since.has_value() == (s.stalled.count(job.request.id) > 0)) continue;
    const Json record = since ? stall_record(job, *since, state.inventory) : recovery_record(job);
    progress_records.push_back(StoredDecision{0, cycle, now, record.at("kind").get<std::string>(), job.request.id,
                                              runtime::audit::dump(record, -1)});
  }

  // What the cycle changed, against the copy it ran on: starts, stops decided, requeues.
  std::unordered_map<std::string_view, const RunningJob*> before_running, after_running;
  for (const RunningJob& job : state.running) before_running.emplace(job.request.id, &job);
  for (const RunningJob& job : after.running) after_running.emplace(job.request.id, &job);
  std::unordered_map<std::string_view, const JobRequest*> after_pending;
  for (const JobRequest& job : after.pending) after_pending.emplace(job.id, &job);
  // The queue readers walk: the ranking of the jobs the cycle left waiting (one
  // started, cancelled or finished meanwhile is passed over when read). Made
  // here, swapped in under the lock, and the old one freed after it.
  std::vector<std::string> order;
  std::unordered_map<std::string, std::pair<std::size_t, double>> ranked;
  order.reserve(result.ranked_job_ids.size());
  ranked.reserve(result.ranked_job_ids.size());
  for (std::size_t i = 0; i < result.ranked_job_ids.size(); ++i) {
    const std::string& id = result.ranked_job_ids[i];
    if (!after_pending.count(id)) continue;
    ranked.emplace(id, std::make_pair(order.size(), result.ranks[i]));
    order.push_back(id);
  }

  {
    std::lock_guard lock(s.mutex);
    // Fold the changes into the live state, each only if its job is still as
    // the cycle saw it (a job finished, cancelled or checkpointed meanwhile
    // keeps what happened to it; a start on a node gone down meanwhile waits).
    std::map<std::string, JobRecord> changed;
    std::set<std::string> dropped;
    for (const RunningJob& job : state.running) {
      const auto live = s.live.find(job.request.id);
      const bool unchanged = live != s.live.end() && live->second->phase == JobPhase::running && live->second->run &&
                             live->second->run->started == job.started;
      const auto now_running = after_running.find(job.request.id);
      if (now_running == after_running.end()) {
        if (!unchanged) continue;
        // Requeued: its stop time came. Charged through its stop (charge_every may have skipped it).
        auto done = s.charge({&*live->second->run}, std::min(now, job.stopping_at.value_or(now)));
        if (!done) return unexpected(done.error());
        report.charged += *done;
        JobRecord record = *live->second;
        record.phase = JobPhase::pending;
        record.run.reset();
        record.confirmed = false;
        if (const auto back = after_pending.find(job.request.id); back != after_pending.end())
          record.request = *back->second;
        Json requeue{{"kind", "requeue"},
                     {"job", job.request.id},
                     {"nodes", runtime::audit::node_names(state.inventory, job.nodes)},
                     {"reason", "its stop time came: it is back in the queue"}};
        write.decisions.push_back(
            StoredDecision{0, cycle, now, "requeue", job.request.id, runtime::audit::dump(requeue, -1)});
        ++report.requeued;
        changed.emplace(job.request.id, std::move(record));
      } else if (now_running->second->stopping_at != job.stopping_at) {
        if (!unchanged) {
          dropped.insert(job.request.id);
          continue;
        }
        JobRecord record = *live->second;
        record.run->stopping_at = now_running->second->stopping_at;
        changed.emplace(job.request.id, std::move(record));
      }
    }
    for (const RunningJob& job : after.running) {
      if (before_running.count(job.request.id)) continue;
      const auto live = s.live.find(job.request.id);
      const bool waiting = live != s.live.end() && live->second->phase == JobPhase::pending;
      const bool nodes_up = std::all_of(job.nodes.begin(), job.nodes.end(), [&](int node) {
        return s.inventory.nodes[static_cast<std::size_t>(node)].state == runtime::NodeState::up;
      });
      if (!waiting || !nodes_up) {
        dropped.insert(job.request.id);
        continue;
      }
      JobRecord record = *live->second;
      record.phase = JobPhase::running;
      record.run = job;
      changed.emplace(job.request.id, std::move(record));
    }
    for (const runtime::Decision& decision : result.decisions) {
      if (decision.kind == runtime::DecisionKind::skip || dropped.count(decision.job_id)) continue;
      Json record{{"kind", runtime::decision_kind_name(decision.kind)}};
      runtime::audit::add_decision(record, decision, state.inventory);
      write.decisions.push_back(StoredDecision{0, cycle, now, runtime::decision_kind_name(decision.kind),
                                               decision.job_id, runtime::audit::dump(record, -1)});
      report.starts += decision.kind == runtime::DecisionKind::start;
      report.preemptions += decision.kind == runtime::DecisionKind::preempt;
    }
    for (StoredDecision& record : progress_records) write.decisions.push_back(std::move(record));
    Json stalled_ids = Json::array();
    for (const std::string& id : stalled_now) stalled_ids.push_back(id);
    write.meta.emplace_back("stalled", runtime::audit::dump(stalled_ids, -1));
    for (const auto& [id, record] : changed) write.jobs.push_back(s.stored(id, record));
    const bool sample = !s.last_sample || now - *s.last_sample >= s.options.sample_every;
    if (sample) {
      write.samples = standing_samples(policy, after, now);
      write.meta.emplace_back("last_sample", std::to_string(now));
    }
    Json reservations = Json::array();
    for (const runtime::Reservation& reservation : result.reservations) {
      reservations.push_back(reservation_json(reservation));
    }
    write.meta.emplace_back("reservations", runtime::audit::dump(reservations, -1));
    write.meta.emplace_back("last_cycle", std::to_string(now));
    write.meta.emplace_back("cycles", std::to_string(cycle));
    if (auto error = s.store->commit(write)) return unexpected(*error);

    // Committed: memory follows.
    for (auto& [id, record] : changed) s.put(id, std::move(record));
    for (const auto& [key, amount] : write.owed) s.owed_hours[key] += amount;
    std::erase_if(s.owed_hours, [&](const auto& entry) { return entry.first.second < *write.forget_hours_before; });
    s.reservations = result.reservations;
    s.last_cycle = now;
    if (sample) s.last_sample = now;
    s.cycles = static_cast<std::uint64_t>(cycle);
    s.stalled = std::move(stalled_now);
    s.order.swap(order);
    s.ranked.swap(ranked);
    // Submitted while the cycle ran: still unranked, still after the ranking.
    std::erase_if(s.fresh, [&](const std::string& id) { return s.ranked.count(id) > 0 || !s.live.count(id); });
  }
  // The view is made outside the lock (the cycle_mutex keeps `s.cycles` still).
  report.cycle = s.cycles;
  report.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started_at).count();
  auto view = std::make_shared<View>();
  view->cycle = s.cycles;
  view->at = now;
  view->state = std::move(after);
  view->result = std::move(result);
  view->policy = running.policy;
  view->generation = running.generation;
  view->duration_seconds = report.seconds;
  index_terms(*view);
  std::shared_ptr<const View> old;
  {
    std::lock_guard view_lock(s.view_mutex);
    old = std::exchange(s.view, std::move(view));
  }
  // The old view is freed here, by the cycle: freeing a view of a long queue
  // takes tens of milliseconds, which a reader that dropped it last would
  // add to its answer. No reader can take it any more; those that have it
  // finish within a moment (past kRetiredViewWait, the last one frees it).
  const auto waited_from = std::chrono::steady_clock::now();
  while (old.use_count() > 1 && std::chrono::steady_clock::now() - waited_from < kRetiredViewWait) {
    std::this_thread::sleep_for(std::chrono::microseconds(200));
  }
  // The last holder of a view (each is made non-const, by make_shared<View>) hands its decisions'
  // memory to the next cycle.
  if (old && old.use_count() == 1) s.cycle_cache.give_back(std::move(std::const_pointer_cast<View>(old)->result));
  old.reset();
  return report;
}

std::shared_ptr<const View> Service::view() const {
  std::lock_guard lock(impl_->view_mutex);
  return impl_->view;
}

Expected<JobRecord, ApiError> Service::job(const std::string& id) const {
  {
    std::lock_guard lock(impl_->mutex);
    if (const auto found = impl_->live.find(id); found != impl_->live.end()) return *found->second;
  }
  // Ended jobs are read from the store, without holding up the live state.
  const Impl& s = *impl_;
  auto stored = s.store->job(id);
  if (!stored) return unexpected(ApiError{503, stored.error(), "", ""});
  if (!*stored) {
    std::lock_guard lock(impl_->mutex);
    return unexpected(ApiError{404, fmt::format("no job `{}`", id), "", s.suggestion(id)});
  }
  auto record = record_from_text((*stored)->record, (*stored)->seq, s.inventory);
  if (!record)
    return unexpected(ApiError{500, fmt::format("job `{}` in the database: {}", id, record.error()), "", ""});
  return std::move(*record);
}

QueuePage Service::queue(std::size_t offset, std::size_t limit) const {
  std::lock_guard lock(impl_->mutex);
  const Impl& s = *impl_;
  QueuePage page;
  page.cycle = s.cycles;
  page.total = s.pending_count;
  // The cursor walks the last cycle's ranking, then what was submitted since;
  // entries no longer waiting are passed over. O(limit + passed over).
  const std::size_t ranked = s.order.size(), end = ranked + s.fresh.size();
  std::size_t index = offset;
  for (; index < end && page.jobs.size() < limit; ++index) {
    const bool in_ranking = index < ranked;
    const std::string& id = in_ranking ? s.order[index] : s.fresh[index - ranked];
    const auto found = s.live.find(id);
    if (found == s.live.end() || found->second->phase != JobPhase::pending) continue;
    if (in_ranking) {
      const auto& [position, rank] = s.ranked.at(id);
      page.jobs.push_back({found->second->request, position, rank});
    } else {
      page.jobs.push_back({found->second->request, std::nullopt, std::nullopt});
    }
  }
  // More may wait beyond: the next page starts where this one stopped looking.
  for (std::size_t next = index; next < end; ++next) {
    const std::string& id = next < ranked ? s.order[next] : s.fresh[next - ranked];
    const auto found = s.live.find(id);
    if (found != s.live.end() && found->second->phase == JobPhase::pending) {
      page.next = index;
      break;
    }
  }
  return page;
}

namespace {

// The stored records as the feed shows them: a JSON object each, its place first.
std::vector<std::string> feed_entries(const std::vector<StoredDecision>& rows) {
  std::vector<std::string> out;
  for (const StoredDecision& row : rows) {
    out.push_back(feed_entry(row.seq, row.cycle, row.at, row.record));
  }
  return out;
}

}  // namespace

Expected<std::vector<std::string>, std::string> Service::decisions_since(std::int64_t since, std::size_t limit) const {
  auto rows = impl_->store->decisions_since(since, limit);
  if (!rows) return unexpected(rows.error());
  return feed_entries(*rows);
}

Expected<std::vector<std::string>, std::string> Service::decisions_tail(std::size_t count) const {
  auto rows = impl_->store->decisions_tail(count);
  if (!rows) return unexpected(rows.error());
  return feed_entries(*rows);
}

std::int64_t Service::webhook_position() const {
  auto value = impl_->store->meta("webhook_seq");
  if (!value || !*value) return 0;
  std::int64_t seq = 0;
  const std::string& text = **value;
  std::from_chars(text.data(), text.data() + text.size(), seq);
  return seq;
}

std::optional<std::string> Service::set_webhook_position(std::int64_t seq) {
  Write write;
  write.meta.emplace_back("webhook_seq", std::to_string(seq));
  return impl_->store->commit(write);
}

Expected<std::vector<Sample>, std::string> Service::samples(Seconds since, std::size_t limit) const {
  return impl_->store->samples(since, limit);
}

Expected<std::vector<PolicyRecord>, std::string> Service::policy_history(std::size_t limit) const {
  return impl_->store->policies(limit);
}

Expected<std::vector<JobRecord>, std::string> Service::jobs(const std::string& account, const std::string& phase,
                                                            std::size_t limit) const {
  std::vector<JobRecord> jobs;
  {
    std::lock_guard lock(impl_->mutex);
    const Impl& s = *impl_;
    for (auto it = s.by_seq.rbegin(); it != s.by_seq.rend() && jobs.size() < limit; ++it) {
      const JobRecord& record = *s.live.at(it->second);
      if ((account.empty() || record.request.account == account) &&
          (phase.empty() || phase == job_phase_name(record.phase))) {
        jobs.push_back(record);
      }
    }
  }
  if (jobs.size() >= limit || phase == "pending" || phase == "running") return jobs;
  // Ended jobs from the store (waiting and running ones are in memory, newer there).
  auto rows = impl_->store->jobs_where(account, phase, limit);
  if (!rows) return unexpected(rows.error());
  for (const StoredJob& row : *rows) {
    if (jobs.size() >= limit) break;
    if (row.phase == "pending" || row.phase == "running") continue;
    auto record = record_from_text(row.record, row.seq, impl_->inventory);
    if (!record) return unexpected(fmt::format("job `{}` in the database: {}", row.id, record.error()));
    jobs.push_back(std::move(*record));
  }
  std::sort(jobs.begin(), jobs.end(), [](const JobRecord& a, const JobRecord& b) { return a.seq > b.seq; });
  return jobs;
}

PolicyChange Service::change_policy(runtime::SwapCandidate candidate, std::string source, bool dry_run, Seconds now) {
  PolicyChange change;
  change.dry_run = dry_run;
  const std::shared_ptr<const View> live = view();
  runtime::PolicySlot& slot = impl_->slot;
  const runtime::PolicySlot::Running before = slot.running();
  const std::string hash = candidate.policy ? candidate.policy->source_hash() : std::string();
  if (dry_run) {
    runtime::DryRun run = slot.dry_run_candidate(std::move(candidate), live->state, impl_->options.cycle);
    change.outcome = std::move(run.outcome);
    change.diff = std::move(run.diff);
  } else if (!candidate.policy) {
    change.outcome = slot.swap_candidate(std::move(candidate));  // refused, with the diagnostics
  } else {
    // Who moves, on the state the queue shows; then the swap, only over the policy the diff saw.
    change.diff = runtime::diff_rankings(live->state, *before.policy, *candidate.policy, impl_->options.cycle);
    std::vector<Diagnostic> warnings = std::move(candidate.diagnostics);
    SourceTexts sources = std::move(candidate.sources);
    change.outcome = slot.swap_if(std::move(candidate.policy), before.generation);
    change.outcome.diagnostics = std::move(warnings);
    change.outcome.sources = std::move(sources);
    if (!change.outcome.swapped) change.diff.reset();
  }
  const bool swapped = change.outcome.swapped;
  const char* outcome = dry_run ? (change.diff ? "dry_run" : "dry_run_refused") : (swapped ? "swapped" : "refused");
  const PolicyRecord record{
      static_cast<std::int64_t>(change.outcome.generation), now, hash, outcome, change.outcome.message, source};
  if (auto error = impl_->store->add_policy(record)) {
    change.outcome.message += fmt::format(" (the history could not record it: {})", *error);
  }
  if (swapped) {
    std::lock_guard lock(impl_->mutex);
    impl_->policy_source = std::move(source);
  }
  return change;
}

ClusterState Service::state() const {
  std::lock_guard lock(impl_->mutex);
  return impl_->live_state(impl_->last_cycle.value_or(0));
}

const runtime::Inventory& Service::inventory() const { return impl_->options.inventory; }
runtime::PolicySlot& Service::policy_slot() { return impl_->slot; }
runtime::PolicySlot::Running Service::running_policy() const { return impl_->slot.running(); }
std::string Service::policy_source() const {
  std::lock_guard lock(impl_->mutex);
  return impl_->policy_source;
}

}  // namespace allot::service
