// job_table_from_json (allot/job_table.h): a job written as a JSON object
// becomes the TOML table the snapshot reader reads, so `POST /jobs` and
// `allot eval` read a job exactly as a snapshot's `[[job]]`.
#include <array>
#include <cstdint>
#include <limits>

#include <fmt/format.h>

#include "allot/dates.h"
#include "allot/job_table.h"

namespace allot::runtime {
namespace {

constexpr std::array<std::string_view, 3> kTimeKeys = {"submitted", "queued", "deadline"};

bool is_time_key(std::string_view key) {
  for (std::string_view time : kTimeKeys) {
    if (key == time) return true;
  }
  return false;
}

// One JSON value as the TOML value the snapshot reader expects, or an error message.
std::optional<SnapshotError> add_value(toml::table& table, const std::string& key, const nlohmann::json& value,
                                       const std::string& source_name) {
  const auto bad = [&](std::string field, std::string message) {
    return SnapshotError(source_name, 0, std::move(field), std::move(message));
  };
  if (value.is_null()) return std::nullopt;  // as if absent
  if (value.is_string()) {
    const std::string& text = value.get_ref<const std::string&>();
    if (!is_time_key(key)) {
      table.insert_or_assign(key, text);
      return std::nullopt;
    }
    const auto seconds = support::parse_timestamp(text);
    if (!seconds) {
      return bad(
          key, fmt::format("`{}` must be an RFC 3339 time such as 2026-12-02T08:50:00Z, a date or epoch seconds", key));
    }
    table.insert_or_assign(key, *seconds);
  } else if (value.is_boolean()) {
    table.insert_or_assign(key, value.get<bool>());
  } else if (value.is_number_integer()) {
    if (value.is_number_unsigned() && value.get<std::uint64_t>() > std::numeric_limits<std::int64_t>::max()) {
      return bad(key, fmt::format("`{}` is out of range", key));
    }
    table.insert_or_assign(key, value.get<std::int64_t>());
  } else if (value.is_number_float()) {
    table.insert_or_assign(key, value.get<double>());
  } else if (value.is_array()) {
    toml::array array;
    for (std::size_t i = 0; i < value.size(); ++i) {
      if (!value[i].is_string()) return bad(fmt::format("{}[{}]", key, i), fmt::format("`{}` must list strings", key));
      array.push_back(value[i].get<std::string>());
    }
    table.insert_or_assign(key, std::move(array));
  } else {
    return bad(key, fmt::format("`{}` must be a string, number, boolean or list, not an object", key));
  }
  return std::nullopt;
}

}  // namespace

Expected<toml::table, SnapshotError> job_table_from_json(const nlohmann::json& object, const std::string& source_name) {
  if (!object.is_object()) return unexpected(SnapshotError(source_name, 0, "", "a job must be a JSON object"));
  toml::table table;
  for (const auto& [key, value] : object.items()) {
    if (auto problem = add_value(table, key, value, source_name)) return unexpected(std::move(*problem));
  }
  return table;
}

}  // namespace allot::runtime
