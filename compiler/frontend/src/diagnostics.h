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

// The diagnostics of one check run.
class DiagnosticSink {
 public:
  explicit DiagnosticSink(const SourceManager& sources) : sources_(sources) {}
  // `code` must be a code of that severity (diagnostic_codes.h).
  DiagnosticBuilder error(DiagnosticCode code, Span span, std::string message);
  DiagnosticBuilder warning(DiagnosticCode code, Span span, std::string message);
  bool has_errors() const;
  std::size_t error_count() const;
  // Diagnostics ordered by file, then position, then code (stable for ties).
  std::vector<Diagnostic> take_sorted();

 private:
  DiagnosticBuilder add(Severity severity, DiagnosticCode code, Span span, std::string message);
  const SourceManager& sources_;
  std::vector<Diagnostic> diagnostics_;
};

void sort_by_location(std::vector<Diagnostic>& diagnostics);

}  // namespace allot
