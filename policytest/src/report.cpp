// `allot test`'s reports (docs/TESTING.md "Running tests"): a line per case
// for a terminal, a JSON document for tools, JUnit XML for CI systems.
// Deterministic: the same results give the same bytes.
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>

#include "allot/policy_test.h"
#include "allot/text.h"

namespace allot::policytest {
namespace {

// XML 1.0 allows no control characters but tab and newlines: printable() shows them as symbols.
std::string escape_xml(std::string_view text) { return support::escape_html(support::printable(text)); }

int failures_of(const FileResult& file) {
  int failed = file.error ? 1 : 0;
  for (const CaseResult& one : file.cases) failed += one.passed() ? 0 : 1;
  return failed;
}

}  // namespace

Summary summarize(const std::vector<FileResult>& results) {
  Summary summary;
  summary.files = static_cast<int>(results.size());
  for (const FileResult& file : results) {
    if (file.error) ++summary.failed;
    for (const CaseResult& one : file.cases) {
      ++summary.cases;
      (one.passed() ? summary.passed : summary.failed) += 1;
    }
  }
  return summary;
}

std::string report_text(const std::vector<FileResult>& results, bool color) {
  const auto paint = [&](const char* code, std::string_view text) {
    return color ? fmt::format("\x1b[{}m{}\x1b[0m", code, text) : std::string(text);
  };
  std::string out;
  for (const FileResult& file : results) {
    if (file.error) {
      // An error located in the file names it already ("FILE:LINE:COLUMN: FIELD: ...").
      const bool located = file.error->starts_with(file.file + ":");
      out += fmt::format("{} {}{}\n", paint("1;31", "ERROR"), located ? "" : file.file + ": ", *file.error);
      continue;
    }
    for (const CaseResult& one : file.cases) {
      out += fmt::format("{} {}:{}: {}\n", one.passed() ? paint("32", "PASS") : paint("1;31", "FAIL"), file.file,
                         one.line, one.name);
      for (const Failure& failure : one.failures) {
        out += fmt::format("  {}:{}: {}: {}\n", file.file, failure.line, failure.expect, failure.message);
      }
    }
  }
  const Summary summary = summarize(results);
  out += fmt::format("{} case{} in {} file{}: {} passed, {} failed\n", summary.cases, summary.cases == 1 ? "" : "s",
                     summary.files, summary.files == 1 ? "" : "s", summary.passed, summary.failed);
  // Names and messages come from the files: none reaches a terminal raw.
  return support::printable(out);
}

std::string report_json(const std::vector<FileResult>& results) {
  using Json = nlohmann::ordered_json;
  Json files = Json::array();
  for (const FileResult& file : results) {
    Json cases = Json::array();
    for (const CaseResult& one : file.cases) {
      Json failures = Json::array();
      for (const Failure& failure : one.failures) {
        failures.push_back({{"expect", failure.expect}, {"line", failure.line}, {"message", failure.message}});
      }
      cases.push_back({{"name", one.name}, {"line", one.line}, {"passed", one.passed()}, {"failures", failures}});
    }
    files.push_back({{"file", file.file},
                     {"policy", file.policy},
                     {"error", file.error ? Json(*file.error) : Json(nullptr)},
                     {"cases", cases}});
  }
  const Summary summary = summarize(results);
  const Json document{{"schema", "allot.test/1"},
                      {"files", files},
                      {"cases", summary.cases},
                      {"passed", summary.passed},
                      {"failed", summary.failed}};
  return document.dump(2, ' ', false, Json::error_handler_t::replace) + "\n";
}

std::string report_junit(const std::vector<FileResult>& results) {
  const Summary summary = summarize(results);
  const auto errors =
      std::count_if(results.begin(), results.end(), [](const FileResult& file) { return file.error.has_value(); });
  std::string out = fmt::format(
      "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"allot test\" tests=\"{}\" failures=\"{}\" "
      "errors=\"{}\">\n",
      summary.cases + errors, summary.cases - summary.passed, errors);
  for (const FileResult& file : results) {
    const std::string name = escape_xml(file.file);
    if (file.error) {
      out += fmt::format(
          "  <testsuite name=\"{0}\" tests=\"1\" failures=\"0\" errors=\"1\">\n"
          "    <testcase name=\"load\" classname=\"{0}\"><error message=\"{1}\"/></testcase>\n  </testsuite>\n",
          name, escape_xml(*file.error));
      continue;
    }
    out += fmt::format("  <testsuite name=\"{}\" tests=\"{}\" failures=\"{}\">\n", name, file.cases.size(),
                       failures_of(file));
    for (const CaseResult& one : file.cases) {
      out += fmt::format("    <testcase name=\"{}\" classname=\"{}\"", escape_xml(one.name), name);
      if (one.passed()) {
        out += "/>\n";
        continue;
      }
      out += ">\n";
      for (const Failure& failure : one.failures) {
        out +=
            fmt::format("      <failure message=\"{}\" type=\"{}\">{}:{}: {}</failure>\n", escape_xml(failure.message),
                        escape_xml(failure.expect), name, failure.line, escape_xml(failure.message));
      }
      out += "    </testcase>\n";
    }
    out += "  </testsuite>\n";
  }
  return out + "</testsuites>\n";
}

}  // namespace allot::policytest
