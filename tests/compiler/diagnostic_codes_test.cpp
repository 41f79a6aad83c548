// The table of diagnostic codes (compiler/src/diagnostic_codes.h) is the one
// list of codes: docs/DIAGNOSTICS.md documents exactly its codes, with the
// same severity and summary, the rule catalogue (SARIF) describes each of
// them, and every code has a golden case in tests/golden/check (or is exempt
// below, with the test that produces it instead).
#include <catch2/catch.hpp>

#include <filesystem>
#include <regex>
#include <set>
#include <sstream>
#include <string>

#include "allot/compiler.h"
#include "allot/policy.h"
#include "cli/run_allot.h"
#include "diagnostic_codes.h"
#include "render/rule_catalog.h"

namespace fs = std::filesystem;

namespace {

const fs::path kSource(ALLOT_SOURCE_DIR);

// Codes that `allot check` cannot report for a golden input, and why. Each
// still has a test below (or a reason it cannot have one).
const std::set<std::string> kNoGolden = {
    // Only `allot compile --emit=...` reports it (goldens run `allot check`);
    // produced below by asking for an output that does not exist.
    "codegen_failed",
    // Only compiling for running reports it, and only when LLVM's JIT cannot
    // start on the machine: no input produces it where LLVM works (the JIT has
    // no test seam), so it has neither a golden nor a test that triggers it.
    "jit_unavailable",
    // Needs a policy file over 1 MiB in the repository; produced below from a
    // 2 MiB text instead.
    "input_too_large",
};

std::set<std::string> table_names() {
  std::set<std::string> names;
  for (const auto& info : allot::kDiagnosticCodes) names.emplace(info.name);
  return names;
}

// The lines of `text` that `pattern` matches whole: each as its groups (0: the line).
std::vector<std::vector<std::string>> matching_lines(const std::string& text, const std::regex& pattern) {
  std::vector<std::vector<std::string>> found;
  std::istringstream stream(text);
  for (std::string line; std::getline(stream, line);) {
    std::smatch match;
    if (std::regex_match(line, match, pattern)) found.emplace_back(match.begin(), match.end());
  }
  return found;
}

std::vector<std::string> codes_of(const std::vector<allot::Diagnostic>& diagnostics) {
  std::vector<std::string> codes;
  for (const auto& d : diagnostics) codes.push_back(d.code);
  return codes;
}

}  // namespace

TEST_CASE("the diagnostic code table is in enum order with unique names", "[diagnostics][codes]") {
  REQUIRE(allot::kDiagnosticCodes.size() > 50);
  std::set<std::string_view> seen;
  for (std::size_t i = 0; i < allot::kDiagnosticCodes.size(); ++i) {
    const auto& info = allot::kDiagnosticCodes[i];
    INFO(std::string(info.name));
    CHECK(static_cast<std::size_t>(info.code) == i);
    CHECK(seen.insert(info.name).second);
    CHECK(std::regex_match(std::string(info.name), std::regex("[a-z][a-z0-9_]*")));
    CHECK_FALSE(info.summary.empty());
    CHECK(allot::code_name(info.code) == info.name);
    CHECK((allot::find_code(info.name) == info.code));
    // The SARIF catalogue describes the code from the table, not from its words.
    CHECK(allot::rule_summary(std::string(info.name)) == info.summary);
  }
  CHECK_FALSE(allot::find_code("no_such_code").has_value());
  CHECK(allot::rule_summary("no_such_code") == "no such code");
}

TEST_CASE("docs/DIAGNOSTICS.md documents exactly the codes of the table", "[diagnostics][codes][docs]") {
  const std::string docs = allot_cli_test::read_text(kSource / "docs/DIAGNOSTICS.md");
  REQUIRE_FALSE(docs.empty());
  const std::set<std::string> table = table_names();

  // One `## code` section per code.
  std::set<std::string> sections;
  for (const auto& match : matching_lines(docs, std::regex("## (\\S+)[ \\t]*"))) {
    const std::string& name = match[1];
    INFO("section `## " << name << "`");
    CHECK(sections.insert(name).second);
    CHECK(table.count(name) == 1);
  }
  for (const auto& name : table) {
    INFO("code " << name);
    CHECK(sections.count(name) == 1);
  }

  // One row of the summary table per code: | [`code`](#code) | severity | summary |
  std::set<std::string> rows;
  const std::regex row("\\| \\[`([a-z0-9_]+)`\\]\\(#([a-z0-9_]+)\\) \\| (error|warning) \\| (.*) \\|[ \\t]*");
  for (const auto& match : matching_lines(docs, row)) {
    const std::string& name = match[1];
    INFO("table row " << name);
    CHECK(rows.insert(name).second);
    CHECK(match[2] == name);
    const auto code = allot::find_code(name);
    REQUIRE(code.has_value());
    const auto& info = allot::code_info(*code);
    CHECK(match[3] == (info.severity == allot::Severity::error ? "error" : "warning"));
    CHECK(match[4] == std::string(info.summary));
  }
  CHECK(rows == table);
}

TEST_CASE("every diagnostic code has a golden case, and every golden case names a code",
          "[diagnostics][codes][golden]") {
  const std::set<std::string> table = table_names();
  std::set<std::string> covered;
  for (const auto& entry : fs::directory_iterator(kSource / "tests/golden/check")) {
    if (!entry.is_directory()) continue;
    const std::string folder = entry.path().filename().string();
    const std::string prefix = folder.substr(0, folder.find('-'));
    INFO("golden folder " << folder);
    if (prefix == "clean") {
      CHECK(folder.size() > prefix.size());  // `clean-what`
      continue;
    }
    CHECK(table.count(prefix) == 1);
    covered.insert(prefix);
  }
  for (const auto& name : table) {
    INFO("code " << name);
    if (kNoGolden.count(name)) {
      CHECK(covered.count(name) == 0);  // a golden was added: drop the exemption
    } else {
      CHECK(covered.count(name) == 1);
    }
  }
  for (const auto& name : kNoGolden) CHECK(table.count(name) == 1);
}

TEST_CASE("the codes without a golden case are produced where they arise", "[diagnostics][codes]") {
  allot::CheckOptions check;
  check.today = allot::parse_date("2026-12-01");

  SECTION("input_too_large: a policy text over 1 MiB") {
    const auto result = allot::check_source("big.allot", std::string(2 << 20, ' '), check);
    CHECK(codes_of(result.diagnostics) == std::vector<std::string>{"input_too_large"});
    CHECK(result.diagnostics.at(0).severity == allot::Severity::error);
  }
  SECTION("codegen_failed: an output `allot compile --emit` does not have") {
    allot::CompileOptions options;
    options.check = check;
    const auto result =
        allot::emit_policy((kSource / "tests/golden/check/clean-seed_company/input.allot").string(), "wasm", options);
    CHECK_FALSE(result.text);
    CHECK(codes_of(result.diagnostics) == std::vector<std::string>{"codegen_failed"});
    CHECK(result.diagnostics.at(0).severity == allot::Severity::error);
  }
}
