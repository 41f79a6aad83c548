#include "allot/durable_ledger.h"

#include "allot/duration.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <unordered_map>

#include <fmt/format.h>

#include "allot/sqlite_connection.h"
#include "allot/text.h"

namespace allot::runtime {
namespace {

constexpr std::int64_t kSchemaVersion = 2;

// One row per counted interval, appended in commit order. (job_id,
// charged_until) is the idempotency key, enforced by the database as well as
// by the in-memory marks; `amount` is what the interval cost when stored.
// (A rowid table with a unique index inserts ~25% faster than a WITHOUT ROWID
// table keyed by the same pair: rows are appended, only the index is random.)
constexpr const char* kCreateSchema = R"sql(
BEGIN;
CREATE TABLE IF NOT EXISTS charges (
  job_id        TEXT    NOT NULL,
  charged_until INTEGER NOT NULL,
  charged_from  INTEGER NOT NULL,
  account       TEXT    NOT NULL,
  gpu_type      TEXT    NOT NULL,
  gpus          REAL    NOT NULL,
  cpus          REAL    NOT NULL,
  memory_gib    REAL    NOT NULL,
  amount        REAL    NOT NULL,
  without_progress INTEGER NOT NULL DEFAULT 0,
  UNIQUE (job_id, charged_until)
);
PRAGMA user_version = 2;
COMMIT;
)sql";

// Version 1 had no `without_progress`: its rows were all held with progress.
constexpr const char* kUpgradeFrom1 = R"sql(
BEGIN;
ALTER TABLE charges ADD COLUMN without_progress INTEGER NOT NULL DEFAULT 0;
PRAGMA user_version = 2;
COMMIT;
)sql";

constexpr const char* kInsert =
    "INSERT OR IGNORE INTO charges (job_id, charged_until, charged_from, account, gpu_type, gpus, cpus, memory_gib, "
    "amount, without_progress) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)";

constexpr const char* kSelectAll =
    "SELECT job_id, charged_until, charged_from, account, gpu_type, gpus, cpus, memory_gib, without_progress "
    "FROM charges "
    "ORDER BY rowid";  // the order they were committed in: no sort

using Failure = Unexpected<LedgerError>;

Failure failure(const std::string& path, const std::string& reason) {
  // SQLite's messages quote the file's bytes (a damaged schema): never raw to a terminal.
  return Failure{LedgerError{support::printable(fmt::format("ledger `{}`: {}", path, reason))}};
}

std::optional<std::string> configure(const SqliteConnection& db, Durability durability) {
  auto mode = db.query_text("PRAGMA journal_mode = WAL");
  if (!mode) return mode.error();
  if (*mode != "wal") return fmt::format("cannot switch the journal to WAL mode (got `{}`)", *mode);
  const char* sync = durability == Durability::power_loss ? "PRAGMA synchronous = FULL" : "PRAGMA synchronous = NORMAL";
  if (auto error = db.execute(sync)) return error;
  // A 64 MiB page cache keeps a week of charges' pages in memory (SQLite's default is 2 MiB).
  if (auto error = db.execute("PRAGMA cache_size = -65536")) return error;
  return db.execute("PRAGMA busy_timeout = 5000");
}

std::optional<std::string> ensure_schema(const SqliteConnection& db) {
  auto version = db.query_integer("PRAGMA user_version");
  if (!version) return version.error();
  if (*version > kSchemaVersion) {
    return fmt::format("schema version {} is newer than this program understands ({})", *version, kSchemaVersion);
  }
  if (*version == 1) return db.execute(kUpgradeFrom1);
  return *version == kSchemaVersion ? std::nullopt : db.execute(kCreateSchema);
}

Charge read_charge(const Statement& row) {
  sqlite3_stmt* s = row.get();
  Charge charge;
  charge.job_id = row.text(0);
  charge.until = sqlite3_column_int64(s, 1);
  charge.from = sqlite3_column_int64(s, 2);
  charge.account = row.text(3);
  charge.resources =
      ResourceUse{row.text(4), sqlite3_column_double(s, 5), sqlite3_column_double(s, 6), sqlite3_column_double(s, 7)};
  charge.without_progress = sqlite3_column_int64(s, 8) != 0;
  return charge;
}

