// The machine-readable renderers: JSON for scripts, SARIF for GitHub code
// scanning, workflow commands for GitHub annotations. Each test renders one
// set of diagnostics spanning two files and reads the output back the way the
// consumer would.
#include <catch2/catch.hpp>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "allot/frontend.h"

namespace {

using Json = nlohmann::json;

allot::SourceSpan span(std::string file, int line, int column, int end_line, int end_column) {
  return {std::move(file), line, column, end_line, end_column};
}

// An error with a note pointing into a second file, a warning, and an
// unreadable file, sorted by location as check_files returns them.
std::vector<allot::Diagnostic> two_file_diagnostics() {
  allot::Diagnostic duplicate{allot::Severity::error,
                              "duplicate_name",
                              "class `debug` is declared twice",
                              span("policies/team.allot", 12, 9, 12, 14),
                              {{"first declared here", span("stdlib/classes.allot", 3, 7, 3, 12)},
                               {"library classes are visible to every importer", std::nullopt}},
                              "rename one of them"};
  allot::Diagnostic near{allot::Severity::warning,
                         "review_date_near",
                         "review of `product` is due on 2026-12-10",
                         span("policies/team.allot", 20, 31, 20, 41),
                         {},
                         ""};
  allot::Diagnostic unreadable{allot::Severity::error,
                               "io_error",
                               "cannot read `policies/missing.allot`",
                               span("policies/missing.allot", 0, 0, 0, 0),
                               {},
                               "check that the path exists and is a readable file"};
  return {duplicate, near, unreadable};
}

}  // namespace

TEST_CASE("json output lists every diagnostic with its span, notes and help", "[render][json]") {
  const std::string out = allot::render_json(two_file_diagnostics());
  REQUIRE(out.ends_with("}\n"));
  CHECK(out.find("\n  \"diagnostics\": [\n") != std::string::npos);  // indented by two spaces
  const Json document = Json::parse(out);
  REQUIRE(document.size() == 1);
  const Json& list = document.at("diagnostics");
  REQUIRE(list.size() == 3);

  const Json& duplicate = list[0];
  CHECK(duplicate.at("severity") == "error");
  CHECK(duplicate.at("code") == "duplicate_name");
  CHECK(duplicate.at("message") == "class `debug` is declared twice");
  CHECK(duplicate.at("file") == "policies/team.allot");
  CHECK(duplicate.at("line") == 12);
  CHECK(duplicate.at("column") == 9);
  CHECK(duplicate.at("end_line") == 12);
  CHECK(duplicate.at("end_column") == 14);
  CHECK(duplicate.at("notes") == Json::array({"first declared here (stdlib/classes.allot:3:7)",
                                              "library classes are visible to every importer"}));
  CHECK(duplicate.at("help") == "rename one of them");

  const Json& near = list[1];
  CHECK(near.at("severity") == "warning");
  CHECK(near.at("code") == "review_date_near");
  CHECK(near.at("notes") == Json::array());
  CHECK(near.at("help").is_null());

  const Json& unreadable = list[2];
  CHECK(unreadable.at("code") == "io_error");
  CHECK(unreadable.at("file") == "policies/missing.allot");
  CHECK(unreadable.at("line") == 0);
}

TEST_CASE("json output of a clean run is an empty list", "[render][json]") {
  CHECK(Json::parse(allot::render_json({})) == Json{{"diagnostics", Json::array()}});
}

TEST_CASE("sarif output is a SARIF 2.1.0 log with one rule per code", "[render][sarif]") {
  const Json log = Json::parse(allot::render_sarif(two_file_diagnostics()));
  CHECK(log.at("$schema") == "https://json.schemastore.org/sarif-2.1.0.json");
  CHECK(log.at("version") == "2.1.0");
  REQUIRE(log.at("runs").size() == 1);
  const Json& run = log.at("runs")[0];
  CHECK(run.at("columnKind") == "unicodeCodePoints");
  const Json& driver = run.at("tool").at("driver");
  CHECK(driver.at("name") == "allot");
  CHECK(driver.at("informationUri").get<std::string>().starts_with("https://"));
  CHECK_FALSE(driver.at("version").get<std::string>().empty());

  const Json& rules = driver.at("rules");
  REQUIRE(rules.size() == 3);
  std::vector<std::string> ids;
  for (const Json& rule : rules) {
    const std::string id = rule.at("id");
    ids.push_back(id);
    CHECK(rule.at("helpUri").get<std::string>().ends_with("docs/DIAGNOSTICS.md#" + id));
    CHECK_FALSE(rule.at("shortDescription").at("text").get<std::string>().empty());
    CHECK_FALSE(rule.at("fullDescription").at("text").get<std::string>().empty());
    CHECK_FALSE(rule.at("help").at("text").get<std::string>().empty());
  }
  CHECK(ids == std::vector<std::string>{"duplicate_name", "io_error", "review_date_near"});
  CHECK(rules[0].at("name") == "DuplicateName");
  CHECK(rules[0].at("shortDescription").at("text") == "two declarations share one name");
  CHECK(rules[2].at("defaultConfiguration").at("level") == "warning");

  const Json& results = run.at("results");
  REQUIRE(results.size() == 3);
  for (const Json& result : results) {
    CHECK(rules.at(result.at("ruleIndex").get<std::size_t>()).at("id") == result.at("ruleId"));
    REQUIRE(result.at("locations").size() == 1);
  }
}

