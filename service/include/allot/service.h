// `allot serve`: the runtime as a service (docs/SERVE.md). A Service owns a
// cluster's queue, running jobs and usage ledger in one SQLite file, runs the
// scheduling cycle on them, and answers a JSON API: executors and users submit
// and cancel jobs and report events; the cycle's starts and preemptions are a
// feed executors pull; everyone may read the queue, a job's explanation, the
// shares and the decisions. Every write is committed before it is
// acknowledged, so a crash loses nothing a client was told was accepted, and
// the ledger's idempotent charges count nothing twice.
//
// Threads: HTTP workers call submit/cancel/record_event and the readers; one
// loop calls run_cycle. A mutex keeps the live state consistent; readers of
// the ranking and the explanations use the view the last cycle published.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

#include "allot/cycle.h"
#include "allot/durable_ledger.h"
#include "allot/expected.h"
#include "allot/inventory.h"
#include "allot/policy.h"
#include "allot/policy_slot.h"

namespace allot::http {
class HttpServer;
}
namespace allot::metrics {
class Registry;
}

namespace allot::service {

using runtime::Seconds;

// What went wrong with a request, for its answer: 400 for a malformed body
// (`field` is the path of the offending field, "" for the body as a whole),
// 404 for an unknown job or node (`suggestion`: the nearest known name), 409
// for a request the job's phase does not allow, 500/503 when the server could
// not store it (nothing was accepted).
struct ApiError {
  int status = 400;
  std::string message;
  std::string field;
  std::string suggestion;
};

struct ServiceOptions {
  std::string database;  // SQLite: jobs, events, decisions, ledger, policy history
  runtime::Inventory inventory;
  runtime::CycleOptions cycle;
  runtime::Durability durability = runtime::Durability::power_loss;
  // A running job is charged at a cycle once this long has passed since its
  // last charge (and always when it ends), so the ledger grows by a row per
  // job per minute, not per cycle; usage lags by at most this much.
  Seconds charge_every = 60;
  // How often each account's standing is sampled for the chart over time.
  Seconds sample_every = 300;
  // Debt is stepped over the time between two cycles at the later one's
  // loads; after a longer gap (the service was down) that time is not counted.
  Seconds max_accounting_gap = 15 * 60;
};

enum class JobPhase { pending, running, finished, failed, cancelled };
const char* job_phase_name(JobPhase phase);

// A job as the service keeps it.
struct JobRecord {
  std::int64_t seq = 0;  // submission order, from 1
  JobPhase phase = JobPhase::pending;
  runtime::JobRequest request;             // pending, and what it asked for
  std::optional<runtime::RunningJob> run;  // running: where, since when, its contract, its last progress
  Seconds ended = 0;                       // finished, failed or cancelled: when
  bool confirmed = false;                  // the executor reported `started`
};

// An event an executor reports (POST /events).
struct Event {
  std::string kind;           // started, checkpointed, progress, finished, failed, node_up, node_down, node_drain
  std::string job;            // for job events
  std::string node;           // for node events
  std::optional<Seconds> at;  // default: now
};

// One cycle's place in the service's history, published for the readers.
struct View {
  std::uint64_t cycle = 0;  // cycles run since the database was created (0: none yet)
  Seconds at = 0;
  // The state after the cycle's decisions (started jobs running, stops
  // decided), with the usage and debt it ranked with: what explain and the
  // shares read.
  runtime::ClusterState state;
  runtime::CycleResult result;  // the cycle's decisions and ranking
  // Each ranked job's rank terms from the cycle (its start or skip), by id.
  std::unordered_map<std::string, std::vector<runtime::RankTerm>> terms;
  std::shared_ptr<const CompiledPolicy> policy;
  std::uint64_t generation = 0;  // of the policy slot
  double duration_seconds = 0;   // how long the cycle took
};

// One policy the service ran, or one it refused (GET /policy/history).
struct PolicyRecord {
  std::int64_t generation = 0;  // the slot's generation after it (a refusal: the one that kept running)
  Seconds at = 0;
  std::string hash;
  std::string outcome;  // initial, started, swapped, refused, dry_run, dry_run_refused
  std::string message;
  std::string source;
};

// One account's standing at one time (the dashboard's chart over time).
struct Sample {
  Seconds at = 0;
  std::string account;
  double share = 0;  // of the cluster, with the exceptions in force
  double usage = 0;  // over the window, in the policy's unit
  double owed = 0;
  double delivered = 0;
  double debt = 0;
};

// What a policy change did (POST /policy).
struct PolicyChange {
  bool dry_run = false;
  runtime::SwapOutcome outcome;           // swapped or refused, with the diagnostics
  std::optional<runtime::RankDiff> diff;  // how the queue reorders (absent when refused)
};

// What run_cycle did.
struct CycleReport {
  std::uint64_t cycle = 0;
  std::size_t starts = 0;
  std::size_t preemptions = 0;
  std::size_t requeued = 0;  // preempted jobs whose stop time came: back in the queue
  double charged = 0;        // units added to the ledger
  double seconds = 0;
};

// One page of the queue (GET /queue).
struct QueuePage {
  struct Entry {
    runtime::JobRequest job;
    std::optional<std::size_t> position;  // in the last cycle's ranking (0 = first); nullopt: not ranked yet
    std::optional<double> rank;
  };
  std::vector<Entry> jobs;
  std::size_t total = 0;            // pending jobs
  std::optional<std::size_t> next;  // the offset of the next page, if any
  std::uint64_t cycle = 0;
};

// What the read API serves (the GET routes and the dashboard): the state a
// driver publishes after each cycle or pass. A Service is one; a Slurm
// adapter's passes are another (ObservedCluster). Every call is safe from any
// thread.
class ReadModel {
 public:
  virtual ~ReadModel() = default;
  // Which driver publishes it ("serve", "slurm"), for the dashboard.
  virtual std::string driver() const = 0;
  // The last cycle's view (a view with cycle 0 before the first).
  virtual std::shared_ptr<const View> view() const = 0;
  // Pending jobs in the last cycle's order, then those that arrived since.
  virtual QueuePage queue(std::size_t offset, std::size_t limit) const = 0;
  // A job the model knows; an error (404 with a suggestion) when unknown.
  virtual Expected<JobRecord, ApiError> job(const std::string& id) const = 0;
  // Jobs of `account` (any when empty) in `phase` (any when empty), newest
  // first, at most `limit`.
  virtual Expected<std::vector<JobRecord>, std::string> jobs(const std::string& account, const std::string& phase,
                                                             std::size_t limit) const = 0;
  // The feed: decisions after `since`, at most `limit`, as JSON objects (one
  // string each, `{"seq":N,"cycle":C,"at":T,"kind":...}`).
  virtual Expected<std::vector<std::string>, std::string> decisions_since(std::int64_t since,
                                                                          std::size_t limit) const = 0;
  // The last `count` decisions of the feed, oldest first.
  virtual Expected<std::vector<std::string>, std::string> decisions_tail(std::size_t count) const = 0;
  // Samples since `since`, oldest first, at most `limit`.
  virtual Expected<std::vector<Sample>, std::string> samples(Seconds since, std::size_t limit) const = 0;
  // The policy history, newest first, at most `limit`.
  virtual Expected<std::vector<PolicyRecord>, std::string> policy_history(std::size_t limit) const = 0;
  // The policy running now (a swap shows at once, before the next cycle runs
  // it) and its source text.
  virtual runtime::PolicySlot::Running running_policy() const = 0;
  virtual std::string policy_source() const = 0;
};

class Service final : public ReadModel {
 public:
  // Opens (or creates) the database and rebuilds the live state from it.
  // `policy` runs until a swap; `now` is the time of opening.
  static Expected<std::unique_ptr<Service>, std::string> open(ServiceOptions options,
                                                              std::shared_ptr<const CompiledPolicy> policy,
                                                              std::string policy_source, Seconds now);
  ~Service();
  Service(const Service&) = delete;
  Service& operator=(const Service&) = delete;