// A stored row that no adapter could have written (a damaged or edited file):
// the ledger refuses to open rather than count it. Times are those a snapshot
// accepts (1970 to 9999); amounts are finite, never negative, at most a
// million of each resource.
std::optional<std::string> row_problem(const Charge& charge, std::int64_t row) {
  constexpr Seconds kLatest = support::kLatestEpochSeconds;
  constexpr double kMostPerJob = 1e6;
  const auto amount_ok = [&](double value) { return std::isfinite(value) && value >= 0 && value <= kMostPerJob; };
  std::string problem;
  if (charge.job_id.empty())
    problem = "it has no job id";
  else if (charge.account.empty())
    problem = "it has no account";
  else if (charge.from < 0 || charge.until > kLatest || charge.from >= charge.until)
    problem = fmt::format("its interval [{}, {}) is empty or outside 1970 to 9999", charge.from, charge.until);
  else if (!amount_ok(charge.resources.gpus) || !amount_ok(charge.resources.cpus) ||
           !amount_ok(charge.resources.memory_gib))
    problem = fmt::format("its resources ({} GPUs, {} CPUs, {} GiB) are not between 0 and 1000000",
                          charge.resources.gpus, charge.resources.cpus, charge.resources.memory_gib);
  if (problem.empty()) return std::nullopt;
  return fmt::format("charge row {} (job `{}`) cannot be right: {}; the ledger is damaged, restore it from a backup",
                     row, charge.job_id, problem);
}

void bind_charge(const Statement& insert, const Charge& charge, double amount) {
  sqlite3_stmt* s = insert.get();
  sqlite3_bind_text(s, 1, charge.job_id.data(), static_cast<int>(charge.job_id.size()), SQLITE_STATIC);
  sqlite3_bind_int64(s, 2, charge.until);
  sqlite3_bind_int64(s, 3, charge.from);
  sqlite3_bind_text(s, 4, charge.account.data(), static_cast<int>(charge.account.size()), SQLITE_STATIC);
  const std::string& gpu_type = charge.resources.gpu_type;
  sqlite3_bind_text(s, 5, gpu_type.data(), static_cast<int>(gpu_type.size()), SQLITE_STATIC);
  sqlite3_bind_double(s, 6, charge.resources.gpus);
  sqlite3_bind_double(s, 7, charge.resources.cpus);
  sqlite3_bind_double(s, 8, charge.resources.memory_gib);
  sqlite3_bind_double(s, 9, amount);
  sqlite3_bind_int64(s, 10, charge.without_progress ? 1 : 0);
}

}  // namespace

struct DurableLedger::Database {
  std::string path;
  std::unique_ptr<SqliteConnection> connection;
  Statement insert;
};

DurableLedger::DurableLedger(std::unique_ptr<Database> database, LedgerConfig config)
    : database_(std::move(database)), ledger_(config), without_progress_(config) {}

double DurableLedger::count(const Charge& interval) {
  if (interval.without_progress) without_progress_.add(interval);
  return ledger_.add(interval);
}

DurableLedger::~DurableLedger() = default;

Expected<std::unique_ptr<DurableLedger>, LedgerError> DurableLedger::open(const std::string& path, LedgerConfig config,
                                                                          Durability durability) {
  if (auto problem = config_problem(config)) return failure(path, *problem);
  auto connection = SqliteConnection::open(path);
  if (!connection) return failure(path, connection.error());
  const SqliteConnection& db = **connection;
  if (auto error = configure(db, durability)) return failure(path, *error);
  if (auto error = ensure_schema(db)) return failure(path, *error);
  auto insert = db.prepare(kInsert);
  if (!insert) return failure(path, insert.error());
  auto rows = db.prepare(kSelectAll);
  if (!rows) return failure(path, rows.error());
  auto database = std::make_unique<Database>(Database{path, std::move(*connection), std::move(*insert)});
  std::unique_ptr<DurableLedger> ledger(new DurableLedger(std::move(database), std::move(config)));
  int status = SQLITE_ROW;
  for (std::int64_t row = 1; (status = sqlite3_step(rows->get())) == SQLITE_ROW; ++row) {
    Charge charge = read_charge(*rows);
    if (auto problem = row_problem(charge, row)) return failure(path, *problem);
    ledger->count(charge);
  }
  if (status != SQLITE_DONE) return failure(path, db.last_error());
  return ledger;
}

