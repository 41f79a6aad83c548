// Where each field of the language lives in the runtime ABI (allot/abi.h).
//
// check/schema.h lists the fields of `job`, `account` and `cluster` in ABI
// order; a record-typed field (`job.account`) is a link, not a column, so the
// n-th non-record field of a record is column n of its abi enum.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "check/types.h"

namespace allot::ir {

// The abi column of `record.field` (abi::JobField, AccountField or
// ClusterField), nullopt for an unknown field or a link to another record.
std::optional<std::uint32_t> column_of(Type record, std::string_view field);

// The field name of column `column` of `record`, "" when out of range.
std::string_view column_name(Type record, std::uint32_t column);

// The language type of column `column` of `record` (Type::error when out of range).
Type column_type(Type record, std::uint32_t column);

}  // namespace allot::ir
