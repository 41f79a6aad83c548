// The usage ledger, persisted: every counted interval is a row in an SQLite
// database (WAL mode), written before it is counted in memory, and the memory
// state is rebuilt from the rows on open. A crash or restart loses no committed
// charge, and the idempotency key (job id, charged-until) makes a replay count
// nothing, so nothing is counted twice. Schema: docs/STATE.md.
#pragma once

#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "allot/expected.h"
#include "allot/ledger.h"

namespace allot::runtime {

// Why the database could not be used; the message names the file and SQLite's reason.
struct LedgerError {
  std::string message;
};

// How hard each commit works to survive a crash.
enum class Durability {
  // fsync on every commit: survives power loss (SQLite synchronous=FULL).
  power_loss,
  // fsync at WAL checkpoints only: survives a process crash, not power loss (synchronous=NORMAL).
  process_crash,
};

// A RollingLedger whose counted intervals are stored in SQLite.
class DurableLedger {
 public:
  // Opens (creating if needed) the database at `path` and rebuilds the ledger from it.
  static Expected<std::unique_ptr<DurableLedger>, LedgerError> open(const std::string& path, LedgerConfig config,
                                                                    Durability durability = Durability::power_loss);
  ~DurableLedger();
  DurableLedger(const DurableLedger&) = delete;
  DurableLedger& operator=(const DurableLedger&) = delete;

  // Stores and counts one charge in its own transaction; returns the amount
  // added (0 for a replay). On error nothing is counted.
  Expected<double, LedgerError> charge(const Charge& charge);

  // Stores and counts many charges in one transaction: after a crash either
  // all of them are there or none. Returns the total amount added.
  Expected<double, LedgerError> charge_batch(std::span<const Charge> charges);

  // Deletes stored intervals that ended before the window at `now` (they no
  // longer count); returns how many rows went.
  Expected<std::size_t, LedgerError> compact(Seconds now);

  // Every stored idempotency key (job id, charged-until), for audits and tests.
  Expected<std::vector<std::pair<std::string, Seconds>>, LedgerError> stored_keys() const;

  // The in-memory ledger, for reading usage.
  const RollingLedger& ledger() const { return ledger_; }
  // The part of that usage held without progress (charges marked
  // `without_progress`), by account over the same window.
  const RollingLedger& without_progress() const { return without_progress_; }

 private:
  struct Database;
  // The end of the last interval of each job already stored in the current batch.
  using BatchMarks = std::unordered_map<std::string_view, Seconds>;

  DurableLedger(std::unique_ptr<Database> database, LedgerConfig config);
  // What of `charge` is counted neither in memory nor earlier in this batch.
  std::optional<Charge> new_part(const Charge& charge, const BatchMarks& batch_marks) const;
  // Inserts one row; false when the key was already stored.
  Expected<bool, LedgerError> insert_row(const Charge& part);
  // One transaction for all charges, then the in-memory update.
  Expected<double, LedgerError> store_and_count(std::span<const Charge> charges);

  // Counts a stored interval in memory.
  double count(const Charge& interval);

  std::unique_ptr<Database> database_;
  RollingLedger ledger_;
  RollingLedger without_progress_;
};

}  // namespace allot::runtime
