// Diagnostics as SARIF 2.1.0, the format GitHub code scanning uploads
// (github/codeql-action/upload-sarif) and most CI dashboards read.
#include <map>
#include <nlohmann/json.hpp>

#include "allot/frontend.h"
#include "allot/text.h"
#include "artifact_path.h"
#include "rule_catalog.h"

namespace allot {
namespace {

using Json = nlohmann::ordered_json;

// Where the project and its diagnostic reference live; rules link into it.
constexpr const char* kInformationUri = "https://github.com/allot-lang/allot";
constexpr const char* kDiagnosticsDoc = "https://github.com/allot-lang/allot/blob/main/docs/DIAGNOSTICS.md";

const char* level(Severity severity) { return severity == Severity::error ? "error" : "warning"; }

// Rule index of every code, in code order (so the output does not depend on
// which diagnostic came first).
std::map<std::string, std::size_t> rule_indices(const std::vector<Diagnostic>& diagnostics) {
  std::map<std::string, std::size_t> indices;
  for (const auto& d : diagnostics) indices.emplace(d.code, 0);
  std::size_t next = 0;
  for (auto& entry : indices) entry.second = next++;
  return indices;
}

Json rule_json(const std::string& code, Severity default_severity) {
  const std::string summary = rule_summary(code);
  const std::string help_uri = std::string(kDiagnosticsDoc) + "#" + code;
  return Json{
      {"id", code},
      {"name", rule_name(code)},
      {"shortDescription", {{"text", summary}}},
      {"fullDescription", {{"text", summary}}},
      {"helpUri", help_uri},
      {"help", {{"text", "See " + help_uri + " for examples and how to fix it."}}},
      {"defaultConfiguration", {{"level", level(default_severity)}}},
  };
}

Json rules_json(const std::vector<Diagnostic>& diagnostics, const std::map<std::string, std::size_t>& indices) {
  std::map<std::string, Severity> severities;
  for (const auto& d : diagnostics) severities.emplace(d.code, d.severity);
  Json rules = Json::array();
  for (const auto& entry : indices) rules.push_back(rule_json(entry.first, severities.at(entry.first)));
  return rules;
}

// A file under the checkout is relative to %SRCROOT% (what code scanning
// expects); one outside it can only be named by an absolute `file:` URI.
Json artifact_location(const std::string& file) {
  const std::string path = repository_path(file);
  if (path.starts_with("/")) return Json{{"uri", "file://" + uri_reference(path)}};
  return Json{{"uri", uri_reference(path)}, {"uriBaseId", "%SRCROOT%"}};
}

// A file and, when the span has a line (an unreadable file has none), the region.
Json physical_location(const SourceSpan& span) {
  Json location{{"artifactLocation", artifact_location(span.file)}};
  if (span.line > 0) {
    location["region"] = {{"startLine", span.line},
                          {"startColumn", span.column},
                          {"endLine", span.end_line},
                          {"endColumn", span.end_column}};
  }
  return location;
}

// The message, the notes that have no place of their own, then the help.
std::string message_text(const Diagnostic& d) {
  std::string text = d.message;
  for (const auto& note : d.notes) {
    if (!note.span) text += "\nnote: " + note.message;
  }
  if (!d.help.empty()) text += "\nhelp: " + d.help;
  return text;
}

Json related_locations(const Diagnostic& d) {
  Json related = Json::array();
  for (const auto& note : d.notes) {
    if (!note.span) continue;
    related.push_back(Json{{"id", related.size()},
                           {"physicalLocation", physical_location(*note.span)},
                           {"message", {{"text", note.message}}}});
  }
  return related;
}

Json result_json(const Diagnostic& d, std::size_t rule_index) {
  Json result{
      {"ruleId", d.code},
      {"ruleIndex", rule_index},
      {"level", level(d.severity)},
      {"message", {{"text", message_text(d)}}},
      {"locations", Json::array({Json{{"physicalLocation", physical_location(d.span)}}})},
  };
  Json related = related_locations(d);
  if (!related.empty()) result["relatedLocations"] = std::move(related);
  return result;
}

}  // namespace

std::string render_sarif(const std::vector<Diagnostic>& diagnostics) {
  const auto indices = rule_indices(diagnostics);
  Json results = Json::array();
  for (const auto& d : diagnostics) results.push_back(result_json(d, indices.at(d.code)));
  Json driver{{"name", "allot"},
              {"informationUri", kInformationUri},
              {"version", ALLOT_VERSION},
              {"rules", rules_json(diagnostics, indices)}};
  Json run{{"tool", {{"driver", std::move(driver)}}},
           // Our columns count code points, not SARIF's default UTF-16 code units.
           {"columnKind", "unicodeCodePoints"},
           {"results", std::move(results)}};
  const Json log{{"$schema", "https://json.schemastore.org/sarif-2.1.0.json"},
                 {"version", "2.1.0"},
                 {"runs", Json::array({std::move(run)})}};
  return support::json_without_controls(log.dump(2, ' ', false, Json::error_handler_t::replace)) + "\n";
}

}  // namespace allot