  // Adds a job to the queue; its id is assigned ("job-<seq>") when empty.
  // Returns the job as stored, once committed.
  Expected<runtime::JobRequest, ApiError> submit(runtime::JobRequest job, Seconds now);
  // Cancels a pending or running job (a running one is charged up to now and
  // its stop is put on the feed).
  std::optional<ApiError> cancel(const std::string& id, Seconds now);
  // Applies one event, once committed.
  std::optional<ApiError> record_event(const Event& event, Seconds now);

  // Charges running jobs up to `now`, runs one cycle, applies and stores its
  // decisions, and publishes a new view. The reason when the database failed
  // (the state is then as it was).
  Expected<CycleReport, std::string> run_cycle(Seconds now);

  // The read model (above): a job in any phase; the queue's pending jobs in
  // the last cycle's order, then those submitted since.
  std::string driver() const override { return "serve"; }
  std::shared_ptr<const View> view() const override;
  Expected<JobRecord, ApiError> job(const std::string& id) const override;
  QueuePage queue(std::size_t offset, std::size_t limit) const override;
  Expected<std::vector<std::string>, std::string> decisions_since(std::int64_t since, std::size_t limit) const override;
  Expected<std::vector<std::string>, std::string> decisions_tail(std::size_t count) const override;
  Expected<std::vector<PolicyRecord>, std::string> policy_history(std::size_t limit) const override;
  Expected<std::vector<JobRecord>, std::string> jobs(const std::string& account, const std::string& phase,
                                                     std::size_t limit) const override;
  Expected<std::vector<Sample>, std::string> samples(Seconds since, std::size_t limit) const override;
  runtime::PolicySlot::Running running_policy() const override;
  std::string policy_source() const override;
  // Compiles nothing: `candidate` was compiled off the decision path by the
  // caller. Swaps to it (or only diffs it, `dry_run`) against the last
  // cycle's state; every swap, refusal and dry run is stored in the history.
  PolicyChange change_policy(runtime::SwapCandidate candidate, std::string source, bool dry_run, Seconds now);
  // The last feed entry the webhook delivered (0: none yet), kept in the database.
  std::int64_t webhook_position() const;
  std::optional<std::string> set_webhook_position(std::int64_t seq);

