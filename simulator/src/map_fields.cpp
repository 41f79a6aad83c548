#include "map_fields.h"

#include "allot/dates.h"
#include "allot/duration.h"

#include <fmt/format.h>

#include <cctype>

#include "allot/nearest_name.h"

namespace allot::simulator {
namespace {

Seconds epoch_seconds(const toml::date& date) {
  return support::days_from_civil(date.year, date.month, date.day) * 86400;
}

}  // namespace

std::string did_you_mean(std::string_view name, const std::vector<std::string>& candidates) {
  const std::string nearest = support::nearest_name(name, candidates);
  return nearest.empty() ? "" : "; did you mean `" + nearest + "`?";
}

MapFields::MapFields(const toml::table& table, const std::string& file, std::string prefix)
    : table_(table), file_(file), prefix_(std::move(prefix)) {}

int MapFields::line() const { return static_cast<int>(table_.source().begin.line); }

std::string MapFields::field_name(std::string_view key) const {
  return prefix_.empty() ? std::string(key) : fmt::format("{}.{}", prefix_, key);
}

void MapFields::fail(std::string_view key, std::string message) {
  if (error_) return;
  const toml::node* node = table_.get(key);
  const int at = node ? static_cast<int>(node->source().begin.line) : line();
  error_ = TraceError{file_, at, field_name(key), std::move(message)};
}

std::string MapFields::text(std::string_view key) {
  const auto value = optional_text(key);
  if (!value) {
    fail(key, fmt::format("`{}` is required", key));
  } else if (value->empty()) {
    fail(key, fmt::format("`{}` must not be empty", key));
  }
  return value.value_or("");
}

std::vector<std::string> MapFields::text_list(std::string_view key) {
  const toml::node* node = table_.get(key);
  const toml::array* array = node ? node->as_array() : nullptr;
  if (!array) return {text(key)};
  std::vector<std::string> values;
  for (const toml::node& item : *array) {
    const auto* value = item.as_string();
    if (!value || value->get().empty()) {
      fail(key, fmt::format("expected `{}` to list non-empty strings", key));
      return values;
    }
    values.push_back(value->get());
  }
  if (values.empty()) fail(key, fmt::format("`{}` lists nothing", key));
  return values;
}

std::optional<std::string> MapFields::optional_text(std::string_view key) {
  const toml::node* node = table_.get(key);
  if (!node) return std::nullopt;
  if (const auto* value = node->as_string()) return value->get();
  fail(key, "expected a string in double quotes");
  return std::nullopt;
}

std::optional<int> MapFields::count(std::string_view key, int min, int max) {
  const toml::node* node = table_.get(key);
  if (!node) return std::nullopt;
  const auto* value = node->as_integer();
  if (!value || value->get() < min || value->get() > max) {
    fail(key, fmt::format("expected a whole number from {} to {}", min, max));
    return std::nullopt;
  }
  return static_cast<int>(value->get());
}

std::optional<Seconds> MapFields::duration(std::string_view key) {
  const toml::node* node = table_.get(key);
  if (!node) return std::nullopt;
  if (const auto* seconds = node->as_integer(); seconds && support::duration_in_range(seconds->get()))
    return seconds->get();
  if (const auto* text = node->as_string()) {
    if (auto parsed = support::parse_duration(text->get())) return parsed;
  }
  fail(key, "expected a duration such as \"15m\", \"2h\" or \"1d\", at most 100 years");
  return std::nullopt;
}

int MapFields::label(std::string_view key) {
  const auto text = optional_text(key);
  if (!text) return 0;
  const std::vector<std::string> labels = {"none", "low", "medium", "high"};
  for (std::size_t i = 0; i < labels.size(); ++i) {
    if (*text == labels[i]) return static_cast<int>(i);
  }
  fail(key, fmt::format("unknown label `{}`; expected `high`, `medium`, `low` or `none`{}", *text,
                        did_you_mean(*text, labels)));
  return 0;
}

std::optional<Seconds> MapFields::timestamp(std::string_view key) {
  // 1970 to 9999, as snapshots take times: a replay adds trace offsets to it.
  constexpr Seconds kLatest = support::kLatestEpochSeconds;
  const toml::node* node = table_.get(key);
  if (!node) return std::nullopt;
  std::optional<Seconds> seconds;
  if (const auto* integer = node->as_integer()) {
    seconds = integer->get();
  } else if (const auto* date = node->as_date()) {
    seconds = epoch_seconds(date->get());
  } else if (const auto* value = node->as_date_time(); value && value->get().offset) {
    const toml::date_time& time = value->get();
    seconds = epoch_seconds(time.date) + time.time.hour * 3600 + time.time.minute * 60 + time.time.second -
              time.offset->minutes * 60;
  } else {
    fail(key, "expected a UTC date-time such as 2026-11-30T00:00:00Z");
    return std::nullopt;
  }
  if (*seconds < 0 || *seconds > kLatest) {
    fail(key, "expected a time from 1970 to 9999, such as 2026-11-30T00:00:00Z");
    return std::nullopt;
  }
  return seconds;
}

void MapFields::reject_unknown_keys(const std::vector<std::string>& known) {
  for (const auto& [key, value] : table_) {
    if (std::find(known.begin(), known.end(), key.str()) != known.end()) continue;
    fail(key.str(), fmt::format("unknown field `{}`{}", key.str(), did_you_mean(key.str(), known)));
    return;
  }
}

}  // namespace allot::simulator
