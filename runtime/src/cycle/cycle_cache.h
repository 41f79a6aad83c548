// What a CycleCache (allot/cycle.h) keeps: see there for the promise. Each part
// checks its own inputs at each use (AccountMemo compares them by value; the
// account index and the jobs resolved belong to one policy's tables, and each
// job resolved to its request's revision), so nothing here is invalidated by hand.
#pragma once

#include <optional>
#include <vector>

#include "account_memo.h"
#include "allot/accounting.h"
#include "allot/cycle.h"
#include "context.h"
#include "cycle_jobs.h"

namespace allot::runtime {

struct CycleCache::Kept {
  // Forgets what belongs to another policy than `policy`'s.
  void serve(const CompiledPolicy& policy);

  AccountMemo accounts;
  std::optional<AccountIndex> account_index;  // of accounts.tables
  cycle::KnownJobs known_jobs;                // resolved against accounts.tables
  cycle::CycleMemory memory;                  // what the last cycle and the last result given back leave
};

}  // namespace allot::runtime
