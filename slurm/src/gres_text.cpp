#include "gres_text.h"

#include <charconv>
#include <optional>
#include <vector>

namespace allot::slurm {
namespace {

// Splits on commas outside parentheses ("gpu:2(S:0,1),gpu:a100:1" is two items).
std::vector<std::string_view> items_of(std::string_view text) {
  std::vector<std::string_view> items;
  int depth = 0;
  std::size_t begin = 0;
  for (std::size_t i = 0; i <= text.size(); ++i) {
    const char c = i < text.size() ? text[i] : ',';
    if (c == '(') ++depth;
    if (c == ')' && depth > 0) --depth;
    if (c != ',' || depth > 0) continue;
    if (i > begin) items.push_back(text.substr(begin, i - begin));
    begin = i + 1;
  }
  return items;
}

std::string_view without_prefix(std::string_view item, std::string_view prefix) {
  return item.substr(0, prefix.size()) == prefix ? item.substr(prefix.size()) : item;
}

std::optional<int> whole_number(std::string_view text) {
  int value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size() || value < 0) return std::nullopt;
  return value;
}

// One item, "gpu[:type][:count]" after prefixes and the "(...)" detail are gone.
void add_item(std::string_view item, GpuCount& total) {
  item = item.substr(0, item.find('('));
  item = without_prefix(without_prefix(item, "gres:"), "gres/");
  std::vector<std::string_view> parts;
  std::size_t begin = 0;
  for (std::size_t i = 0; i <= item.size(); ++i) {
    if (i < item.size() && item[i] != ':' && item[i] != '=') continue;
    parts.push_back(item.substr(begin, i - begin));
    begin = i + 1;
  }
  if (parts.empty() || parts[0] != "gpu") return;
  std::string_view type;
  int count = 1;
  if (parts.size() >= 2) {
    if (auto number = whole_number(parts.back())) {
      count = *number;
      if (parts.size() >= 3) type = parts[1];
    } else {
      type = parts[1];
    }
  }
  total.count += count;
  if (total.type.empty()) total.type = std::string(type);
}

}  // namespace

GpuCount gpus_named(std::string_view text) {
  GpuCount total;
  for (std::string_view item : items_of(text)) add_item(item, total);
  return total;
}

}  // namespace allot::slurm
