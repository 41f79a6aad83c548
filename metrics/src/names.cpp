#include "names.h"

#include <cmath>
#include <stdexcept>

#include <fmt/format.h>

namespace allot::metrics {
namespace {

bool is_letter(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
bool is_digit(char c) { return c >= '0' && c <= '9'; }

// [a-zA-Z_:][a-zA-Z0-9_:]* (colons included) or [a-zA-Z_][a-zA-Z0-9_]*.
bool is_name(std::string_view text, bool colons) {
  if (text.empty() || is_digit(text.front())) return false;
  for (char c : text) {
    if (!is_letter(c) && !is_digit(c) && c != '_' && !(colons && c == ':')) return false;
  }
  return true;
}

[[noreturn]] void refuse(std::string message) { throw std::invalid_argument(std::move(message)); }

void check_name(Kind kind, std::string_view name) {
  if (!is_name(name, true)) refuse(fmt::format("metric name `{}` is not [a-zA-Z_:][a-zA-Z0-9_:]*", name));
  const bool total = name.ends_with("_total");
  if (kind == Kind::counter && !total) refuse(fmt::format("counter `{}` must be named `*_total`", name));
  if (kind != Kind::counter && total) refuse(fmt::format("{} `{}` may not end in `_total`", kind_name(kind), name));
  // A histogram writes NAME_bucket, NAME_sum and NAME_count: another family
  // ending so could collide with one, and promtool flags any that does.
  for (std::string_view suffix : {"_bucket", "_sum", "_count"}) {
    if (name.ends_with(suffix)) refuse(fmt::format("metric name `{}` may not end in `{}`", name, suffix));
  }
}

void check_label_names(Kind kind, std::string_view name, const std::vector<std::string>& label_names) {
  for (std::size_t i = 0; i < label_names.size(); ++i) {
    const std::string& label = label_names[i];
    if (!is_name(label, false))
      refuse(fmt::format("label name `{}` of `{}` is not [a-zA-Z_][a-zA-Z0-9_]*", label, name));
    if (label.starts_with("__")) refuse(fmt::format("label name `{}` of `{}` is reserved (`__`)", label, name));
    if (kind == Kind::histogram && label == "le") refuse(fmt::format("histogram `{}` may not have a label `le`", name));
    for (std::size_t j = 0; j < i; ++j) {
      if (label_names[j] == label) refuse(fmt::format("label name `{}` of `{}` repeats", label, name));
    }
  }
}

}  // namespace

std::string_view kind_name(Kind kind) {
  switch (kind) {
    case Kind::counter:
      return "counter";
    case Kind::gauge:
      return "gauge";
    case Kind::histogram:
      return "histogram";
  }
  return "untyped";
}

void check_family(Kind kind, std::string_view name, std::string_view help,
                  const std::vector<std::string>& label_names) {
  check_name(kind, name);
  if (help.empty()) refuse(fmt::format("metric `{}` has no help text", name));
  check_label_names(kind, name, label_names);
}

void check_upper_bounds(const std::vector<double>& upper_bounds) {
  for (std::size_t i = 0; i < upper_bounds.size(); ++i) {
    if (!std::isfinite(upper_bounds[i])) refuse("histogram bucket bounds must be finite (+Inf is implicit)");
    if (i > 0 && !(upper_bounds[i - 1] < upper_bounds[i])) {
      refuse("histogram bucket bounds must be strictly increasing");
    }
  }
}

}  // namespace allot::metrics
