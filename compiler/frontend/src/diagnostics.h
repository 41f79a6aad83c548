// Collecting diagnostics while checking. Passes report problems as values;
// nothing in the checker prints or throws.
#pragma once

#include <string>
#include <vector>

#include "diagnostic_codes.h"
#include "source.h"

namespace allot {

// Adds notes and help to a diagnostic just reported.
class DiagnosticBuilder {
 public:
  DiagnosticBuilder(Diagnostic& diagnostic, const SourceManager& sources)
      : diagnostic_(diagnostic), sources_(sources) {}
  DiagnosticBuilder& note(std::string message);
  DiagnosticBuilder& note(std::string message, Span span);
  DiagnosticBuilder& help(std::string message);

 private:
  Diagnostic& diagnostic_;
  const SourceManager& sources_;
};

// The diagnostics of one check run. One mistake, one error: once a literal is
// reported as out of range (its value then reads as 0), an error on the same
// line whose span holds that literal is a knock-on of it (`window 1e30d` is not
// also "a window of 0") and is not reported.
class DiagnosticSink {
 public:
  explicit DiagnosticSink(const SourceManager& sources) : sources_(sources) {}
  // `code` must be a code of that severity (diagnostic_codes.h).
  DiagnosticBuilder error(DiagnosticCode code, Span span, std::string message);
  DiagnosticBuilder warning(DiagnosticCode code, Span span, std::string message);
  // An error-coded diagnostic reported as a warning where the caller asked for
  // that (CheckOptions::passed_dates_are_warnings); the code stays the same.
  DiagnosticBuilder demoted_error(DiagnosticCode code, Span span, std::string message);
  bool has_errors() const;
  std::size_t error_count() const;
  // Diagnostics ordered by file, then position, then code (stable for ties).
  std::vector<Diagnostic> take_sorted();

 private:
  DiagnosticBuilder add(Severity severity, DiagnosticCode code, Span span, std::string message,
                        bool table_severity = true);
  bool knock_on(DiagnosticCode code, Span span) const;
  const SourceManager& sources_;
  std::vector<Diagnostic> diagnostics_;
  std::vector<Span> out_of_range_;  // literals reported as number_out_of_range
  Diagnostic dropped_;              // what a builder of a knock-on error fills in
};

void sort_by_location(std::vector<Diagnostic>& diagnostics);

}  // namespace allot
