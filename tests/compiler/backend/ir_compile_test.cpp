// The compile entry points as the runtime and the CLI use them: a checked
// policy becomes a CompiledPolicy on the engine asked for; a policy with
// errors gives its diagnostics and no code; --emit prints the IR.
#include <algorithm>

#include "allot/compile.h"
#include "allot/policy.h"
#include "ir_test_support.h"
#include "random_states.h"

namespace allot::ir_test {
namespace {

CompileOptions options_for(Engine engine) {
  CompileOptions options;
  options.engine = engine;
  options.check.today = parse_date("2026-12-01");
  return options;
}

std::vector<std::string> codes(const std::vector<Diagnostic>& diagnostics) {
  std::vector<std::string> out;
  for (const auto& diagnostic : diagnostics) out.push_back(diagnostic.code);
  return out;
}

}  // namespace

TEST_CASE("a policy with errors gives its diagnostics and no code", "[ir][compile]") {
  const auto result =
      compile_policy_source("case.allot", policy_with("job.wait + 1"), options_for(Engine::interpreter));
  CHECK(result.policy == nullptr);
  CHECK(codes(result.diagnostics) == std::vector<std::string>{"type_mismatch"});
  CHECK(result.sources.count("case.allot") == 1);
}

TEST_CASE("a library file is not a policy to compile", "[ir][compile]") {
  const auto result = compile_policy_source("lib.allot", "fn f(x: number): number = x\n", options_for(Engine::jit));
  CHECK(result.policy == nullptr);
  REQUIRE(codes(result.diagnostics) == std::vector<std::string>{"missing_declaration"});
  CHECK(result.diagnostics[0].message == "`lib.allot` has no policy to compile");
}

TEST_CASE("each engine gives the same policy tables and results", "[ir][compile]") {
  const std::string text = policy_with("job.gpus * 2 + account.debt", "victim.gpus > 4");
  const auto jit = compile_policy_source("case.allot", text, options_for(Engine::jit));
  const auto interpreter = compile_policy_source("case.allot", text, options_for(Engine::interpreter));
  REQUIRE(jit.policy);
  REQUIRE(interpreter.policy);
  CHECK(jit.diagnostics.empty());
  CHECK(jit.policy->engine() == Engine::jit);
  CHECK(interpreter.policy->engine() == Engine::interpreter);
  CHECK(jit.policy->source_hash() == interpreter.policy->source_hash());
  CHECK(jit.policy->tables().accounts.size() == interpreter.policy->tables().accounts.size());
  CHECK(jit.policy->job_fields_read() == std::vector<abi::JobField>{abi::job_gpus});
  CHECK(jit.policy->account_fields_read() == std::vector<abi::AccountField>{abi::account_debt});
  testing::StateTables tables(1, 1);
  tables.job(abi::job_gpus, 0) = 3;
  tables.account(abi::account_debt, 0) = 0.5;
  CHECK(jit.policy->rank(tables.jobs(), 0, tables.accounts(), {}) == 6.5);
  CHECK(interpreter.policy->rank(tables.jobs(), 0, tables.accounts(), {}) == 6.5);
}

TEST_CASE("a compiled policy without preempt never preempts, on either engine", "[ir][compile]") {
  std::string text = policy_with("1");
  text.erase(text.find("  preempt when false\n"), std::string("  preempt when false\n").size());
  for (Engine engine : {Engine::jit, Engine::interpreter}) {
    const auto result = compile_policy_source("case.allot", text, options_for(engine));
    REQUIRE(result.policy);
    CHECK_FALSE(result.policy->has_preempt());
    testing::StateTables tables(1, 1);
    CHECK_FALSE(result.policy->preempt(tables.jobs(), 0, tables.jobs(), 0, tables.accounts(), {}));
  }
}

TEST_CASE("emit prints the IR, the LLVM module or the assembly of a policy file", "[ir][compile]") {
  const std::string path = std::string(ALLOT_SOURCE_DIR) + "/policies/saas.allot";
  const auto ir_text = emit_policy(path, "ir", options_for(Engine::jit));
  REQUIRE(ir_text.text);
  CHECK(ir_text.text->find("rank:\n") != std::string::npos);
  CHECK(ir_text.text->find("preempt:\n") != std::string::npos);
  const auto llvm_text = emit_policy(path, "llvm", options_for(Engine::jit));
  REQUIRE(llvm_text.text);
  CHECK(llvm_text.text->find("allot_rank_batch") != std::string::npos);
  const auto unknown = emit_policy(path, "wasm", options_for(Engine::jit));
  CHECK_FALSE(unknown.text);
  CHECK(codes(unknown.diagnostics) == std::vector<std::string>{"codegen_failed"});
}

}  // namespace allot::ir_test
