// Policy unit tests (`allot test`, docs/TESTING.md): a test file names a
// policy and holds cases, each a cluster state (a snapshot file, or one
// written inline) and what the policy must decide on it: the queue's order,
// the jobs started, preempted and kept, facts of `allot explain`, numbers of
// `allot shares`. A case runs one cycle exactly as `allot cycle` does.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "allot/date.h"
#include "allot/expected.h"
#include "allot/located_error.h"
#include "allot/policy.h"
#include "allot/snapshot.h"

namespace allot::policytest {

using runtime::Seconds;

// A problem in a test file: file, line and field (support/located_error.h).
using TestFileError = support::LocatedError;

// One `[[case.expect.explain]]`: strings `allot explain`'s text about `job` must (not) contain.
struct ExplainExpectation {
  std::string job;
  std::vector<std::string> contains;
  std::vector<std::string> not_contains;
  int line = 0;
};

// One `[[case.expect.share]]`: numeric fields of `allot shares --format json`
// for `account` ("share_in_force", "rank_fields.fair_tree"), within `tolerance`
// (relative, and absolute near zero).
struct ShareExpectation {
  std::string account;
  std::vector<std::pair<std::string, double>> fields;
  double tolerance = 1e-9;
  int line = 0;
};

// What a case expects; every list may be empty. `line` of each: where it is written.
struct Expectations {
  std::optional<std::string> first;
  std::vector<std::string> order;
  std::vector<std::string> exact_order;
  bool has_exact_order = false;
  std::vector<std::string> starts;
  std::vector<std::string> preempts;
  std::vector<std::string> keeps;
  std::vector<std::string> waits;
  std::vector<ExplainExpectation> explain;
  std::vector<ShareExpectation> shares;
  // The line each key of `[case.expect]` is on ("first", "order", ...).
  std::vector<std::pair<std::string, int>> lines;
};

struct TestCase {
  std::string name;
  int line = 0;  // where its `[[case]]` starts
  runtime::Snapshot state;
  std::string state_file;  // the snapshot file it reads, or "" when written inline
  Expectations expect;
};

struct TestFile {
  std::string file;
  std::string policy;  // the policy's path, resolved against the test file's folder
  // The date review dates and expiries are judged on (`today`), if the file sets one.
  std::optional<Date> today;
  std::vector<TestCase> cases;
};

// Reads and validates a test file: its cases' states are read (a snapshot
// file relative to the test file, or the inline `[case.state]`), `now` applied.
Expected<TestFile, TestFileError> load_test_file(const std::string& path);
// The same from text; `file` names it in errors and its folder resolves paths.
Expected<TestFile, TestFileError> parse_test_file(std::string_view text, const std::string& file);

// The test files PATHS name: files as given, folders searched for `*_test.toml`
// (no symbolic links followed), in name order; an error for a path that does
// not exist, a file not named `*_test.toml`, or no test file at all.
Expected<std::vector<std::string>, std::string> find_test_files(const std::vector<std::string>& paths);

// One expectation that did not hold.
struct Failure {
  std::string expect;  // "order", "explain", "share"
  int line = 0;        // where the expectation is written
  std::string message;
};

struct CaseResult {
  std::string name;
  int line = 0;
  std::vector<Failure> failures;  // empty: passed
  bool passed() const { return failures.empty(); }
};

struct FileResult {
  std::string file;
  std::string policy;
  // Set when the file could not be run at all (unreadable, invalid, its policy
  // does not compile): then `cases` is empty.
  std::optional<std::string> error;
  std::vector<CaseResult> cases;
};

// Checks every case of `file` against `policy` and reports each expectation
// that did not hold. A job or account an expectation names that the case's
// state or the policy lacks is a failure that says so, with a suggestion.
FileResult run_test_file(const TestFile& file, const CompiledPolicy& policy);

// Reports, deterministic for identical results.
struct Summary {
  int files = 0;
  int cases = 0;
  int passed = 0;
  int failed = 0;  // cases that failed, and files that could not run
};
Summary summarize(const std::vector<FileResult>& results);
std::string report_text(const std::vector<FileResult>& results, bool color);
std::string report_json(const std::vector<FileResult>& results);
std::string report_junit(const std::vector<FileResult>& results);

}  // namespace allot::policytest