TEST_CASE("sarif results carry the level, message with help, region and related locations", "[render][sarif]") {
  const Json results = Json::parse(allot::render_sarif(two_file_diagnostics())).at("runs")[0].at("results");
  REQUIRE(results.size() == 3);

  const Json& duplicate = results[0];
  CHECK(duplicate.at("ruleId") == "duplicate_name");
  CHECK(duplicate.at("level") == "error");
  CHECK(duplicate.at("message").at("text") ==
        "class `debug` is declared twice\nnote: library classes are visible to every importer\n"
        "help: rename one of them");
  const Json& location = duplicate.at("locations")[0].at("physicalLocation");
  CHECK(location.at("artifactLocation") == Json{{"uri", "policies/team.allot"}, {"uriBaseId", "%SRCROOT%"}});
  CHECK(location.at("region") == Json{{"startLine", 12}, {"startColumn", 9}, {"endLine", 12}, {"endColumn", 14}});
  REQUIRE(duplicate.at("relatedLocations").size() == 1);
  const Json& related = duplicate.at("relatedLocations")[0];
  CHECK(related.at("message").at("text") == "first declared here");
  CHECK(related.at("physicalLocation").at("artifactLocation").at("uri") == "stdlib/classes.allot");
  CHECK(related.at("physicalLocation").at("region").at("startLine") == 3);
  CHECK(related.at("physicalLocation").at("region").at("startColumn") == 7);

  const Json& near = results[1];
  CHECK(near.at("level") == "warning");
  CHECK(near.at("message").at("text") == "review of `product` is due on 2026-12-10");
  CHECK_FALSE(near.contains("relatedLocations"));

  const Json& unreadable = results[2];
  CHECK(unreadable.at("ruleId") == "io_error");
  const Json& file_only = unreadable.at("locations")[0].at("physicalLocation");
  CHECK(file_only.at("artifactLocation").at("uri") == "policies/missing.allot");
  CHECK_FALSE(file_only.contains("region"));
}

TEST_CASE("sarif artifact uris are relative, use forward slashes and are percent-encoded", "[render][sarif]") {
  const std::string absolute = (std::filesystem::current_path() / "policies" / "team.allot").string();
  std::vector<allot::Diagnostic> diagnostics;
  for (const std::string& file :
       {absolute, std::string("./policies/./my team.allot"), std::string("/elsewhere/x.allot")}) {
    diagnostics.push_back({allot::Severity::error, "syntax_error", "unexpected `}`", span(file, 1, 1, 1, 2), {}, ""});
  }
  const Json results = Json::parse(allot::render_sarif(diagnostics)).at("runs")[0].at("results");
  const auto uri = [&](std::size_t i) {
    return results[i].at("locations")[0].at("physicalLocation").at("artifactLocation").at("uri");
  };
  CHECK(uri(0) == "policies/team.allot");
  CHECK(uri(1) == "policies/my%20team.allot");
  // A file outside the checkout can only be named absolutely.
  CHECK(uri(2) == "file:///elsewhere/x.allot");
  CHECK_FALSE(results[2].at("locations")[0].at("physicalLocation").at("artifactLocation").contains("uriBaseId"));
  CHECK(results[0].at("locations")[0].at("physicalLocation").at("artifactLocation").at("uriBaseId") == "%SRCROOT%");
  // Two results of one code share one rule.
  CHECK(Json::parse(allot::render_sarif(diagnostics)).at("runs")[0].at("tool").at("driver").at("rules").size() == 1);
}

TEST_CASE("sarif output of a clean run has no results", "[render][sarif]") {
  const Json run = Json::parse(allot::render_sarif({})).at("runs")[0];
  CHECK(run.at("results") == Json::array());
  CHECK(run.at("tool").at("driver").at("rules") == Json::array());
}

TEST_CASE("github output is one workflow command per diagnostic", "[render][github]") {
  CHECK(allot::render_github(two_file_diagnostics()) ==
        "::error file=policies/team.allot,line=12,col=9,endLine=12,endColumn=14,title=duplicate_name::"
        "class `debug` is declared twice%0Anote: first declared here (stdlib/classes.allot:3:7)"
        "%0Anote: library classes are visible to every importer%0Ahelp: rename one of them\n"
        "::warning file=policies/team.allot,line=20,col=31,endLine=20,endColumn=41,title=review_date_near::"
        "review of `product` is due on 2026-12-10\n"
        "::error file=policies/missing.allot,title=io_error::cannot read `policies/missing.allot`"
        "%0Ahelp: check that the path exists and is a readable file\n");
}

TEST_CASE("github output escapes messages and properties", "[render][github]") {
  const allot::Diagnostic tricky{allot::Severity::error,
                                 "share_sum_mismatch",
                                 "shares sum to 95%, not 100%: a\r\nb",
                                 span("teams/a,b:c%.allot", 3, 5, 3, 9),
                                 {},
                                 "add `unallocated 5%`"};
  CHECK(allot::render_github({tricky}) ==
        "::error file=teams/a%2Cb%3Ac%25.allot,line=3,col=5,endLine=3,endColumn=9,title=share_sum_mismatch::"
        "shares sum to 95%25, not 100%25: a%0D%0Ab%0Ahelp: add `unallocated 5%25`\n");
}

TEST_CASE("github output of a clean run is empty", "[render][github]") { CHECK(allot::render_github({}).empty()); }
