// One waiting job as a snapshot's `[[job]]` table holds it (docs/STATE.md,
// "Queue: pending jobs"), read with the snapshot reader's own checks, for
// drivers that receive jobs one at a time: `allot serve` turns a `POST /jobs`
// body into such a table, so a job means the same in a snapshot and in the API.
#pragma once

#include <string>

#include <toml++/toml.h>
#include <nlohmann/json.hpp>

#include "allot/cluster_state.h"
#include "allot/expected.h"
#include "allot/snapshot.h"

namespace allot::runtime {

// Reads `table` as one `[[job]]` (every field and bound of docs/STATE.md;
// unknown keys are refused with a suggestion). `source_name` and `name` prefix
// errors ("request", "job"); `submitted` and `queued` must not be after `now`.
Expected<JobRequest, SnapshotError> read_job_table(const toml::table& table, const std::string& source_name,
                                                   const std::string& name, Seconds now);

// A job written as one JSON object (`POST /jobs`, `allot eval`) as the table
// read_job_table reads: the same keys; `submitted`, `queued` and `deadline` may
// also be RFC 3339 strings; null is as if absent. An object or a list of
// non-strings is refused, naming the key; errors name `source_name`.
Expected<toml::table, SnapshotError> job_table_from_json(const nlohmann::json& object, const std::string& source_name);

}  // namespace allot::runtime
