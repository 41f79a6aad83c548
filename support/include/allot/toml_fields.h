// Typed, located access to the fields of one TOML table (toml++), for every
// input file whose errors must say which file, line and field is wrong:
// inventories, state snapshots, replay and Slurm mapping files.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <toml++/toml.h>

#include "allot/files.h"
#include "allot/located_error.h"

namespace allot::support {

// How a TOML value's kind reads in a sentence: "a string", "an integer".
const char* kind_name(const toml::node& node);

// Builds an error located at `where`.
LocatedError located_error(const toml::source_region& where, const std::string& file, std::string field,
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
  // The line the table starts on.
  int line() const;
  // A required, non-empty string of at most `max_bytes`.
  std::string text(std::string_view key, std::size_t max_bytes = kMaxNameBytes);
  // A non-empty string of at most `max_bytes`, if set.
  std::optional<std::string> optional_text(std::string_view key, std::size_t max_bytes = kMaxNameBytes);
  // A required integer within [min, max].
  std::int64_t integer(std::string_view key, std::int64_t min, std::int64_t max);
  // An integer within [min, max], if set.
  std::optional<std::int64_t> optional_integer(std::string_view key, std::int64_t min, std::int64_t max);
  // A required number (integer or float) greater than zero.
  double positive_number(std::string_view key);
  // A time from 1970 to 9999 (kLatestEpochSeconds), if set: an offset
  // date-time (2026-12-02T06:00:00Z), a date (its midnight, UTC) or integer
  // seconds since the epoch.
  std::optional<std::int64_t> optional_timestamp(std::string_view key);
  // A required timestamp, as optional_timestamp reads it.
  std::int64_t timestamp(std::string_view key);
  // A boolean, if set.
  std::optional<bool> optional_boolean(std::string_view key);
  // A finite number (integer or float) of at least `min`, if set.
  std::optional<double> optional_number(std::string_view key, double min);
  // A duration, if set: text as the policy language writes it ("30m", "1h30m",
  // "7d", "45s") or integer seconds; never negative.
  std::optional<std::int64_t> optional_duration(std::string_view key);
  // A required array of non-empty strings, each a name (kMaxNameBytes).
  std::vector<std::string> text_list(std::string_view key);
  // A required non-empty string, or a non-empty array of them.
  std::vector<std::string> text_or_list(std::string_view key);
  // Fails on the first key not in `known`, suggesting the nearest known one.
  void reject_unknown_keys(const std::vector<std::string_view>& known);
  // Records a problem with `key` (located at the key, or at the table when it is absent).
  void fail(std::string_view key, std::string message);
  // Records a problem located at `where`, a value inside this table; `field`
  // is its name relative to the table, e.g. "nodes[1]".
  void fail_at(const toml::node& where, std::string_view field, std::string message);

  // The first problem found, if any.
  const std::optional<LocatedError>& error() const { return error_; }

 private:
  const toml::node* find(std::string_view key, const char* expected_kind, bool (*is_kind)(const toml::node&));

  const toml::table& table_;
  const std::string& file_;
  std::string prefix_;
  std::optional<LocatedError> error_;
};

}  // namespace allot::support
