// The public check entry points: load, parse, run every pass, sort.
#include <chrono>
#include <set>
#include <tuple>

#include "../load/loader.h"
#include "check_context.h"
#include "typing.h"

namespace allot {

Date system_today() {
  using namespace std::chrono;
  return Date{static_cast<int>(floor<days>(system_clock::now()).time_since_epoch().count())};
}

DiagnosticBuilder passed_date(const CheckContext& context, DiagnosticCode code, Span span, std::string message) {
  if (!context.options.passed_dates_are_warnings) return context.diagnostics.error(code, span, std::move(message));
  return context.diagnostics.demoted_error(code, span, std::move(message));
}

DiagnosticBuilder cluster_fact(const CheckContext& context, DiagnosticCode code, Span span, std::string message) {
  if (!context.options.cluster_facts_are_warnings) return context.diagnostics.error(code, span, std::move(message));
  return context.diagnostics.demoted_error(code, span, std::move(message));
}

CheckedProgram check_program(const Program& program, const CheckContext& context) {
  CheckedProgram checked;
  checked.program = &program;
  // Semantic checks on a partial AST would only echo the syntax error.
  if (!program.parsed_cleanly || program.modules.empty()) return checked;
  const std::size_t errors_before = context.diagnostics.error_count();
  checked.scope = check_declarations(program, context);
  for (const auto& policy : program.modules.front().policies) {
    check_tree(policy, context);
    check_exceptions(policy, context);
  }
  check_contracts(checked.scope, context);
  checked.typed = check_types(program, checked.scope, context);
  check_gates(program, checked.scope, context);
  check_limits(program, checked.scope, context);
  checked.clean = context.diagnostics.error_count() == errors_before;
  return checked;
}

namespace {

void check_one(const std::string& path, const std::string* text, const CheckOptions& options, SourceManager& sources,
               std::vector<Diagnostic>& out) {
  DiagnosticSink diagnostics(sources);
  Program program = load_program(path, text, sources, diagnostics, options);
  CheckContext context{sources, options, options.today.value_or(system_today()), diagnostics};
  check_program(program, context);
  for (auto& diagnostic : diagnostics.take_sorted()) out.push_back(std::move(diagnostic));
}

}  // namespace

bool CheckResult::has_errors() const {
  for (const auto& d : diagnostics) {
    if (d.severity == Severity::error) return true;
  }
  return false;
}

bool CheckResult::has_warnings() const {
  for (const auto& d : diagnostics) {
    if (d.severity == Severity::warning) return true;
  }
  return false;
}

bool CheckResult::has_io_errors() const { return has_unreadable_input(diagnostics); }

CheckResult check_files(const std::vector<std::string>& paths, const CheckOptions& options) {
  CheckResult result;
  SourceManager sources;
  for (const auto& path : paths) check_one(path, nullptr, options, sources, result.diagnostics);
  // A library imported by several files is reported once.
  std::set<std::tuple<std::string, int, int, std::string, std::string>> seen;
  std::vector<Diagnostic> unique;
  for (auto& d : result.diagnostics) {
    if (seen.insert({d.span.file, d.span.line, d.span.column, d.code, d.message}).second)
      unique.push_back(std::move(d));
  }
  result.diagnostics = std::move(unique);
  sort_by_location(result.diagnostics);
  result.sources = sources.texts();
  return result;
}

CheckResult check_source(const std::string& name, const std::string& text, const CheckOptions& options) {
  CheckResult result;
  SourceManager sources;
  check_one(name, &text, options, sources, result.diagnostics);
  result.sources = sources.texts();
  return result;
}

}  // namespace allot
