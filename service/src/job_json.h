// Jobs as JSON: a `POST /jobs` body read into a JobRequest through the
// snapshot reader's own `[[job]]` checks (allot/job_table.h), a job written
// back with the same field names (docs/STATE.md), and the record the store
// keeps for each job (its phase, its run and contract).
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "allot/expected.h"
#include "allot/inventory.h"
#include "allot/policy.h"
#include "allot/service.h"

namespace allot::service {

using Json = nlohmann::ordered_json;

// Reads one job object. Times are RFC 3339 strings or epoch seconds, durations
// "2h30m" strings or seconds. `submitted` defaults to `now`; an absent or
// empty `id` is left empty (the service assigns one). A problem names its field.
Expected<runtime::JobRequest, ApiError> job_from_json(const nlohmann::json& body, Seconds now);

// A job as the API shows it: every field of docs/STATE.md's `[[job]]`, times as
// RFC 3339, durations in seconds.
Json job_json(const runtime::JobRequest& job);

// The store's record of a job (everything JobRecord holds), and back. Node
// indexes are stored by name; a record naming a node `inventory` does not have
// is refused with the reason.
std::string record_text(const JobRecord& record, const runtime::Inventory& inventory);
Expected<JobRecord, std::string> record_from_text(const std::string& text, std::int64_t seq,
                                                  const runtime::Inventory& inventory);

// The leaf accounts of a policy's tree (the accounts jobs run as), in policy order.
std::vector<std::string> leaf_accounts(const PolicyTables& tables);

// The key nearest to `name` among `candidates`, as "did you mean" text, or "".
std::string did_you_mean(const std::string& name, const std::vector<std::string>& candidates);

// An error answer: {"error": ..., "field": ..., "did_you_mean": ...}.
Json error_json(const ApiError& error);

}  // namespace allot::service
