#include "text_format.h"

#include <cmath>

#include <fmt/format.h>

namespace allot::metrics {
namespace {

// Backslash and newline always; the double quote only in label values.
std::string escape(std::string_view text, bool quote) {
  std::string escaped;
  escaped.reserve(text.size());
  for (char c : text) {
    if (c == '\\') {
      escaped += "\\\\";
    } else if (c == '\n') {
      escaped += "\\n";
    } else if (c == '"' && quote) {
      escaped += "\\\"";
    } else {
      escaped += c;
    }
  }
  return escaped;
}

}  // namespace

std::string format_value(double value) {
  if (std::isnan(value)) return "NaN";
  if (std::isinf(value)) return value > 0 ? "+Inf" : "-Inf";
  // fmt writes 1e16 as "1e+16": a large integral count reads better whole.
  if (value == std::trunc(value) && std::fabs(value) < 9.2e18) {
    return fmt::format("{}", static_cast<long long>(value));
  }
  return fmt::format("{}", value);
}

std::string escape_label_value(std::string_view value) { return escape(value, true); }

std::string escape_help(std::string_view help) { return escape(help, false); }

void append_sample(std::string& out, std::string_view name, const std::vector<std::string>& label_names,
                   const std::vector<std::string>& label_values, const ExtraLabel* extra, double value) {
  out += name;
  if (!label_names.empty() || extra != nullptr) {
    std::string separator = "{";
    for (std::size_t i = 0; i < label_names.size(); ++i) {
      fmt::format_to(std::back_inserter(out), "{}{}=\"{}\"", separator, label_names[i],
                     escape_label_value(label_values[i]));
      separator = ",";
    }
    if (extra != nullptr) {
      fmt::format_to(std::back_inserter(out), "{}{}=\"{}\"", separator, extra->name, escape_label_value(extra->value));
    }
    out += '}';
  }
  out += ' ';
  out += format_value(value);
  out += '\n';
}

}  // namespace allot::metrics
