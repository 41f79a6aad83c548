// Lowering of a policy's IR to LLVM and then to host machine code, behind a
// header free of LLVM types so only native_module.cpp and jit.cpp pay for the
// LLVM headers. jit.cpp loads the object this produces; emit_native prints it.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "../ir/ir.h"

namespace allot::codegen {

// The entry points every compiled module defines (abi::RankOneFn, RankBatchFn,
// PreemptFn); preempt only when the policy has one.
inline constexpr std::string_view kRankOneSymbol = "allot_rank_one";
inline constexpr std::string_view kRankBatchSymbol = "allot_rank_batch";
inline constexpr std::string_view kPreemptSymbol = "allot_preempt";

// The libm functions the code calls, under names LLVM does not recognise, so its
// library-call simplifier cannot rewrite them (pow(x, 0.5) -> sqrt(x) differs
// in the last bit). The loader binds each to the process's own log/exp/pow, the
// functions the interpreter calls.
inline constexpr std::string_view kLogSymbol = "allot_libm_log";
inline constexpr std::string_view kExpSymbol = "allot_libm_exp";
inline constexpr std::string_view kPowSymbol = "allot_libm_pow";

// What to produce from a policy's optimised module.
enum class NativeOutput { object, llvm_text, assembly };

// Lowers `policy` to LLVM IR, optimises it at `optimization_level` (0-3) for
// the host CPU, and returns an ELF object (`object`), the module's text or the
// host assembly. nullopt with a one-line `error` when the IR is malformed or
// LLVM fails; never aborts.
std::optional<std::string> build_native(const ir::LoweredPolicy& policy, int optimization_level, NativeOutput output,
                                        std::string& error);

// Why `function` cannot be compiled (an operand that is not an earlier node, a
// field out of range, a requester field outside preempt), or "" when it can.
std::string find_malformed_node(const ir::Function& function, bool is_preempt);

}  // namespace allot::codegen
