// Typed, located access to the fields of one TOML table, for input files whose
// errors must say which file, line and field is wrong.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <toml++/toml.h>

#include "allot/epoch_seconds.h"
#include "allot/inventory.h"

namespace allot::runtime {

// Builds an error located at `where`.
InventoryError located_error(const toml::source_region& where, const std::string& file, std::string field,
                             std::string message);

// Reads the fields of one table. Every getter records the first problem and
// returns a harmless default, so a caller reads all fields in a row and checks
// `error()` once. Invariant: after the first error, later ones are ignored.
class FieldReader {
 public:
  // `prefix` names the table in errors, e.g. "node[3]".
  FieldReader(const toml::table& table, const std::string& file, std::string prefix);

  // Whether the table sets `key`.
  bool has(std::string_view key) const;
  // A required, non-empty string.
  std::string text(std::string_view key);
  // A non-empty string, if set.
  std::optional<std::string> optional_text(std::string_view key);
  // A required integer within [min, max].
  std::int64_t integer(std::string_view key, std::int64_t min, std::int64_t max);
  // An integer within [min, max], if set.
  std::optional<std::int64_t> optional_integer(std::string_view key, std::int64_t min, std::int64_t max);
  // A required number (integer or float) greater than zero.
  double positive_number(std::string_view key);
  // An offset date-time (2026-12-02T06:00:00Z) or integer seconds since the epoch, if set.
  std::optional<Seconds> optional_timestamp(std::string_view key);
  // Fails on the first key not in `known`, suggesting the nearest known one.
  void reject_unknown_keys(const std::vector<std::string_view>& known);
  // Records a problem with `key` (located at the key, or at the table when it is absent).
  void fail(std::string_view key, std::string message);

  // The first problem found, if any.
  const std::optional<InventoryError>& error() const { return error_; }

 private:
  const toml::node* find(std::string_view key, const char* expected_kind, bool (*is_kind)(const toml::node&));

  const toml::table& table_;
  const std::string& file_;
  std::string prefix_;
  std::optional<InventoryError> error_;
};

}  // namespace allot::runtime
