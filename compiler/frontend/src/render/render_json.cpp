// Diagnostics as one JSON document, for scripts and editors.
#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "allot/frontend.h"
#include "allot/text.h"

namespace allot {
namespace {

using Json = nlohmann::ordered_json;

std::string note_text(const DiagnosticNote& note) {
  if (!note.span) return note.message;
  return fmt::format("{} ({}:{}:{})", note.message, note.span->file, note.span->line, note.span->column);
}

Json diagnostic_json(const Diagnostic& d) {
  Json notes = Json::array();
  for (const auto& note : d.notes) notes.push_back(note_text(note));
  return Json{
      {"severity", d.severity == Severity::error ? "error" : "warning"},
      {"code", d.code},
      {"message", d.message},
      {"file", d.span.file},
      {"line", d.span.line},
      {"column", d.span.column},
      {"end_line", d.span.end_line},
      {"end_column", d.span.end_column},
      {"notes", std::move(notes)},
      {"help", d.help.empty() ? Json(nullptr) : Json(d.help)},
  };
}

}  // namespace

std::string render_json(const std::vector<Diagnostic>& diagnostics) {
  Json list = Json::array();
  for (const auto& diagnostic : diagnostics) list.push_back(diagnostic_json(diagnostic));
  const Json document{{"diagnostics", std::move(list)}};
  // A file name need not be UTF-8; replacing bad bytes keeps the output valid JSON.
  return support::json_without_controls(document.dump(2, ' ', false, Json::error_handler_t::replace)) + "\n";
}

}  // namespace allot
