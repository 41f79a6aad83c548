// Diagnostics as GitHub Actions workflow commands, which GitHub shows as
// annotations on the pull request's diff.
#include <fmt/format.h>

#include "allot/frontend.h"
#include "artifact_path.h"

namespace allot {
namespace {

// GitHub's escaping for a command's message (actions/toolkit `escapeData`).
std::string escape_data(const std::string& text) {
  std::string result;
  for (const char c : text) {
    switch (c) {
      case '%':
        result += "%25";
        break;
      case '\r':
        result += "%0D";
        break;
      case '\n':
        result += "%0A";
        break;
      default:
        result += c;
    }
  }
  return result;
}

// GitHub's escaping for a property value (`escapeProperty`): `:` and `,`
// would otherwise end the value.
std::string escape_property(const std::string& text) {
  std::string result;
  for (const char c : escape_data(text)) {
    if (c == ':') {
      result += "%3A";
    } else if (c == ',') {
      result += "%2C";
    } else {
      result += c;
    }
  }
  return result;
}

std::string properties(const Diagnostic& d) {
  std::string result = "file=" + escape_property(repository_path(d.span.file));
  // An unreadable file (line 0) is annotated on the file as a whole.
  if (d.span.line > 0) {
    result += fmt::format(",line={},col={},endLine={},endColumn={}", d.span.line, d.span.column, d.span.end_line,
                          d.span.end_column);
  }
  return result + ",title=" + escape_property(d.code);
}

// The message, then each note and the help on lines of their own.
std::string full_message(const Diagnostic& d) {
  std::string text = d.message;
  for (const auto& note : d.notes) {
    text += "\nnote: " + note.message;
    if (note.span) text += fmt::format(" ({}:{}:{})", note.span->file, note.span->line, note.span->column);
  }
  if (!d.help.empty()) text += "\nhelp: " + d.help;
  return text;
}

}  // namespace

std::string render_github(const std::vector<Diagnostic>& diagnostics) {
  std::string out;
  for (const auto& d : diagnostics) {
    out += fmt::format("::{} {}::{}\n", d.severity == Severity::error ? "error" : "warning", properties(d),
                       escape_data(full_message(d)));
  }
  return out;
}

}  // namespace allot
