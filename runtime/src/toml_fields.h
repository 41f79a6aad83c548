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

// How a TOML value's kind reads in a sentence: "a string", "an integer".
const char* kind_name(const toml::node& node);

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
  // A required timestamp, as optional_timestamp reads it.
  Seconds timestamp(std::string_view key);
  // A boolean, if set.
  std::optional<bool> optional_boolean(std::string_view key);
  // A finite number (integer or float) of at least `min`, if set.
  std::optional<double> optional_number(std::string_view key, double min);
  // A duration, if set: text as the policy language writes it ("30m", "1h30m",
  // "7d", "45s") or integer seconds; never negative.
  std::optional<Seconds> optional_duration(std::string_view key);
  // A required array of non-empty strings.
  std::vector<std::string> text_list(std::string_view key);
  // Fails on the first key not in `known`, suggesting the nearest known one.
  void reject_unknown_keys(const std::vector<std::string_view>& known);
  // Records a problem with `key` (located at the key, or at the table when it is absent).
  void fail(std::string_view key, std::string message);
  // Records a problem located at `where`, a value inside this table; `field`
  // is its name relative to the table, e.g. "nodes[1]".
  void fail_at(const toml::node& where, std::string_view field, std::string message);

  // The first problem found, if any.
  const std::optional<InventoryError>& error() const { return error_; }

 private:
  const toml::node* find(std::string_view key, const char* expected_kind, bool (*is_kind)(const toml::node&));

  const toml::table& table_;
  const std::string& file_;
  std::string prefix_;
  std::optional<InventoryError> error_;
};

// The inventory part of a document: `[cluster]`, `[[node]]` and `[[group]]`
// (inventory_toml.cpp). Other keys are left to the caller, so a state
// snapshot can embed an inventory.
Expected<Inventory, InventoryError> read_inventory_tables(const toml::table& root, const std::string& file);

}  // namespace allot::runtime
