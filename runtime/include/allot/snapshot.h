// State snapshots: one TOML file holding everything a scheduling cycle reads
// (the inventory, the queue, the running jobs with their contracts, the
// reservations, the usage ledger and `now`), so that any decision can be
// reproduced with `allot cycle` and explained with `allot explain`. The format
// is documented in docs/STATE.md ("Snapshot file"); examples/states/ has some.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <toml++/toml.h>

#include "allot/cluster_state.h"
#include "allot/expected.h"
#include "allot/inventory.h"
#include "allot/policy.h"

namespace allot::runtime {

// Errors in a snapshot read like inventory errors: "FILE:LINE:COLUMN: FIELD: MESSAGE".
using SnapshotError = InventoryError;

// A ClusterState and how its file names the inventory.
struct Snapshot {
  ClusterState state;
  // The inventory file the snapshot refers to (`inventory = "..."`), as a path
  // usable from the current directory; empty when the inventory is inline.
  std::string inventory_file;
  // Where each key of `[usage]`, `[debt]`, `[owed]` and `[without_progress]`
  // was written, to check them against a policy's tree (check_snapshot_accounts).
  struct AmountKey {
    std::string table;  // "usage", "debt", "owed" or "without_progress"
    std::string account;
    std::string file;
    int line = 0;
    int column = 0;
  };
  std::vector<AmountKey> amount_keys;
};

// The first key of `[usage]`, `[debt]`, `[owed]` or `[without_progress]`
// that is not an account of `tables` (a typo would otherwise set that
// account's usage to 0), with a suggestion; then the first `[usage]` of an
// inner account that is less than what the accounts below it list, or of the
// root ("") that differs from it (either would be dropped: an inner entry is
// its subtree's total); nullopt when there is none.
std::optional<SnapshotError> check_snapshot_accounts(const Snapshot& snapshot, const PolicyTables& tables);

// Reads and validates a snapshot file. A referenced inventory is read relative
// to the snapshot's folder; its errors name the inventory file. `now` (the
// CLI's `--now`) replaces the file's `now` before any job is read, so every
// time that must not be after it is checked against it, and errors name it.
Expected<Snapshot, SnapshotError> load_snapshot(const std::string& path, std::optional<Seconds> now = std::nullopt);

// Validates snapshot text. `source_name` is used in errors and its folder
// resolves a referenced inventory; `now` as for load_snapshot.
Expected<Snapshot, SnapshotError> parse_snapshot(std::string_view text, const std::string& source_name,
                                                 std::optional<Seconds> now = std::nullopt);

// Validates a snapshot written as a table of a larger TOML document (a policy
// test's `[case.state]`, docs/TESTING.md): as parse_snapshot, with errors at
// the document's lines and columns (fields named as in a snapshot file), and a
// referenced inventory read relative to `source_name`'s folder.
Expected<Snapshot, SnapshotError> read_snapshot_table(const toml::table& table, const std::string& source_name,
                                                      std::optional<Seconds> now = std::nullopt);

// The canonical text of a snapshot that will be written to `path` (a
// referenced inventory is written relative to that file's folder). Loading it
// gives back the same state, and writing that again gives the same bytes.
std::string snapshot_text(const Snapshot& snapshot, const std::string& path);

// Writes snapshot_text to `path`; the reason on failure. The text is read back
// with parse_snapshot first: a state the reader would refuse (a time past 9999,
// say) is not written, and the reason names the field.
std::optional<std::string> save_snapshot(const Snapshot& snapshot, const std::string& path);

}  // namespace allot::runtime
