// The table of diagnostic codes (compiler/frontend/src/diagnostic_codes.h) is the one
// list of codes: docs/DIAGNOSTICS.md documents exactly its codes, with the
// same severity and summary, the rule catalogue (SARIF) describes each of
// them, and every code has a golden case in tests/golden/check (or is exempt
// below, with the test that produces it instead).
#include <catch2/catch.hpp>

#include <filesystem>
#include <optional>
#include <set>
#include <sstream>
#include <string>

#include "allot/compile.h"
#include "allot/frontend.h"
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
    // Only compiling for running reports it, when LLVM's JIT cannot map
    // executable memory (a hardened host); jit_unavailable_test.cpp produces it
    // for real in a child process under a seccomp filter that refuses PROT_EXEC.
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

// GCC 12's <regex> trips -Werror=maybe-uninitialized at -O1 (the sanitizer
// build), so the docs are read with plain string functions.

// The lines of `text`, trailing blanks and tabs removed.
std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream stream(text);
  for (std::string line; std::getline(stream, line);) {
    line.erase(line.find_last_not_of(" \t") + 1);
    lines.push_back(line);
  }
  return lines;
}

bool is_code_name(std::string_view name) {
  if (name.empty() || name[0] < 'a' || name[0] > 'z') return false;
  for (char c : name) {
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_')) return false;
  }
  return true;
}

// The name of a `## name` section heading (one word), if `line` is one.
std::optional<std::string> section_name(const std::string& line) {
  if (line.rfind("## ", 0) != 0) return std::nullopt;
  std::string name = line.substr(3);
  if (name.empty() || name.find_first_of(" \t") != std::string::npos) return std::nullopt;
  return name;
}

// A summary-table row "| [`code`](#anchor) | severity | summary |" as {code, anchor, severity, summary}.
struct TableRow {
  std::string code, anchor, severity, summary;
};
std::optional<TableRow> table_row(const std::string& line) {
  const std::string open = "| [`", link = "`](#", cell = ") | ";
  if (line.rfind(open, 0) != 0 || line.size() < 2 || line.compare(line.size() - 2, 2, " |") != 0) return std::nullopt;
  const std::size_t code_end = line.find(link, open.size());
  if (code_end == std::string::npos) return std::nullopt;
  const std::size_t anchor_end = line.find(cell, code_end + link.size());
  if (anchor_end == std::string::npos) return std::nullopt;
  const std::size_t severity_start = anchor_end + cell.size();
  const std::size_t severity_end = line.find(" | ", severity_start);
  if (severity_end == std::string::npos || severity_end + 3 > line.size() - 2) return std::nullopt;
  TableRow row{line.substr(open.size(), code_end - open.size()),
               line.substr(code_end + link.size(), anchor_end - code_end - link.size()),
               line.substr(severity_start, severity_end - severity_start),
               line.substr(severity_end + 3, line.size() - 2 - (severity_end + 3))};
  if (!is_code_name(row.code) || (row.severity != "error" && row.severity != "warning")) return std::nullopt;
  return row;
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
    CHECK(is_code_name(info.name));
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
  for (const std::string& line : lines_of(docs)) {
    const auto section = section_name(line);
    if (!section) continue;
    const std::string& name = *section;
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
  for (const std::string& line : lines_of(docs)) {
    const auto row = table_row(line);
    if (!row) continue;
    const std::string& name = row->code;
    INFO("table row " << name);
    CHECK(rows.insert(name).second);
    CHECK(row->anchor == name);
    const auto code = allot::find_code(name);
    REQUIRE(code.has_value());
    const auto& info = allot::code_info(*code);
    CHECK(row->severity == (info.severity == allot::Severity::error ? "error" : "warning"));
    CHECK(row->summary == std::string(info.summary));
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
