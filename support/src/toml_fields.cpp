#include "allot/toml_fields.h"

#include "allot/dates.h"
#include "allot/duration.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "allot/nearest_name.h"

namespace allot::support {

const char* kind_name(const toml::node& node) {
  switch (node.type()) {
    case toml::node_type::table:
      return "a table";
    case toml::node_type::array:
      return "an array";
    case toml::node_type::string:
      return "a string";
    case toml::node_type::integer:
      return "an integer";
    case toml::node_type::floating_point:
      return "a float";
    case toml::node_type::boolean:
      return "a boolean";
    case toml::node_type::date:
      return "a date";
    case toml::node_type::time:
      return "a time";
    case toml::node_type::date_time:
      return "a date-time";
    default:
      return "nothing";
  }
}

namespace {

std::string join_names(const std::vector<std::string_view>& names) {
  std::string joined;
  for (std::string_view name : names) joined += fmt::format("{}`{}`", joined.empty() ? "" : ", ", name);
  return joined;
}

std::int64_t day_start(const toml::date& date) { return days_from_civil(date.year, date.month, date.day) * 86400; }

std::int64_t seconds_since_epoch(const toml::date_time& stamp) {
  const std::int64_t day_seconds = stamp.time.hour * 3600 + stamp.time.minute * 60 + stamp.time.second;
  return day_start(stamp.date) + day_seconds - stamp.offset->minutes * std::int64_t{60};
}

}  // namespace

LocatedError located_error(const toml::source_region& where, const std::string& file, std::string field,
                           std::string message) {
  return LocatedError{file, static_cast<int>(where.begin.line), std::move(field), std::move(message),
                      static_cast<int>(where.begin.column)};
}

FieldReader::FieldReader(const toml::table& table, const std::string& file, std::string prefix)
    : table_(table), file_(file), prefix_(std::move(prefix)) {}

bool FieldReader::has(std::string_view key) const { return table_.contains(key); }

int FieldReader::line() const { return static_cast<int>(table_.source().begin.line); }

void FieldReader::fail(std::string_view key, std::string message) {
  if (error_) return;
  const toml::node* node = table_.get(key);
  const toml::source_region& where = node ? node->source() : table_.source();
  const std::string field = prefix_.empty() ? std::string(key) : fmt::format("{}.{}", prefix_, key);
  error_ = located_error(where, file_, field, std::move(message));
}

const toml::node* FieldReader::find(std::string_view key, const char* expected_kind,
                                    bool (*is_kind)(const toml::node&)) {
  const toml::node* node = table_.get(key);
  if (node == nullptr) return nullptr;
  if (!is_kind(*node)) {
    fail(key, fmt::format("`{}` must be {}, not {}", key, expected_kind, kind_name(*node)));
    return nullptr;
  }
  return node;
}

std::optional<std::string> FieldReader::optional_text(std::string_view key, std::size_t max_bytes) {
  const toml::node* node = find(key, "a string", [](const toml::node& n) { return n.is_string(); });
  if (node == nullptr) return std::nullopt;
  std::string value = *node->value<std::string>();
  if (value.empty()) {
    fail(key, fmt::format("`{}` must not be empty", key));
    return std::nullopt;
  }
  if (value.size() > max_bytes) {
    fail(key, fmt::format("`{}` is {} bytes long; at most {}", key, value.size(), max_bytes));
    return std::nullopt;
  }
  return value;
}

std::string FieldReader::text(std::string_view key, std::size_t max_bytes) {
  if (!has(key)) fail(key, fmt::format("missing field `{}`", key));
  return optional_text(key, max_bytes).value_or("");
}

std::optional<std::int64_t> FieldReader::optional_integer(std::string_view key, std::int64_t min, std::int64_t max) {
  const toml::node* node = find(key, "an integer", [](const toml::node& n) { return n.is_integer(); });
  if (node == nullptr) return std::nullopt;
  const std::int64_t value = *node->value<std::int64_t>();
  if (value < min || value > max) {
    fail(key, fmt::format("`{}` must be between {} and {}, not {}", key, min, max, value));
    return std::nullopt;
  }
  return value;
}

std::int64_t FieldReader::integer(std::string_view key, std::int64_t min, std::int64_t max) {
  if (!has(key)) fail(key, fmt::format("missing field `{}`", key));
  return optional_integer(key, min, max).value_or(min);
}

double FieldReader::positive_number(std::string_view key) {
  if (!has(key)) fail(key, fmt::format("missing field `{}`", key));
  const toml::node* node = find(key, "a number", [](const toml::node& n) { return n.is_number(); });
  if (node == nullptr) return 1.0;
  const double value = *node->value<double>();
  if (!std::isfinite(value)) {
    fail(key, fmt::format("`{}` must be a finite number, not {}", key, value));
    return 1.0;
  }
  if (value <= 0) {
    fail(key, fmt::format("`{}` must be greater than 0, not {}", key, value));
    return 1.0;
  }
  return value;
}

std::optional<std::int64_t> FieldReader::optional_timestamp(std::string_view key) {
  const toml::node* node = find(key, "a date-time such as 2026-12-02T06:00:00Z",
                                [](const toml::node& n) { return n.is_date_time() || n.is_date() || n.is_integer(); });
  if (node == nullptr) return std::nullopt;
  // Later times have no four-digit year, so they could not be written back as date-times.
  constexpr std::int64_t kLatest = kLatestEpochSeconds;  // 9999-12-31T23:59:59Z
  if (node->is_integer()) {
    const std::int64_t seconds = *node->value<std::int64_t>();
    if (seconds >= 0 && seconds <= kLatest) return seconds;
    fail(key, fmt::format("`{}` in seconds must be between 0 (1970) and {} (9999), not {}", key, kLatest, seconds));
    return std::nullopt;
  }
  std::int64_t seconds = 0;
  if (node->is_date()) {
    seconds = day_start(*node->value<toml::date>());
  } else {
    const toml::date_time stamp = *node->value<toml::date_time>();
    if (!stamp.offset) {
      fail(key, fmt::format("`{}` needs a UTC offset, e.g. 2026-12-02T06:00:00Z", key));
      return std::nullopt;
    }
    seconds = seconds_since_epoch(stamp);
  }
  if (seconds >= 0 && seconds <= kLatest) return seconds;
  fail(key, fmt::format("`{}` must be a time from 1970 to 9999, not {}", key, format_timestamp(seconds)));
  return std::nullopt;
}

void FieldReader::reject_unknown_keys(const std::vector<std::string_view>& known) {
  for (auto&& [key, value] : table_) {
    if (std::find(known.begin(), known.end(), key.str()) != known.end()) continue;
    const std::string suggestion = nearest_name(key.str(), known);
    const std::string help = suggestion.empty() ? fmt::format("expected one of {}", join_names(known))
                                                : fmt::format("did you mean `{}`?", suggestion);
    fail(key.str(), fmt::format("unknown field `{}`; {}", key.str(), help));
    return;
  }
}

void FieldReader::fail_at(const toml::node& where, std::string_view field, std::string message) {
  if (error_) return;
  const std::string name = prefix_.empty() ? std::string(field) : fmt::format("{}.{}", prefix_, field);
  error_ = located_error(where.source(), file_, name, std::move(message));
}

std::int64_t FieldReader::timestamp(std::string_view key) {
  if (!has(key)) fail(key, fmt::format("missing field `{}`", key));
  return optional_timestamp(key).value_or(0);
}

std::optional<bool> FieldReader::optional_boolean(std::string_view key) {
  const toml::node* node = find(key, "a boolean (true or false)", [](const toml::node& n) { return n.is_boolean(); });
  if (node == nullptr) return std::nullopt;
  return *node->value<bool>();
}

std::optional<double> FieldReader::optional_number(std::string_view key, double min) {
  const toml::node* node = find(key, "a number", [](const toml::node& n) { return n.is_number(); });
  if (node == nullptr) return std::nullopt;
  const double value = *node->value<double>();
  if (!std::isfinite(value)) {
    fail(key, fmt::format("`{}` must be a finite number, not {}", key, value));
    return std::nullopt;
  }
  if (value < min) {
    fail(key, fmt::format("`{}` must be at least {}, not {}", key, min, value));
    return std::nullopt;
  }
  return value;
}

std::optional<std::int64_t> FieldReader::optional_duration(std::string_view key) {
  const toml::node* node = find(key, "a duration such as \"30m\" or \"1h30m\"",
                                [](const toml::node& n) { return n.is_string() || n.is_integer(); });
  if (node == nullptr) return std::nullopt;
  if (node->is_integer()) {
    const std::int64_t seconds = *node->value<std::int64_t>();
    if (duration_in_range(seconds)) return seconds;
    fail(key, seconds < 0 ? fmt::format("`{}` must not be negative, not {}", key, seconds)
                          : fmt::format("`{}` must be at most {} seconds (100 years), not {}", key, kMaxDurationSeconds,
                                        seconds));
    return std::nullopt;
  }
  const std::string text = *node->value<std::string>();
  if (auto seconds = parse_duration(text)) return seconds;
  fail(key, fmt::format("`{}` must be a duration such as \"30m\", \"1h30m\" or \"7d\", at most 100 years, not \"{}\"",
                        key, text));
  return std::nullopt;
}

std::vector<std::string> FieldReader::text_list(std::string_view key) {
  if (!has(key)) fail(key, fmt::format("missing field `{}`", key));
  const toml::node* node = find(key, "an array of strings", [](const toml::node& n) { return n.is_array(); });
  std::vector<std::string> texts;
  if (node == nullptr) return texts;
  const toml::array& array = *node->as_array();
  for (std::size_t i = 0; i < array.size(); ++i) {
    const toml::node& item = *array.get(i);
    const std::string field = fmt::format("{}[{}]", key, i);
    if (!item.is_string()) {
      fail_at(item, field, fmt::format("`{}` must be a string, not {}", field, kind_name(item)));
    } else if (item.value<std::string>()->empty()) {
      fail_at(item, field, fmt::format("`{}` must not be empty", field));
    } else if (item.value<std::string>()->size() > kMaxNameBytes) {
      fail_at(
          item, field,
          fmt::format("`{}` is {} bytes long; at most {}", field, item.value<std::string>()->size(), kMaxNameBytes));
    } else {
      texts.push_back(*item.value<std::string>());
    }
  }
  return texts;
}

std::vector<std::string> FieldReader::text_or_list(std::string_view key) {
  if (const toml::node* node = table_.get(key); node == nullptr || !node->is_array()) return {text(key)};
  std::vector<std::string> texts = text_list(key);
  if (texts.empty() && !error_) fail(key, fmt::format("`{}` must list at least one string", key));
  return texts;
}

}  // namespace allot::support
