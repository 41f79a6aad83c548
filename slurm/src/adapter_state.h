// What an Adapter keeps between passes. Internal to slurm/.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "adapter_store.h"
#include "allot/durable_ledger.h"
#include "allot/slurm.h"
#include "progress_comment.h"

namespace allot::slurm {

struct Adapter::State {
  SlurmBackend* backend = nullptr;
  JobMap map;
  AdapterOptions options;
  std::string database;                // the state file, or a private copy of it in a dry run
  std::optional<std::string> scratch;  // the copy's folder, removed on close
  int lock = -1;                       // flock on the database file itself
  std::unique_ptr<AdapterStore> store;
  std::unique_ptr<runtime::DurableLedger> ledger;  // opened by the first pass (its unit needs the inventory)
  std::vector<runtime::Reservation> reservations;  // the last cycle's, for the next
  bool reservations_known = false;                 // false until a pass ran since opening
  std::set<std::uint32_t> noted;                   // jobs whose note was already given
  // The last progress report taken from each run's Comment (docs/SLURM.md
  // "Progress"); Slurm keeps the Comment, so a restart reads it again.
  std::map<RunKey, CommentReport> reports;
  std::map<std::uint32_t, std::string> refused;  // the Comment last refused of each job (noted once)
  std::set<RunKey> stalled;                      // runs stalled at the last pass (a restarted adapter says them again)

  ~State();
};

}  // namespace allot::slurm
