// The LLVM back end: IR -> LLVM IR -> optimised native code loaded with OrcJIT.
// This header is the only way into codegen/; LLVM headers stay in its .cpp files.
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "../ir/ir.h"
#include "allot/policy.h"

namespace allot::codegen {

// Compiles `policy` to native code. On failure (LLVM could not initialise or
// compile) returns null and sets `error` to a one-line reason; never aborts.
std::unique_ptr<CompiledPolicy> make_jit_policy(const ir::LoweredPolicy& policy, int optimization_level,
                                                std::string& error);

// The optimised LLVM module (`assembly` false) or the host machine code
// (`assembly` true) of `policy`, as text; nullopt and `error` on failure.
std::optional<std::string> emit_native(const ir::LoweredPolicy& policy, int optimization_level, bool assembly,
                                       std::string& error);

}  // namespace allot::codegen