  // The live state (a copy), for reports that need it whole.
  runtime::ClusterState state() const;
  const runtime::Inventory& inventory() const;
  runtime::PolicySlot& policy_slot();

 private:
  struct Impl;
  explicit Service(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

// The decision feed pushed to a webhook (docs/SERVE.md "Webhook"): a thread
// that POSTs the feed entries after the last one delivered, in order, in
// batches of up to 100, as {"decisions": [...]} (the entries of GET
// /decisions), with `Authorization: Bearer <token>` when one is given. A batch
// is delivered when the receiver answers 2xx; the position is then stored, so
// a restart goes on after it. Anything else is retried with backoff (1 s,
// doubling, at most 60 s): delivery is at least once, in order; a receiver
// de-duplicates by `seq`.
// Where and how to push.
struct WebhookTarget {
  std::string scheme_host_port;  // "http://127.0.0.1:9000"
  std::string path;              // "/allot/decisions"
  std::string token;             // sent as a bearer token, if not empty
};

// Reads an `http://HOST:PORT/PATH` URL (https is refused: this build's client
// is plain HTTP; put a TLS proxy on loopback in front of a remote receiver).
Expected<WebhookTarget, std::string> parse_webhook_url(const std::string& url);

class WebhookPusher {
 public:
  // Starts pushing `service`'s feed from its stored position. `log` receives
  // one line per change of state (delivering again after failures, failing).
  WebhookPusher(Service& service, WebhookTarget target, std::function<void(const std::string&)> log);
  ~WebhookPusher();  // stops and joins
  WebhookPusher(const WebhookPusher&) = delete;
  WebhookPusher& operator=(const WebhookPusher&) = delete;

  // Wakes the pusher now (a cycle put decisions on the feed).
  void poke();
  // The last feed entry delivered.
  std::int64_t delivered() const { return delivered_.load(); }

 private:
  void run();
  // Pushes one batch; the reason when it was not delivered.
  std::optional<std::string> push_once(bool& more);

  Service& service_;
  const WebhookTarget target_;
  const std::function<void(const std::string&)> log_;
  std::atomic<std::int64_t> delivered_{0};
  std::mutex mutex_;
  std::condition_variable wake_;
  bool poked_ = false;
  bool stopping_ = false;
  std::thread thread_;
};

// A pass of a driver that does not own its jobs (`allot slurm --serve`):
// what it read and decided, and what it did.
struct ObservedPass {
  Seconds at = 0;
  // The state the pass ranked (running jobs with their contracts, pending
  // jobs, usage and debt) and the cycle's ranking and decisions on it.
  runtime::ClusterState state;
  runtime::CycleResult result;
  runtime::PolicySlot::Running policy;  // the policy the pass ran
  double duration_seconds = 0;
  // What the driver did, in order: one JSON object each, with at least
  // "kind" and "job" (the feed's entries without their seq, cycle and at).
  std::vector<std::string> decisions;
};

// The read model of a driver whose scheduler owns the jobs (Slurm): the last
// pass's jobs, queue and explanations, the feed of what the driver did, each
// account's standing sampled over time, and the policy's history, all in
// memory and bounded. Ended jobs are the scheduler's to tell (sacct); the
// driver's ledger and audit log are the durable record, so a restart starts
// the feed and the chart afresh.
class ObservedCluster final : public ReadModel {
 public:
  struct Limits {
    std::size_t feed = 10000;           // feed entries kept (the oldest go first)
    Seconds sample_every = 300;         // as ServiceOptions::sample_every
    Seconds keep_samples = 14 * 86400;  // samples older than this go
    std::size_t policy_history = 200;   // policy records kept
  };
  // `driver` names it on the dashboard; `policy` runs from `now`.
  ObservedCluster(std::string driver, runtime::PolicySlot::Running policy, std::string source, Seconds now,
                  Limits limits);
  ~ObservedCluster() override;
  ObservedCluster(const ObservedCluster&) = delete;
  ObservedCluster& operator=(const ObservedCluster&) = delete;

  // Publishes a pass: its view, its jobs and queue, its decisions on the feed.
  void publish(ObservedPass pass);
  // A policy change the driver made or refused (PolicyRecord::outcome
  // "swapped" or "refused"); a swap's `policy` runs from now on.
  void record_policy(PolicyRecord record, std::shared_ptr<const CompiledPolicy> policy);

  std::string driver() const override;
  std::shared_ptr<const View> view() const override;
  QueuePage queue(std::size_t offset, std::size_t limit) const override;
  Expected<JobRecord, ApiError> job(const std::string& id) const override;
  Expected<std::vector<JobRecord>, std::string> jobs(const std::string& account, const std::string& phase,
                                                     std::size_t limit) const override;
  Expected<std::vector<std::string>, std::string> decisions_since(std::int64_t since, std::size_t limit) const override;
  Expected<std::vector<std::string>, std::string> decisions_tail(std::size_t count) const override;
  Expected<std::vector<Sample>, std::string> samples(Seconds since, std::size_t limit) const override;
  Expected<std::vector<PolicyRecord>, std::string> policy_history(std::size_t limit) const override;
  runtime::PolicySlot::Running running_policy() const override;
  std::string policy_source() const override;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// How the API is served (allot serve's options; mount_read_api reads only
// max_queue_page and the read rate).
struct ApiOptions {
  std::string token;                  // bearer token for mutating calls; never empty
  std::size_t max_queue_page = 1000;  // GET /queue's largest `limit`
  std::function<Seconds()> clock;     // the service's now
  // Compiles a posted policy off the decision path (POST /policy), with
  // imports confined to the installed stdlib and the server's import path.
  // The service links no compiler: its driver provides this. Unset: POST
  // /policy answers 501.
  std::function<runtime::SwapCandidate(const std::string& source)> compile;
  // Requests a second (and at once) each token may make of the mutating
  // calls, and each client address of the reads; 0: no limit. Past it: 429
  // with Retry-After.
  double write_rate = 0;
  double write_burst = 0;
  double read_rate = 0;
  double read_burst = 0;
  // Told of every POST /policy's outcome (metrics), if set.
  std::function<void(const PolicyChange&)> on_policy_change;
};

// Puts the JSON API and the dashboard on `server` (docs/SERVE.md, "API";
// docs/openapi.yaml). `service` must outlive the server's listening.
void mount_api(http::HttpServer& server, Service& service, ApiOptions options);
// Puts only the reads (every GET route and the dashboard) on `server`, over
// any read model (`allot slurm --serve`). `model` must outlive the listening.
void mount_read_api(http::HttpServer& server, const ReadModel& model, ApiOptions options);

}  // namespace allot::service
