#include "diagnostics.h"

#include <algorithm>
#include <cassert>
#include <tuple>

namespace allot {

DiagnosticBuilder& DiagnosticBuilder::note(std::string message) {
  diagnostic_.notes.push_back({std::move(message), std::nullopt});
  return *this;
}

DiagnosticBuilder& DiagnosticBuilder::note(std::string message, Span span) {
  diagnostic_.notes.push_back({std::move(message), sources_.resolve(span)});
  return *this;
}

DiagnosticBuilder& DiagnosticBuilder::help(std::string message) {
  diagnostic_.help = std::move(message);
  return *this;
}

DiagnosticBuilder DiagnosticSink::error(DiagnosticCode code, Span span, std::string message) {
  return add(Severity::error, code, span, std::move(message));
}

DiagnosticBuilder DiagnosticSink::warning(DiagnosticCode code, Span span, std::string message) {
  return add(Severity::warning, code, span, std::move(message));
}

DiagnosticBuilder DiagnosticSink::demoted_error(DiagnosticCode code, Span span, std::string message) {
  assert(code_info(code).severity == Severity::error);
  return add(Severity::warning, code, span, std::move(message), false);
}

DiagnosticBuilder DiagnosticSink::add(Severity severity, DiagnosticCode code, Span span, std::string message,
                                      bool table_severity) {
  // Invariant: references handed out by builders stay valid until the next add().
  assert(!table_severity || severity == code_info(code).severity);
  static_cast<void>(table_severity);  // read only by the assertion
  if (knock_on(code, span)) {
    dropped_ = {};
    return DiagnosticBuilder(dropped_, sources_);
  }
  if (code == DiagnosticCode::number_out_of_range) out_of_range_.push_back(span);
  diagnostics_.push_back({severity, std::string(code_name(code)), std::move(message), sources_.resolve(span), {}, {}});
  return DiagnosticBuilder(diagnostics_.back(), sources_);
}

bool DiagnosticSink::knock_on(DiagnosticCode code, Span span) const {
  if (code == DiagnosticCode::number_out_of_range || span.begin.line != span.end.line) return false;
  return std::any_of(out_of_range_.begin(), out_of_range_.end(), [&](const Span& literal) {
    return literal.file == span.file && span.begin <= literal.begin && literal.end <= span.end;
  });
}

bool DiagnosticSink::has_errors() const { return error_count() > 0; }

std::size_t DiagnosticSink::error_count() const {
  return static_cast<std::size_t>(std::count_if(diagnostics_.begin(), diagnostics_.end(),
                                                [](const Diagnostic& d) { return d.severity == Severity::error; }));
}

std::vector<Diagnostic> DiagnosticSink::take_sorted() {
  auto result = std::move(diagnostics_);
  diagnostics_.clear();
  sort_by_location(result);
  return result;
}

void sort_by_location(std::vector<Diagnostic>& diagnostics) {
  std::stable_sort(diagnostics.begin(), diagnostics.end(), [](const Diagnostic& a, const Diagnostic& b) {
    return std::tie(a.span.file, a.span.line, a.span.column, a.code) <
           std::tie(b.span.file, b.span.line, b.span.column, b.code);
  });
}

}  // namespace allot