Expected<double, LedgerError> DurableLedger::charge(const Charge& charge) {
  return store_and_count(std::span<const Charge>(&charge, 1));
}

Expected<double, LedgerError> DurableLedger::charge_batch(std::span<const Charge> charges) {
  return store_and_count(charges);
}

// The part of `charge` that neither memory nor an earlier charge of the same
// job in this batch has counted, or nullopt.
std::optional<Charge> DurableLedger::new_part(const Charge& charge, const BatchMarks& batch_marks) const {
  std::optional<Charge> part = ledger_.uncounted_part(charge);
  const auto mark = batch_marks.find(charge.job_id);
  if (part && mark != batch_marks.end()) part->from = std::max(part->from, mark->second);
  if (!part || part->until <= part->from) return std::nullopt;
  return part;
}

// Inserts one row; false when its key is already stored (a replay).
Expected<bool, LedgerError> DurableLedger::insert_row(const Charge& part) {
  const SqliteConnection& db = *database_->connection;
  const double hours = static_cast<double>(part.until - part.from) / 3600.0;
  bind_charge(database_->insert, part, ledger_.config().unit.rate_per_hour(part.resources) * hours);
  const int status = sqlite3_step(database_->insert.get());
  const bool inserted = status == SQLITE_DONE && db.changes() == 1;
  database_->insert.reset();
  if (status != SQLITE_DONE) return failure(database_->path, db.last_error());
  return inserted;
}

// Writes the new part of each charge in one transaction, then counts in memory
// only what was committed. Invariant: memory never holds an uncommitted charge.
Expected<double, LedgerError> DurableLedger::store_and_count(std::span<const Charge> charges) {
  const SqliteConnection& db = *database_->connection;
  if (auto error = db.execute("BEGIN IMMEDIATE")) return failure(database_->path, *error);
  std::vector<Charge> stored;
  BatchMarks batch_marks;
  for (const Charge& charge : charges) {
    std::optional<Charge> part = new_part(charge, batch_marks);
    if (!part) continue;
    auto inserted = insert_row(*part);
    if (!inserted) {
      db.execute("ROLLBACK");
      return unexpected(inserted.error());
    }
    if (!*inserted) continue;
    batch_marks[charge.job_id] = part->until;
    stored.push_back(std::move(*part));
  }
  if (auto error = db.execute("COMMIT")) {
    db.execute("ROLLBACK");
    return failure(database_->path, *error);
  }
  double added = 0;
  for (const Charge& part : stored) added += count(part);
  return added;
}

Expected<std::size_t, LedgerError> DurableLedger::compact(Seconds now) {
  // Intervals ending at or before the start of the window's oldest bucket count for nothing.
  const LedgerConfig& config = ledger_.config();
  const Seconds now_bucket_start = now - ((now % config.bucket_width) + config.bucket_width) % config.bucket_width;
  const Seconds horizon = now_bucket_start - config.window + config.bucket_width;
  auto remove = database_->connection->prepare("DELETE FROM charges WHERE charged_until <= ?1");
  if (!remove) return failure(database_->path, remove.error());
  sqlite3_bind_int64(remove->get(), 1, horizon);
  if (sqlite3_step(remove->get()) != SQLITE_DONE) return failure(database_->path, database_->connection->last_error());
  return static_cast<std::size_t>(database_->connection->changes());
}

Expected<std::vector<std::pair<std::string, Seconds>>, LedgerError> DurableLedger::stored_keys() const {
  auto rows =
      database_->connection->prepare("SELECT job_id, charged_until FROM charges ORDER BY charged_until, job_id");
  if (!rows) return failure(database_->path, rows.error());
  std::vector<std::pair<std::string, Seconds>> keys;
  int status = SQLITE_ROW;
  while ((status = sqlite3_step(rows->get())) == SQLITE_ROW) {
    keys.emplace_back(rows->text(0), sqlite3_column_int64(rows->get(), 1));
  }
  if (status != SQLITE_DONE) return failure(database_->path, database_->connection->last_error());
  return keys;
}

}  // namespace allot::runtime
