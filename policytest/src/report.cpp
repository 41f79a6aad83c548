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

// --coverage's section: a line per policy, then what it left unexercised.
std::string coverage_text(const std::vector<Coverage>& coverage) {
  std::string out;
  for (const Coverage& one : coverage) {
    const std::size_t exercised = one.exercised(), items = one.items.size();
    out += fmt::format("coverage of {}: {} of {} items exercised ({:.0f}%)\n", one.policy, exercised, items,
                       items == 0 ? 100.0 : 100.0 * static_cast<double>(exercised) / static_cast<double>(items));
    for (const CoverageItem& item : one.items) {
      if (item.exercised) continue;
      out +=
          fmt::format("  {} `{}`{} {}\n", item.kind, item.name, item.at.empty() ? "" : " at " + item.at, item.missing);
    }
  }
  if (coverage.size() > 1) out += fmt::format("coverage: {:.0f}% of all items\n", coverage_percent(coverage));
  return out;
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

std::string report_text(const std::vector<FileResult>& results, bool color, const std::vector<Coverage>* coverage) {
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
  if (coverage) out += coverage_text(*coverage);
  // Names and messages come from the files: none reaches a terminal raw.
  return support::printable(out);
}

std::string report_json(const std::vector<FileResult>& results, const std::vector<Coverage>* coverage) {
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
  Json document{{"schema", "allot.test/1"},
                {"files", files},
                {"cases", summary.cases},
                {"passed", summary.passed},
                {"failed", summary.failed}};
  if (coverage) {
    Json policies = Json::array();
    for (const Coverage& one : *coverage) {
      Json items = Json::array();
      for (const CoverageItem& item : one.items) {
        items.push_back({{"kind", item.kind},
                         {"name", item.name},
                         {"at", item.at.empty() ? Json(nullptr) : Json(item.at)},
                         {"exercised", item.exercised},
                         {"missing", item.missing.empty() ? Json(nullptr) : Json(item.missing)}});
      }
      policies.push_back(
          {{"policy", one.policy}, {"items", one.items.size()}, {"exercised", one.exercised()}, {"details", items}});
    }
    document["coverage"] = {{"percent", coverage_percent(*coverage)}, {"policies", policies}};
  }
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
