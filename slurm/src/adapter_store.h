// The adapter's own state, kept beside the usage ledger in the same SQLite
// file so a restarted adapter carries on where the last one stopped: the
// contract each running job started under (a policy swap cannot take it
// back), preemptions in progress (signalled, requeue due), each job's first
// submission (Slurm resets it on requeue), and hourly owed and debt per account.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "allot/accounting.h"
#include "allot/cycle.h"
#include "allot/expected.h"

namespace allot::runtime {
class SqliteConnection;
}

namespace allot::slurm {

using runtime::Seconds;

// One run of one job: Slurm reuses the job id across requeues, not the start time.
struct RunKey {
  std::uint32_t job = 0;
  Seconds started = 0;
  friend auto operator<=>(const RunKey&, const RunKey&) = default;
};

// The promise a run started under, and the account and class it runs as.
struct StoredContract {
  runtime::Contract contract;
  std::string account;
  std::string job_class;
};

// A preemption under way: the checkpoint signal was sent, the requeue is due.
struct StoredPreemption {
  Seconds signalled = 0;
  Seconds requeue_at = 0;
  std::string for_job;
  double lost_gpu_seconds = 0;  // estimated when decided
};

class AdapterStore {
 public:
  // Opens (creating the tables if needed) and loads everything into memory.
  static Expected<std::unique_ptr<AdapterStore>, std::string> open(const std::string& path);
  ~AdapterStore();
  AdapterStore(const AdapterStore&) = delete;
  AdapterStore& operator=(const AdapterStore&) = delete;

  const std::map<RunKey, StoredContract>& contracts() const { return contracts_; }
  const std::map<RunKey, StoredPreemption>& preemptions() const { return preemptions_; }
  const std::map<std::uint32_t, Seconds>& first_submitted() const { return first_submitted_; }
  // Unit-hours owed and not delivered, per leaf account and hour.
  const runtime::DebtHours& debt_hours() const { return debt_hours_; }
  // Unit-hours owed (delivered or not), per leaf account and hour.
  const runtime::DebtHours& owed_hours() const { return owed_hours_; }
  std::optional<Seconds> last_pass() const { return last_pass_; }
  // When usage starts being charged (a ledger's first run decides it once); nullopt before.
  std::optional<Seconds> charge_from() const { return charge_from_; }

  // Each write is its own transaction and updates memory after it commits.
  std::optional<std::string> add_contracts(const std::vector<std::pair<RunKey, StoredContract>>& contracts);
  std::optional<std::string> add_preemption(const RunKey& run, const StoredPreemption& preemption);
  std::optional<std::string> remove_preemption(const RunKey& run);
  std::optional<std::string> set_first_submitted(const std::vector<std::pair<std::uint32_t, Seconds>>& jobs);
  // Adds debt and owed amounts to the hours given, records the pass time and
  // drops hours before `oldest_hour`.
  std::optional<std::string> record_pass(Seconds now, const runtime::DebtHours& debt, const runtime::DebtHours& owed,
                                         Seconds oldest_hour);
  // Forgets every job not in `alive` (Slurm no longer knows it).
  std::optional<std::string> forget_except(const std::vector<std::uint32_t>& alive);
  std::optional<std::string> set_charge_from(Seconds from);

 private:
  explicit AdapterStore(std::unique_ptr<runtime::SqliteConnection> db);
  std::optional<std::string> load();
  using Value = std::variant<std::int64_t, double, std::string>;
  // Runs one statement with `values` bound to ?1, ?2, ...
  std::optional<std::string> run(const char* sql, const std::vector<Value>& values) const;
  // Runs `body` between BEGIN IMMEDIATE and COMMIT (ROLLBACK when it fails).
  template <class Body>
  std::optional<std::string> transaction(Body body) const;

  std::unique_ptr<runtime::SqliteConnection> db_;
  std::map<RunKey, StoredContract> contracts_;
  std::map<RunKey, StoredPreemption> preemptions_;
  std::map<std::uint32_t, Seconds> first_submitted_;
  runtime::DebtHours debt_hours_;
  runtime::DebtHours owed_hours_;
  std::optional<Seconds> last_pass_;
  std::optional<Seconds> charge_from_;
};

// Copies the database at `from` into a new file `to` (SQLite's online backup:
// a consistent copy even while an adapter writes to `from`). For dry runs.
std::optional<std::string> copy_database(const std::string& from, const std::string& to);

}  // namespace allot::slurm
