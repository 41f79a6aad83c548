// `allot compile`: check a policy, lower it and build its code; print the IR,
// the LLVM module or the machine code with --emit. Diagnostics go to stderr so
// stdout holds only what was asked for.
#include <fmt/format.h>

#include <iostream>

#include "allot/compile.h"
#include "allot/policy.h"
#include "commands.h"

namespace allot::cli {
namespace {

// Prints diagnostics like `allot check` does; returns the exit code they imply.
int report(const std::vector<Diagnostic>& diagnostics, const SourceTexts& sources) {
  colored_stderr(stderr_color()) << render_text(diagnostics, sources, {stderr_color()});
  bool errors = false, io_errors = false;
  for (const auto& d : diagnostics) {
    errors |= d.severity == Severity::error;
    io_errors |= is_unreadable_input(d);
  }
  return io_errors ? 2 : errors ? 1 : 0;
}

std::string summary(const CompiledPolicy& policy) {
  const PolicyTables& tables = policy.tables();
  return fmt::format(
      "compiled policy `{}` ({} engine)\n  source sha256: {}\n  entry points: rank{}\n"
      "  reads {} job and {} account fields\n  {} accounts, {} classes, {} exception grants, {} gates\n",
      tables.name, policy.engine() == Engine::jit ? "jit" : "interpreter", policy.source_hash(),
      policy.has_preempt() ? ", preempt" : "", policy.job_fields_read().size(), policy.account_fields_read().size(),
      tables.accounts.size(), tables.classes.size(), tables.exceptions.size(), tables.gates.size());
}

}  // namespace

int run_compile(const CompileArguments& arguments) {
  CompileOptions options = compile_options(arguments.engine);
  if (!read_now(arguments.now, options.check.today)) return 2;
  if (!arguments.emit.empty()) {
    EmitResult result = emit_policy(arguments.path, arguments.emit, options);
    const int code = report(result.diagnostics, result.sources);
    if (result.text) std::cout << *result.text;
    return code;
  }
  CompileResult result = compile_policy_file(arguments.path, options);
  const int code = report(result.diagnostics, result.sources);
  if (result.policy) std::cout << summary(*result.policy);
  return code;
}

}  // namespace allot::cli
