#include "store.h"

#include <algorithm>
#include <mutex>
#include <variant>

#include <fmt/format.h>

#include "allot/sqlite_connection.h"

namespace allot::service {
namespace {

using runtime::SqliteConnection;
using runtime::Statement;

// Tables of their own beside the ledger's `charges` (docs/SERVE.md "State").
constexpr const char* kCreateSchema = R"sql(
CREATE TABLE IF NOT EXISTS serve_jobs (
  id      TEXT    PRIMARY KEY,
  seq     INTEGER NOT NULL UNIQUE,
  phase   TEXT    NOT NULL,
  record  TEXT    NOT NULL
);
CREATE INDEX IF NOT EXISTS serve_jobs_phase ON serve_jobs (phase, seq);
CREATE TABLE IF NOT EXISTS serve_events (
  seq     INTEGER PRIMARY KEY AUTOINCREMENT,
  at      INTEGER NOT NULL,
  kind    TEXT    NOT NULL,
  job_id  TEXT    NOT NULL,
  body    TEXT    NOT NULL
);
CREATE TABLE IF NOT EXISTS serve_decisions (
  seq     INTEGER PRIMARY KEY AUTOINCREMENT,
  cycle   INTEGER NOT NULL,
  at      INTEGER NOT NULL,
  kind    TEXT    NOT NULL,
  job_id  TEXT    NOT NULL,
  record  TEXT    NOT NULL
);
CREATE TABLE IF NOT EXISTS serve_nodes (
  name    TEXT PRIMARY KEY,
  state   TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS serve_hours (
  account TEXT    NOT NULL,
  hour    INTEGER NOT NULL,
  debt    REAL    NOT NULL,
  owed    REAL    NOT NULL,
  PRIMARY KEY (account, hour)
);
CREATE TABLE IF NOT EXISTS serve_policies (
  seq        INTEGER PRIMARY KEY AUTOINCREMENT,
  generation INTEGER NOT NULL,
  at         INTEGER NOT NULL,
  hash       TEXT    NOT NULL,
  outcome    TEXT    NOT NULL,
  message    TEXT    NOT NULL,
  source     TEXT    NOT NULL
);
CREATE TABLE IF NOT EXISTS serve_samples (
  at        INTEGER NOT NULL,
  account   TEXT    NOT NULL,
  share     REAL    NOT NULL,
  usage     REAL    NOT NULL,
  owed      REAL    NOT NULL,
  delivered REAL    NOT NULL,
  debt      REAL    NOT NULL,
  PRIMARY KEY (at, account)
);
CREATE TABLE IF NOT EXISTS serve_meta (
  key     TEXT PRIMARY KEY,
  value   TEXT NOT NULL
);
)sql";

using Value = std::variant<std::int64_t, double, std::string>;

void bind_values(const Statement& statement, const std::vector<Value>& values) {
  sqlite3_stmt* s = statement.get();
  int index = 1;
  for (const Value& value : values) {
    if (const auto* integer = std::get_if<std::int64_t>(&value)) sqlite3_bind_int64(s, index, *integer);
    if (const auto* real = std::get_if<double>(&value)) sqlite3_bind_double(s, index, *real);
    if (const auto* text = std::get_if<std::string>(&value)) {
      sqlite3_bind_text(s, index, text->data(), static_cast<int>(text->size()), SQLITE_TRANSIENT);
    }
    ++index;
  }
}

std::optional<std::string> run(const SqliteConnection& db, const char* sql, const std::vector<Value>& values) {
  auto statement = db.prepare(sql);
  if (!statement) return statement.error();
  bind_values(*statement, values);
  if (sqlite3_step(statement->get()) != SQLITE_DONE) return db.last_error();
  return std::nullopt;
}

// Steps through every row of `sql` with `values` bound, calling `row` with the statement.
template <class Row>
std::optional<std::string> each_row(const SqliteConnection& db, const char* sql, const std::vector<Value>& values,
                                    Row row) {
  auto statement = db.prepare(sql);
  if (!statement) return statement.error();
  bind_values(*statement, values);
  int status = SQLITE_ROW;
  while ((status = sqlite3_step(statement->get())) == SQLITE_ROW) row(*statement);
  return status == SQLITE_DONE ? std::nullopt : std::optional<std::string>(db.last_error());
}

StoredJob job_row(const Statement& row) {
  return StoredJob{row.text(0), sqlite3_column_int64(row.get(), 1), row.text(2), row.text(3)};
}

template <class T>
Expected<T, std::string> or_error(std::optional<std::string> error, T value) {
  if (error) return unexpected(std::move(*error));
  return value;
}

}  // namespace

Store::Store(std::unique_ptr<SqliteConnection> db) : db_(std::move(db)) {}
Store::~Store() = default;

Expected<std::unique_ptr<Store>, std::string> Store::open(const std::string& path, runtime::Durability durability) {
  auto db = SqliteConnection::open(path);
  if (!db) return unexpected(fmt::format("{}: {}", path, db.error()));
  auto mode = (*db)->query_text("PRAGMA journal_mode = WAL");
  if (!mode) return unexpected(fmt::format("{}: {}", path, mode.error()));
  const char* sync =
      durability == runtime::Durability::power_loss ? "PRAGMA synchronous = FULL" : "PRAGMA synchronous = NORMAL";
  for (const char* sql : {sync, "PRAGMA busy_timeout = 5000", kCreateSchema}) {
    if (auto error = (*db)->execute(sql)) return unexpected(fmt::format("{}: {}", path, *error));
  }
  return std::unique_ptr<Store>(new Store(std::move(*db)));
}

std::optional<std::string> Store::commit(const Write& write) { return commit_all({&write}); }

std::optional<std::string> Store::commit_all(const std::vector<const Write*>& writes) {
  std::lock_guard lock(mutex_);
  const SqliteConnection& db = *db_;
  if (auto error = db.execute("BEGIN IMMEDIATE")) return error;
  auto store = [&](const Write& write) -> std::optional<std::string> {
    for (const StoredEvent& event : write.events) {
      if (auto error = run(db, "INSERT INTO serve_events (at, kind, job_id, body) VALUES (?1, ?2, ?3, ?4)",
                           {event.at, event.kind, event.job_id, event.body})) {
        return error;
      }
    }
    for (const StoredJob& job : write.jobs) {
      if (auto error = run(db,
                           "INSERT INTO serve_jobs (id, seq, phase, record) VALUES (?1, ?2, ?3, ?4) "
                           "ON CONFLICT (id) DO UPDATE SET phase = excluded.phase, record = excluded.record",
                           {job.id, job.seq, job.phase, job.record})) {
        return error;
      }
    }
    for (const StoredDecision& decision : write.decisions) {
      if (auto error =
              run(db, "INSERT INTO serve_decisions (cycle, at, kind, job_id, record) VALUES (?1, ?2, ?3, ?4, ?5)",
                  {decision.cycle, decision.at, decision.kind, decision.job_id, decision.record})) {
        return error;
      }
    }
    for (const auto& [name, state] : write.nodes) {
      if (auto error = run(db,
                           "INSERT INTO serve_nodes (name, state) VALUES (?1, ?2) "
                           "ON CONFLICT (name) DO UPDATE SET state = excluded.state",
                           {name, state})) {
        return error;
      }
    }
    for (const auto& [key, value] : write.meta) {
      if (auto error = run(db,
                           "INSERT INTO serve_meta (key, value) VALUES (?1, ?2) "
                           "ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                           {key, value})) {
        return error;
      }
    }
    const char* add_hour =
        "INSERT INTO serve_hours (account, hour, debt, owed) VALUES (?1, ?2, ?3, ?4) "
        "ON CONFLICT (account, hour) DO UPDATE SET debt = debt + excluded.debt, owed = owed + excluded.owed";
    for (const auto& [key, amount] : write.debt) {
      if (auto error = run(db, add_hour, {key.first, key.second, amount, 0.0})) return error;
    }
    for (const auto& [key, amount] : write.owed) {
      if (auto error = run(db, add_hour, {key.first, key.second, 0.0, amount})) return error;
    }
    for (const StoredSample& sample : write.samples) {
      if (auto error = run(
              db,
              "INSERT OR REPLACE INTO serve_samples (at, account, share, usage, owed, delivered, debt) "
              "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
              {sample.at, sample.account, sample.share, sample.usage, sample.owed, sample.delivered, sample.debt})) {
        return error;
      }
    }
    if (write.forget_hours_before) {
      if (auto error = run(db, "DELETE FROM serve_hours WHERE hour < ?1", {*write.forget_hours_before})) return error;
    }
    return std::nullopt;
  };
  auto body = [&]() -> std::optional<std::string> {
    for (const Write* write : writes) {
      if (auto error = store(*write)) return error;
    }
    return std::nullopt;
  };
  if (auto error = body()) {
    db.execute("ROLLBACK");
    return error;
  }
  if (auto error = db.execute("COMMIT")) {
    db.execute("ROLLBACK");
    return error;
  }
  return std::nullopt;
}

Expected<std::vector<StoredJob>, std::string> Store::live_jobs() const {
  std::lock_guard lock(mutex_);
  std::vector<StoredJob> jobs;
  auto error =
      each_row(*db_, "SELECT id, seq, phase, record FROM serve_jobs WHERE phase IN ('pending', 'running') ORDER BY seq",
               {}, [&](const Statement& row) { jobs.push_back(job_row(row)); });
  return or_error(std::move(error), std::move(jobs));
}

Expected<std::optional<StoredJob>, std::string> Store::job(const std::string& id) const {
  std::lock_guard lock(mutex_);
  std::optional<StoredJob> job;
  auto error = each_row(*db_, "SELECT id, seq, phase, record FROM serve_jobs WHERE id = ?1", {id},
                        [&](const Statement& row) { job = job_row(row); });
  return or_error(std::move(error), std::move(job));
}

Expected<std::vector<std::string>, std::string> Store::job_ids(std::int64_t limit) const {
  std::lock_guard lock(mutex_);
  std::vector<std::string> ids;
  auto error = each_row(*db_, "SELECT id FROM serve_jobs ORDER BY seq DESC LIMIT ?1", {limit},
                        [&](const Statement& row) { ids.push_back(row.text(0)); });
  return or_error(std::move(error), std::move(ids));
}

Expected<std::int64_t, std::string> Store::last_job_seq() const {
  std::lock_guard lock(mutex_);
  return db_->query_integer("SELECT COALESCE(MAX(seq), 0) FROM serve_jobs");
}

Expected<std::vector<StoredDecision>, std::string> Store::decisions_since(std::int64_t since, std::size_t limit) const {
  std::lock_guard lock(mutex_);
  std::vector<StoredDecision> decisions;
  auto error = each_row(
      *db_,
      "SELECT seq, cycle, at, kind, job_id, record FROM serve_decisions WHERE seq > ?1 "
      "ORDER BY seq LIMIT ?2",
      {since, static_cast<std::int64_t>(limit)}, [&](const Statement& row) {
        decisions.push_back(StoredDecision{sqlite3_column_int64(row.get(), 0), sqlite3_column_int64(row.get(), 1),
                                           sqlite3_column_int64(row.get(), 2), row.text(3), row.text(4), row.text(5)});
      });
  return or_error(std::move(error), std::move(decisions));
}

Expected<std::vector<StoredDecision>, std::string> Store::decisions_tail(std::size_t count) const {
  std::int64_t last = 0;
  {
    std::lock_guard lock(mutex_);
    auto max = db_->query_integer("SELECT COALESCE(MAX(seq), 0) FROM serve_decisions");
    if (!max) return unexpected(max.error());
    last = *max;
  }
  return decisions_since(std::max<std::int64_t>(0, last - static_cast<std::int64_t>(count)), count);
}

Expected<std::vector<StoredJob>, std::string> Store::jobs_where(const std::string& account, const std::string& phase,
                                                                std::size_t limit) const {
  std::lock_guard lock(mutex_);
  std::vector<StoredJob> jobs;
  auto error = each_row(*db_,
                        "SELECT id, seq, phase, record FROM serve_jobs "
                        "WHERE (?1 = '' OR json_extract(record, '$.request.account') = ?1) AND (?2 = '' OR phase = ?2) "
                        "ORDER BY seq DESC LIMIT ?3",
                        {account, phase, static_cast<std::int64_t>(limit)},
                        [&](const Statement& row) { jobs.push_back(job_row(row)); });
  return or_error(std::move(error), std::move(jobs));
}

Expected<std::vector<StoredSample>, std::string> Store::samples(Seconds since, std::size_t limit) const {
  std::lock_guard lock(mutex_);
  std::vector<StoredSample> samples;
  auto error =
      each_row(*db_,
               "SELECT at, account, share, usage, owed, delivered, debt FROM ("
               "  SELECT * FROM serve_samples WHERE at >= ?1 ORDER BY at DESC LIMIT ?2"
               ") ORDER BY at, account",
               {since, static_cast<std::int64_t>(limit)}, [&](const Statement& row) {
                 sqlite3_stmt* s = row.get();
                 samples.push_back(StoredSample{sqlite3_column_int64(s, 0), row.text(1), sqlite3_column_double(s, 2),
                                                sqlite3_column_double(s, 3), sqlite3_column_double(s, 4),
                                                sqlite3_column_double(s, 5), sqlite3_column_double(s, 6)});
               });
  return or_error(std::move(error), std::move(samples));
}

Expected<std::vector<std::pair<std::string, std::string>>, std::string> Store::nodes() const {
  std::lock_guard lock(mutex_);
  std::vector<std::pair<std::string, std::string>> nodes;
  auto error = each_row(*db_, "SELECT name, state FROM serve_nodes ORDER BY name", {},
                        [&](const Statement& row) { nodes.emplace_back(row.text(0), row.text(1)); });
  return or_error(std::move(error), std::move(nodes));
}

Expected<std::optional<std::string>, std::string> Store::meta(const std::string& key) const {
  std::lock_guard lock(mutex_);
  std::optional<std::string> value;
  auto error = each_row(*db_, "SELECT value FROM serve_meta WHERE key = ?1", {key},
                        [&](const Statement& row) { value = row.text(0); });
  return or_error(std::move(error), std::move(value));
}

Expected<runtime::DebtHours, std::string> Store::hours(const char* sql) const {
  std::lock_guard lock(mutex_);
  runtime::DebtHours hours;
  auto error = each_row(*db_, sql, {}, [&](const Statement& row) {
    hours[{row.text(0), sqlite3_column_int64(row.get(), 1)}] = sqlite3_column_double(row.get(), 2);
  });
  return or_error(std::move(error), std::move(hours));
}

Expected<runtime::DebtHours, std::string> Store::debt_hours() const {
  return hours("SELECT account, hour, debt FROM serve_hours WHERE debt != 0");
}

Expected<runtime::DebtHours, std::string> Store::owed_hours() const {
  return hours("SELECT account, hour, owed FROM serve_hours WHERE owed != 0");
}

std::optional<std::string> Store::add_policy(const StoredPolicy& policy) {
  std::lock_guard lock(mutex_);
  return run(
      *db_,
      "INSERT INTO serve_policies (generation, at, hash, outcome, message, source) VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
      {policy.generation, policy.at, policy.hash, policy.outcome, policy.message, policy.source});
}

Expected<std::vector<StoredPolicy>, std::string> Store::policies(std::size_t limit) const {
  std::lock_guard lock(mutex_);
  std::vector<StoredPolicy> policies;
  auto error =
      each_row(*db_,
               "SELECT generation, at, hash, outcome, message, source FROM serve_policies "
               "ORDER BY seq DESC LIMIT ?1",
               {static_cast<std::int64_t>(limit)}, [&](const Statement& row) {
                 policies.push_back(StoredPolicy{sqlite3_column_int64(row.get(), 0), sqlite3_column_int64(row.get(), 1),
                                                 row.text(2), row.text(3), row.text(4), row.text(5)});
               });
  return or_error(std::move(error), std::move(policies));
}

Expected<std::int64_t, std::string> Store::event_count() const {
  std::lock_guard lock(mutex_);
  return db_->query_integer("SELECT COUNT(*) FROM serve_events");
}

}  // namespace allot::service
