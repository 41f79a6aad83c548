// The service's durable state, in the same SQLite file as its usage ledger
// (docs/SERVE.md "State"): every job with its current record, every accepted
// submission and event (the log a client's acknowledgement stands for), the
// decision feed executors pull, node states set through the API, the
// entitlement book's hours, and the policy history. A write is one
// transaction; a caller acknowledges only after it returns without error.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "allot/accounting.h"
#include "allot/durable_ledger.h"
#include "allot/expected.h"
#include "allot/service.h"

namespace allot::runtime {
class SqliteConnection;
}

namespace allot::service {

using runtime::Seconds;

// A job's row: its id, its place in submission order, its phase and its record (JSON, job_json.h).
struct StoredJob {
  std::string id;
  std::int64_t seq = 0;
  std::string phase;
  std::string record;
};

// One entry of the decision feed.
struct StoredDecision {
  std::int64_t seq = 0;
  std::int64_t cycle = 0;
  Seconds at = 0;
  std::string kind;
  std::string job_id;
  std::string record;  // JSON
};

// One accepted submission or event, as it arrived.
struct StoredEvent {
  Seconds at = 0;
  std::string kind;
  std::string job_id;
  std::string body;  // JSON
};

// The policy history and the samples are the public PolicyRecord and Sample.
using StoredPolicy = PolicyRecord;
using StoredSample = Sample;

// Everything one write changes, committed together.
struct Write {
  std::vector<StoredEvent> events;
  std::vector<StoredJob> jobs;  // upserted by id (seq kept from the first insert)
  std::vector<StoredDecision> decisions;
  std::vector<std::pair<std::string, std::string>> nodes;  // (name, state)
  std::vector<std::pair<std::string, std::string>> meta;   // (key, value)
  runtime::DebtHours debt;                                 // added to the stored hours
  runtime::DebtHours owed;
  std::optional<Seconds> forget_hours_before;  // drop hours before this hour index
  std::vector<StoredSample> samples;
};

class Store {
 public:
  // Opens (creating the tables if needed) the database at `path`.
  static Expected<std::unique_ptr<Store>, std::string> open(const std::string& path, runtime::Durability durability);
  ~Store();
  Store(const Store&) = delete;
  Store& operator=(const Store&) = delete;

  // Commits `write` in one transaction; the reason on failure (then nothing of it is stored).
  std::optional<std::string> commit(const Write& write);
  // Commits every one of `writes` in one transaction (a group commit): all or none.
  std::optional<std::string> commit_all(const std::vector<const Write*>& writes);

  // Jobs not yet ended (pending or running), in submission order.
  Expected<std::vector<StoredJob>, std::string> live_jobs() const;
  // One job's row, whatever its phase.
  Expected<std::optional<StoredJob>, std::string> job(const std::string& id) const;
  // Job ids, newest first, at most `limit` (suggestions; every id at open).
  Expected<std::vector<std::string>, std::string> job_ids(std::int64_t limit) const;
  // The greatest job sequence number so far (0 when none).
  Expected<std::int64_t, std::string> last_job_seq() const;
  // Decisions with seq > `since`, at most `limit`, oldest first.
  Expected<std::vector<StoredDecision>, std::string> decisions_since(std::int64_t since, std::size_t limit) const;
  // The last `count` decisions, oldest first.
  Expected<std::vector<StoredDecision>, std::string> decisions_tail(std::size_t count) const;
  // Jobs of `account` (any when empty) in `phase` (any when empty), newest first, at most `limit`.
  Expected<std::vector<StoredJob>, std::string> jobs_where(const std::string& account, const std::string& phase,
                                                           std::size_t limit) const;
  // Samples taken at or after `since`, oldest first, at most `limit` rows.
  Expected<std::vector<StoredSample>, std::string> samples(Seconds since, std::size_t limit) const;
  Expected<std::vector<std::pair<std::string, std::string>>, std::string> nodes() const;
  Expected<std::optional<std::string>, std::string> meta(const std::string& key) const;
  Expected<runtime::DebtHours, std::string> debt_hours() const;
  Expected<runtime::DebtHours, std::string> owed_hours() const;
  // Appends a policy to the history; returns its row.
  std::optional<std::string> add_policy(const StoredPolicy& policy);
  // The history, newest first, at most `limit` (`source` included).
  Expected<std::vector<StoredPolicy>, std::string> policies(std::size_t limit) const;
  // Counts of stored events (for tests and /metrics).
  Expected<std::int64_t, std::string> event_count() const;

 private:
  explicit Store(std::unique_ptr<runtime::SqliteConnection> db);
  // Amounts per (account, hour) from a query selecting account, hour, amount.
  Expected<runtime::DebtHours, std::string> hours(const char* sql) const;
  mutable std::mutex mutex_;  // one statement or transaction at a time on the connection
  std::unique_ptr<runtime::SqliteConnection> db_;
};

}  // namespace allot::service
