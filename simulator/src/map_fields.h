// Typed, located access to one table of a mapping file: every getter records
// the first problem (file, line, field) and returns a harmless default, so a
// reader takes all fields in a row and checks error() once.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <toml++/toml.h>

#include "allot/simulator.h"

namespace allot::simulator {

// "; did you mean `x`?" for the candidate nearest to a misspelt `name` (support/nearest_name.h), or "".
std::string did_you_mean(std::string_view name, const std::vector<std::string>& candidates);

class MapFields {
 public:
  // `prefix` names the table in errors ("class[2]"); "" for the top level.
  MapFields(const toml::table& table, const std::string& file, std::string prefix);

  // The line the table starts on.
  int line() const;
  // A required, non-empty string.
  std::string text(std::string_view key);
  // One non-empty string, or a non-empty array of them.
  std::vector<std::string> text_list(std::string_view key);
  // A string, if set ("" allowed).
  std::optional<std::string> optional_text(std::string_view key);
  // A whole number within [min, max], if set.
  std::optional<int> count(std::string_view key, int min, int max);
  // A duration ("15m", "2h", "1d12h", or whole seconds), if set.
  std::optional<Seconds> duration(std::string_view key);
  // A priority label (high, medium, low, none) as 3..0; 0 when not set.
  int label(std::string_view key);
  // A date-time (2026-11-30T00:00:00Z), a date (midnight UTC) or seconds since the epoch, if set.
  std::optional<Seconds> timestamp(std::string_view key);
  // Fails on the first key not in `known`, suggesting the nearest known one.
  void reject_unknown_keys(const std::vector<std::string>& known);
  // Records a problem with `key` (at the key, or at the table when it is absent).
  void fail(std::string_view key, std::string message);

  const std::optional<TraceError>& error() const { return error_; }

 private:
  std::string field_name(std::string_view key) const;

  const toml::table& table_;
  const std::string& file_;
  std::string prefix_;
  std::optional<TraceError> error_;
};

}  // namespace allot::simulator
