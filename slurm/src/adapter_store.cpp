#include "adapter_store.h"

#include <set>

#include <fmt/format.h>

#include "allot/sqlite_connection.h"

namespace allot::slurm {
namespace {

using runtime::SqliteConnection;
using runtime::Statement;

// Tables of their own beside the ledger's `charges` (docs/SLURM.md "State").
constexpr const char* kCreateSchema = R"sql(
CREATE TABLE IF NOT EXISTS slurm_contracts (
  job_id           INTEGER NOT NULL,
  started          INTEGER NOT NULL,
  account          TEXT    NOT NULL,
  job_class        TEXT    NOT NULL,
  protected_until  INTEGER NOT NULL,
  checkpoint_every INTEGER NOT NULL,
  grace            INTEGER NOT NULL,
  resumable        INTEGER NOT NULL,
  preemptible      INTEGER NOT NULL,
  policy_hash      TEXT    NOT NULL,
  PRIMARY KEY (job_id, started)
);
CREATE TABLE IF NOT EXISTS slurm_preemptions (
  job_id           INTEGER NOT NULL,
  started          INTEGER NOT NULL,
  signalled        INTEGER NOT NULL,
  requeue_at       INTEGER NOT NULL,
  for_job          TEXT    NOT NULL,
  lost_gpu_seconds REAL    NOT NULL,
  PRIMARY KEY (job_id, started)
);
CREATE TABLE IF NOT EXISTS slurm_jobs (
  job_id          INTEGER PRIMARY KEY,
  first_submitted INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS slurm_debt (
  account TEXT    NOT NULL,
  hour    INTEGER NOT NULL,
  amount  REAL    NOT NULL,
  owed    REAL    NOT NULL DEFAULT 0,
  PRIMARY KEY (account, hour)
);
CREATE TABLE IF NOT EXISTS slurm_meta (
  key   TEXT PRIMARY KEY,
  value INTEGER NOT NULL
);
)sql";

void bind_value(const Statement& statement, int index, const std::variant<std::int64_t, double, std::string>& value) {
  sqlite3_stmt* s = statement.get();
  if (const auto* integer = std::get_if<std::int64_t>(&value)) sqlite3_bind_int64(s, index, *integer);
  if (const auto* real = std::get_if<double>(&value)) sqlite3_bind_double(s, index, *real);
  if (const auto* text = std::get_if<std::string>(&value)) {
    sqlite3_bind_text(s, index, text->data(), static_cast<int>(text->size()), SQLITE_TRANSIENT);
  }
}

// Steps through every row of `sql`, calling `row` with the statement.
template <class Row>
std::optional<std::string> each_row(const SqliteConnection& db, const char* sql, Row row) {
  auto statement = db.prepare(sql);
  if (!statement) return statement.error();
  int status = SQLITE_ROW;
  while ((status = sqlite3_step(statement->get())) == SQLITE_ROW) row(statement->get());
  return status == SQLITE_DONE ? std::nullopt : std::optional<std::string>(db.last_error());
}

RunKey run_key(sqlite3_stmt* row) {
  return RunKey{static_cast<std::uint32_t>(sqlite3_column_int64(row, 0)), sqlite3_column_int64(row, 1)};
}

std::string column_text(sqlite3_stmt* row, int column) {
  const unsigned char* text = sqlite3_column_text(row, column);
  return text == nullptr ? std::string() : reinterpret_cast<const char*>(text);
}

}  // namespace

AdapterStore::AdapterStore(std::unique_ptr<SqliteConnection> db) : db_(std::move(db)) {}
AdapterStore::~AdapterStore() = default;

Expected<std::unique_ptr<AdapterStore>, std::string> AdapterStore::open(const std::string& path) {
  auto db = SqliteConnection::open(path);
  if (!db) return unexpected(fmt::format("state `{}`: {}", path, db.error()));
  std::unique_ptr<AdapterStore> store(new AdapterStore(std::move(*db)));
  const SqliteConnection& connection = *store->db_;
  for (const char* sql : {"PRAGMA busy_timeout = 5000", "PRAGMA journal_mode = WAL", "PRAGMA synchronous = FULL"}) {
    if (auto error = connection.execute(sql)) return unexpected(fmt::format("state `{}`: {}", path, *error));
  }
  auto error = store->transaction([&]() -> std::optional<std::string> {
    if (auto failed = connection.execute(kCreateSchema)) return failed;
    // A state file from before `owed` was kept: its hours count their debt as
    // owed (a lower bound: what was delivered in them is not known).
    if (!connection.prepare("SELECT owed FROM slurm_debt LIMIT 0")) {
      if (auto failed = connection.execute("ALTER TABLE slurm_debt ADD COLUMN owed REAL NOT NULL DEFAULT 0")) {
        return failed;
      }
      return connection.execute("UPDATE slurm_debt SET owed = amount");
    }
    return std::nullopt;
  });
  if (!error) error = store->load();
  if (error) return unexpected(fmt::format("state `{}`: {}", path, *error));
  return store;
}

std::optional<std::string> AdapterStore::load() {
  auto error = each_row(*db_,
                        "SELECT job_id, started, account, job_class, protected_until, checkpoint_every, grace, "
                        "resumable, preemptible, policy_hash FROM slurm_contracts",
                        [&](sqlite3_stmt* row) {
                          StoredContract& stored = contracts_[run_key(row)];
                          stored.account = column_text(row, 2);
                          stored.job_class = column_text(row, 3);
                          stored.contract.protected_until = sqlite3_column_int64(row, 4);
                          stored.contract.checkpoint_every = sqlite3_column_int64(row, 5);
                          stored.contract.grace = sqlite3_column_int64(row, 6);
                          stored.contract.resumable = sqlite3_column_int64(row, 7) != 0;
                          stored.contract.preemptible = sqlite3_column_int64(row, 8) != 0;
                          stored.contract.policy_hash = column_text(row, 9);
                        });
  if (!error) {
    error = each_row(
        *db_, "SELECT job_id, started, signalled, requeue_at, for_job, lost_gpu_seconds FROM slurm_preemptions",
        [&](sqlite3_stmt* row) {
          preemptions_[run_key(row)] = StoredPreemption{sqlite3_column_int64(row, 2), sqlite3_column_int64(row, 3),
                                                        column_text(row, 4), sqlite3_column_double(row, 5)};
        });
  }
  if (!error) {
    error = each_row(*db_, "SELECT job_id, first_submitted FROM slurm_jobs", [&](sqlite3_stmt* row) {
      first_submitted_[static_cast<std::uint32_t>(sqlite3_column_int64(row, 0))] = sqlite3_column_int64(row, 1);
    });
  }
  if (!error) {
    error = each_row(*db_, "SELECT account, hour, amount, owed FROM slurm_debt", [&](sqlite3_stmt* row) {
      const std::pair<std::string, Seconds> key{column_text(row, 0), sqlite3_column_int64(row, 1)};
      if (const double debt = sqlite3_column_double(row, 2); debt != 0) debt_hours_[key] = debt;
      if (const double owed = sqlite3_column_double(row, 3); owed != 0) owed_hours_[key] = owed;
    });
  }
  if (!error) {
    error = each_row(*db_, "SELECT value FROM slurm_meta WHERE key = 'last_pass'",
                     [&](sqlite3_stmt* row) { last_pass_ = sqlite3_column_int64(row, 0); });
  }
  if (!error) {
    error = each_row(*db_, "SELECT value FROM slurm_meta WHERE key = 'charge_from'",
                     [&](sqlite3_stmt* row) { charge_from_ = sqlite3_column_int64(row, 0); });
  }
  return error;
}

std::optional<std::string> AdapterStore::run(const char* sql, const std::vector<Value>& values) const {
  auto statement = db_->prepare(sql);
  if (!statement) return statement.error();
  for (std::size_t i = 0; i < values.size(); ++i) bind_value(*statement, static_cast<int>(i + 1), values[i]);
  if (sqlite3_step(statement->get()) != SQLITE_DONE) return db_->last_error();
  return std::nullopt;
}

template <class Body>
std::optional<std::string> AdapterStore::transaction(Body body) const {
  if (auto error = db_->execute("BEGIN IMMEDIATE")) return error;
  std::optional<std::string> error = body();
  if (!error) error = db_->execute("COMMIT");
  if (error) db_->execute("ROLLBACK");
  return error;
}

std::optional<std::string> AdapterStore::add_contracts(
    const std::vector<std::pair<RunKey, StoredContract>>& contracts) {
  if (contracts.empty()) return std::nullopt;
  auto error = transaction([&]() -> std::optional<std::string> {
    for (const auto& [run_of, stored] : contracts) {
      const runtime::Contract& c = stored.contract;
      if (auto failed = run(
              "INSERT OR REPLACE INTO slurm_contracts (job_id, started, account, job_class, "
              "protected_until, checkpoint_every, grace, resumable, preemptible, policy_hash) "
              "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)",
              {std::int64_t{run_of.job}, run_of.started, stored.account, stored.job_class, c.protected_until,
               c.checkpoint_every, c.grace, std::int64_t{c.resumable}, std::int64_t{c.preemptible}, c.policy_hash})) {
        return failed;
      }
    }
    return std::nullopt;
  });
  if (error) return error;
  for (const auto& [run_of, stored] : contracts) contracts_[run_of] = stored;
  return std::nullopt;
}

std::optional<std::string> AdapterStore::add_preemption(const RunKey& run_of, const StoredPreemption& preemption) {
  auto error = run(
      "INSERT OR REPLACE INTO slurm_preemptions (job_id, started, signalled, requeue_at, for_job, lost_gpu_seconds) "
      "VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
      {std::int64_t{run_of.job}, run_of.started, preemption.signalled, preemption.requeue_at, preemption.for_job,
       preemption.lost_gpu_seconds});
  if (!error) preemptions_[run_of] = preemption;
  return error;
}

std::optional<std::string> AdapterStore::remove_preemption(const RunKey& run_of) {
  auto error = run("DELETE FROM slurm_preemptions WHERE job_id = ?1 AND started = ?2",
                   {std::int64_t{run_of.job}, run_of.started});
  if (!error) preemptions_.erase(run_of);
  return error;
}

std::optional<std::string> AdapterStore::set_first_submitted(
    const std::vector<std::pair<std::uint32_t, Seconds>>& jobs) {
  if (jobs.empty()) return std::nullopt;
  auto error = transaction([&]() -> std::optional<std::string> {
    for (const auto& [job, submitted] : jobs) {
      if (auto failed = run("INSERT OR REPLACE INTO slurm_jobs (job_id, first_submitted) VALUES (?1, ?2)",
                            {std::int64_t{job}, submitted})) {
        return failed;
      }
    }
    return std::nullopt;
  });
  if (error) return error;
  for (const auto& [job, submitted] : jobs) first_submitted_[job] = submitted;
  return std::nullopt;
}

std::optional<std::string> AdapterStore::record_pass(Seconds now, const runtime::DebtHours& debt,
                                                     const runtime::DebtHours& owed, Seconds oldest_hour) {
  std::map<std::pair<std::string, Seconds>, std::pair<double, double>> rows;  // (debt, owed)
  for (const auto& [key, amount] : debt) rows[key].first += amount;
  for (const auto& [key, amount] : owed) rows[key].second += amount;
  auto error = transaction([&]() -> std::optional<std::string> {
    for (const auto& [key, amounts] : rows) {
      if (auto failed = run("INSERT INTO slurm_debt (account, hour, amount, owed) VALUES (?1, ?2, ?3, ?4) "
                            "ON CONFLICT (account, hour) DO UPDATE SET amount = amount + excluded.amount, "
                            "owed = owed + excluded.owed",
                            {key.first, key.second, amounts.first, amounts.second})) {
        return failed;
      }
    }
    if (auto failed = run("DELETE FROM slurm_debt WHERE hour < ?1", {oldest_hour})) return failed;
    return run("INSERT OR REPLACE INTO slurm_meta (key, value) VALUES ('last_pass', ?1)", {now});
  });
  if (error) return error;
  for (const auto& [key, amount] : debt) debt_hours_[key] += amount;
  for (const auto& [key, amount] : owed) owed_hours_[key] += amount;
  for (auto* hours : {&debt_hours_, &owed_hours_}) {
    std::erase_if(*hours, [&](const auto& entry) { return entry.first.second < oldest_hour; });
  }
  last_pass_ = now;
  return std::nullopt;
}

std::optional<std::string> AdapterStore::set_charge_from(Seconds from) {
  if (auto error = run("INSERT OR REPLACE INTO slurm_meta (key, value) VALUES ('charge_from', ?1)", {from})) {
    return error;
  }
  charge_from_ = from;
  return std::nullopt;
}

std::optional<std::string> AdapterStore::forget_except(const std::vector<std::uint32_t>& alive) {
  const std::set<std::uint32_t> keep(alive.begin(), alive.end());
  std::set<std::uint32_t> gone;
  for (const auto& [run_of, stored] : contracts_) {
    if (!keep.count(run_of.job)) gone.insert(run_of.job);
  }
  for (const auto& [run_of, stored] : preemptions_) {
    if (!keep.count(run_of.job)) gone.insert(run_of.job);
  }
  for (const auto& [job, submitted] : first_submitted_) {
    if (!keep.count(job)) gone.insert(job);
  }
  if (gone.empty()) return std::nullopt;
  auto error = transaction([&]() -> std::optional<std::string> {
    for (std::uint32_t job : gone) {
      for (const char* sql :
           {"DELETE FROM slurm_contracts WHERE job_id = ?1", "DELETE FROM slurm_preemptions WHERE job_id = ?1",
            "DELETE FROM slurm_jobs WHERE job_id = ?1"}) {
        if (auto failed = run(sql, {std::int64_t{job}})) return failed;
      }
    }
    return std::nullopt;
  });
  if (error) return error;
  std::erase_if(contracts_, [&](const auto& entry) { return gone.count(entry.first.job) > 0; });
  std::erase_if(preemptions_, [&](const auto& entry) { return gone.count(entry.first.job) > 0; });
  std::erase_if(first_submitted_, [&](const auto& entry) { return gone.count(entry.first) > 0; });
  return std::nullopt;
}

std::optional<std::string> copy_database(const std::string& from, const std::string& to) {
  sqlite3* source = nullptr;
  sqlite3* target = nullptr;
  std::optional<std::string> error;
  if (sqlite3_open_v2(from.c_str(), &source, SQLITE_OPEN_READONLY, nullptr) != SQLITE_OK) {
    error = fmt::format("cannot read `{}`: {}", from, sqlite3_errmsg(source));
  } else if (sqlite3_open_v2(to.c_str(), &target, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nullptr) != SQLITE_OK) {
    error = fmt::format("cannot create `{}`: {}", to, sqlite3_errmsg(target));
  } else if (sqlite3_backup* backup = sqlite3_backup_init(target, "main", source, "main")) {
    sqlite3_backup_step(backup, -1);
    if (sqlite3_backup_finish(backup) != SQLITE_OK)
      error = fmt::format("cannot copy `{}`: {}", from, sqlite3_errmsg(target));
  } else {
    error = fmt::format("cannot copy `{}`: {}", from, sqlite3_errmsg(target));
  }
  sqlite3_close_v2(source);
  sqlite3_close_v2(target);
  return error;
}

}  // namespace allot::slurm
