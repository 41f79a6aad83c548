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
#include "allot/explain.h"
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

// What a file's cases exercised of its policy (docs/TESTING.md "Coverage").
struct Exercised {
  std::vector<PolicyPart> rank_terms, preempt_operands;
  runtime::PolicyExercise values;  // by rank_terms and preempt_operands
  std::vector<std::string> classes, exceptions;
  std::vector<bool> class_seen;              // a job of the class in some case's state
  std::vector<bool> in_force, out_of_force;  // the exception at some case's `now`
};

struct FileResult {
  std::string file;
  std::string policy;
  std::optional<Exercised> exercised;  // set when the cases ran
  // Set when the file could not be run at all (unreadable, invalid, its policy
  // does not compile): then `cases` is empty.
  std::optional<std::string> error;
  std::vector<CaseResult> cases;
};

// Checks every case of `file` against `policy` and reports each expectation
// that did not hold. A job or account an expectation names that the case's
// state or the policy lacks is a failure that says so, with a suggestion.
FileResult run_test_file(const TestFile& file, const CompiledPolicy& policy);

// One item coverage counts: a rank term, a class, an exception or a preempt operand.
struct CoverageItem {
  std::string kind;  // "rank term", "class", "exception", "preempt operand"
  std::string name;  // the term or operand as written, or the class's or exception's name
  std::string at;    // "policies/saas.allot:97" for terms and operands; "" for the others
  bool exercised = false;
  std::string missing;  // when not exercised: what no case did ("was 0 for every ranked job")
};

// One policy's coverage over every file that tests it.
struct Coverage {
  std::string policy;
  std::vector<CoverageItem> items;
  std::size_t exercised() const;
};

// The coverage of each policy the results ran (files testing one policy merged), by policy path.
std::vector<Coverage> coverage_of(const std::vector<FileResult>& results);
// The percentage of all items exercised (100 when there are none).
double coverage_percent(const std::vector<Coverage>& coverage);

// Reports, deterministic for identical results.
struct Summary {
  int files = 0;
  int cases = 0;
  int passed = 0;
  int failed = 0;  // cases that failed, and files that could not run
};
Summary summarize(const std::vector<FileResult>& results);
// `coverage`: what --coverage adds (nullptr: no coverage section).
std::string report_text(const std::vector<FileResult>& results, bool color,
                        const std::vector<Coverage>* coverage = nullptr);
std::string report_json(const std::vector<FileResult>& results, const std::vector<Coverage>* coverage = nullptr);
std::string report_junit(const std::vector<FileResult>& results);

}  // namespace allot::policytest
