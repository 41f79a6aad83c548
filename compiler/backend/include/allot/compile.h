// The Allot back end's public interface (allot_backend): a policy file checked
// by the front end, lowered to IR and turned into a CompiledPolicy (allot/policy.h)
// run by the LLVM JIT or the reference interpreter. Everything in
// compiler/backend/src is internal.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "allot/diagnostic.h"
#include "allot/frontend.h"
#include "allot/policy.h"

namespace allot {

struct CompileOptions {
  Engine engine = Engine::jit;
  int optimization_level = 2;  // LLVM -O level for the JIT
  CheckOptions check;
};

// A policy or the diagnostics that prevented compiling it. When the JIT cannot
// initialise, the interpreter is used and a warning says so.
struct CompileResult {
  std::shared_ptr<const CompiledPolicy> policy;
  std::vector<Diagnostic> diagnostics;
  SourceTexts sources;
};

CompileResult compile_policy_file(const std::string& path, const CompileOptions& options);
CompileResult compile_policy_source(const std::string& name, const std::string& text, const CompileOptions& options);

// `allot compile --emit=ir|llvm|asm`: the textual form of a policy's code.
struct EmitResult {
  std::optional<std::string> text;
  std::vector<Diagnostic> diagnostics;
  SourceTexts sources;
};
EmitResult emit_policy(const std::string& path, const std::string& what, const CompileOptions& options);

}  // namespace allot
