#include "state/snapshot_format.h"

#include <array>

#include <fmt/format.h>

namespace allot::runtime::snapshot {
namespace {

constexpr std::array<const char*, 4> kLabels = {"none", "low", "medium", "high"};

bool bare_key_character(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-';
}

}  // namespace

const char* label_name(int label) {
  return label >= 0 && static_cast<std::size_t>(label) < kLabels.size() ? kLabels[static_cast<std::size_t>(label)]
                                                                        : "none";
}

std::optional<int> label_value(std::string_view name) {
  for (std::size_t i = 0; i < kLabels.size(); ++i) {
    if (name == kLabels[i]) return static_cast<int>(i);
  }
  return std::nullopt;
}

std::string quoted(std::string_view text) {
  std::string out = "\"";
  for (const char c : text) {
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\t':
        out += "\\t";
        break;
      default:
        if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) {
          out += fmt::format("\\u{:04X}", static_cast<unsigned char>(c));
        } else {
          out += c;
        }
    }
  }
  return out + "\"";
}

std::string key(std::string_view text) {
  bool bare = !text.empty();
  for (const char c : text) bare = bare && bare_key_character(c);
  return bare ? std::string(text) : quoted(text);
}

std::string number(double value) { return value == 0 ? "0" : fmt::format("{}", value); }

}  // namespace allot::runtime::snapshot
