// `allot import slurm`: an existing Slurm site's association tree, from
// `sacctmgr dump CLUSTER` output, as an Allot policy. Accounts become
// programs and projects, users become users, `Fairshare=N` becomes
// `shares N` and `Fairshare=parent` becomes `share parent`, in the order
// sshare prints them. What has no Allot equivalent (limits, QOS, partitions,
// coordinators) is listed, never silently dropped.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "allot/expected.h"

namespace allot::slurm {

struct ImportOptions {
  std::string owner;       // written as every program's owner when set
  std::string review;      // YYYY-MM-DD, every program's review date when set
  std::string hypothesis;  // every program's hypothesis when set
};

// Something of the dump that the policy does not carry, with its line.
struct ImportNote {
  int line = 0;
  std::string text;
};

struct ImportResult {
  std::string policy;  // the policy's text, formatted as `allot fmt` would
  std::vector<ImportNote> notes;
  int accounts = 0;
  int users = 0;
};

// A problem that stops the import: the dump's file, line and field.
struct ImportError {
  int line = 0;
  std::string message;
};

// Translates a dump. `source_name` names the dump in the policy's header comment.
Expected<ImportResult, ImportError> import_sacctmgr_dump(std::string_view dump, std::string_view source_name,
                                                         const ImportOptions& options);

}  // namespace allot::slurm
