// The compile entry points (allot/compile.h): load, check, lower, then hand the
// IR to an engine (the LLVM JIT, or the reference interpreter).
#include <fmt/format.h>

#include "../codegen/jit.h"
#include "../ir/interpreter.h"
#include "../ir/lower.h"
#include "allot/compile.h"
#include "check/check_context.h"

namespace allot {
namespace {

// A checked policy ready for an engine, and where diagnostics about it point.
struct Lowered {
  ir::LoweredPolicy policy;
  Span name_span;
};

// The policy of `path` lowered, or nullopt after reporting why it cannot be.
std::optional<Lowered> check_and_lower(const std::string& path, const std::string* text, const CheckOptions& options,
                                       SourceManager& sources, DiagnosticSink& diagnostics) {
  const Program program = load_program(path, text, sources, diagnostics, options);
  const CheckContext context{sources, options, options.today.value_or(system_today()), diagnostics};
  const CheckedProgram checked = check_program(program, context);
  if (diagnostics.has_errors() || !checked.clean) return std::nullopt;
  if (program.modules.empty() || program.modules.front().policies.empty()) {
    const FileId file = program.modules.empty() ? 0 : program.modules.front().file;
    diagnostics
        .error(DiagnosticCode::missing_declaration, {file, {1, 1}, {1, 1}},
               fmt::format("`{}` has no policy to compile", path))
        .help(
            "compile a file that declares `policy NAME { ... }`; a library is compiled with the policies that import "
            "it");
    return std::nullopt;
  }
  return Lowered{ir::lower_program(checked, sources), program.modules.front().policies.front().name_span};
}

std::shared_ptr<const CompiledPolicy> make_engine(Lowered lowered, const CompileOptions& options,
                                                  DiagnosticSink& diagnostics) {
  if (options.engine == Engine::jit) {
    std::string reason;
    if (auto jit = codegen::make_jit_policy(lowered.policy, options.optimization_level, reason)) return jit;
    diagnostics
        .warning(DiagnosticCode::jit_unavailable, lowered.name_span,
                 "the JIT is unavailable, so the interpreter runs this policy")
        .note(reason)
        .help("the interpreter gives the same results, only slower; `--engine interp` silences this warning");
  }
  return std::make_shared<ir::InterpretedPolicy>(std::move(lowered.policy));
}

CompileResult compile(const std::string& path, const std::string* text, const CompileOptions& options) {
  SourceManager sources;
  DiagnosticSink diagnostics(sources);
  CompileResult result;
  if (auto lowered = check_and_lower(path, text, options.check, sources, diagnostics)) {
    result.policy = make_engine(std::move(*lowered), options, diagnostics);
  }
  result.diagnostics = diagnostics.take_sorted();
  result.sources = sources.texts();
  return result;
}

// The IR text, or the optimised LLVM module / host assembly from the back end.
std::optional<std::string> emit_text(const Lowered& lowered, const std::string& what, const CompileOptions& options,
                                     DiagnosticSink& diagnostics) {
  if (what == "ir") return ir::print(lowered.policy);
  if (what != "llvm" && what != "asm") {
    diagnostics.error(DiagnosticCode::codegen_failed, lowered.name_span, fmt::format("cannot emit `{}`", what))
        .help("choose `ir`, `llvm` or `asm`");
    return std::nullopt;
  }
  std::string reason;
  auto text = codegen::emit_native(lowered.policy, options.optimization_level, what == "asm", reason);
  if (!text) {
    diagnostics
        .error(DiagnosticCode::codegen_failed, lowered.name_span,
               fmt::format("LLVM could not compile this policy to `{}`", what))
        .note(reason)
        .help("`--emit=ir` shows the policy's IR; the interpreter (`--engine interp`) still runs it");
  }
  return text;
}

}  // namespace

CompileResult compile_policy_file(const std::string& path, const CompileOptions& options) {
  return compile(path, nullptr, options);
}

CompileResult compile_policy_source(const std::string& name, const std::string& text, const CompileOptions& options) {
  return compile(name, &text, options);
}

EmitResult emit_policy(const std::string& path, const std::string& what, const CompileOptions& options) {
  SourceManager sources;
  DiagnosticSink diagnostics(sources);
  EmitResult result;
  if (auto lowered = check_and_lower(path, nullptr, options.check, sources, diagnostics)) {
    result.text = emit_text(*lowered, what, options, diagnostics);
  }
  result.diagnostics = diagnostics.take_sorted();
  result.sources = sources.texts();
  return result;
}

}  // namespace allot
