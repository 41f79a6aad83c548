// JSON pieces shared by audit records, the cycle document and the explain
// document (docs/AUDIT.md), so one decision reads the same everywhere.
#pragma once

#include <nlohmann/json.hpp>

#include "allot/cycle.h"

namespace allot::runtime::audit {

// Keys keep the order they are added in, so records diff well and goldens are stable.
using Json = nlohmann::ordered_json;

// A number, or null when it is not finite (JSON has no infinity).
Json finite(double value);
// A rank: a number, or for one that is not finite the string "+inf" or "-inf"
// ("nan" cannot happen: a compiled rank is never NaN), never null, which means
// "not ranked" (docs/AUDIT.md).
Json rank_json(double rank);
// A rank as text reports print it: "1466.75", or "not finite (-inf)".
std::string rank_text(double rank);
// Node indexes as node names.
Json node_names(const Inventory& inventory, const std::vector<int>& nodes);
// A contract: times as UTC date-times, durations in seconds.
Json contract_json(const Contract& contract);
// Rank terms as an object: {"account.fair_tree": 0.83, ...}.
Json terms_json(const std::vector<RankTerm>& terms);
// Appends the fields of one decision to `record` in the documented order;
// every key is present, null where it does not apply to the decision's kind.
void add_decision(Json& record, const Decision& decision, const Inventory& inventory);
// Compact or indented text; invalid UTF-8 in names is replaced, never thrown on.
std::string dump(const Json& json, int indent);

}  // namespace allot::runtime::audit
