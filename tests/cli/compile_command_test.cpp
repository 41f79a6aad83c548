// `allot compile` as people and CI run it: the IR or the machine code on
// stdout, diagnostics on stderr, exit 0 when it compiles, 1 when the policy
// has errors, 2 for usage and I/O problems.
#include <filesystem>
#include <fstream>

#include "run_allot.h"

namespace fs = std::filesystem;

namespace {

// Runs `allot compile ARGUMENTS`; `stderr_too` merges stderr into `out`.
allot_cli_test::Run allot_compile(const std::string& arguments, bool stderr_too = false) {
  return allot_cli_test::run_allot("compile " + arguments, stderr_too);
}

std::string saas() { return std::string("'") + ALLOT_SOURCE_DIR + "/policies/saas.allot'"; }

}  // namespace

TEST_CASE("allot compile prints a summary, the IR, the LLVM module or the assembly", "[cli][compile]") {
  const auto summary = allot_compile("--now 2026-12-01 " + saas());
  CHECK(summary.exit_code == 0);
  CHECK(summary.out.find("compiled policy `saas` (jit engine)") != std::string::npos);
  const auto interpreted = allot_compile("--now 2026-12-01 --engine interp " + saas());
  CHECK(interpreted.out.find("(interpreter engine)") != std::string::npos);
  const auto ir = allot_compile("--now 2026-12-01 --emit=ir " + saas());
  CHECK(ir.exit_code == 0);
  CHECK(ir.out.rfind("policy saas\nsource sha256:", 0) == 0);
  CHECK(ir.out.find("\nrank:\n") != std::string::npos);
  const auto llvm = allot_compile("--now 2026-12-01 --emit=llvm " + saas());
  CHECK(llvm.exit_code == 0);
  CHECK(llvm.out.find("define") != std::string::npos);
  const auto assembly = allot_compile("--now 2026-12-01 --emit=asm " + saas());
  CHECK(assembly.exit_code == 0);
  CHECK(assembly.out.find("allot_rank_batch") != std::string::npos);
}

TEST_CASE("allot compile reports a policy's errors like check and exits 1", "[cli][compile]") {
  const fs::path path = fs::temp_directory_path() / "allot_compile_cli_bad.allot";
  std::ofstream(path) << "policy p {\n  rank = job.wait + 1\n}\n";
  const auto run = allot_compile("--now 2026-12-01 '" + path.string() + "'", true);
  CHECK(run.exit_code == 1);
  CHECK(run.out.find("error[type_mismatch]: cannot add `duration` and `number`") != std::string::npos);
  CHECK(run.out.find("compiled policy") == std::string::npos);
  fs::remove(path);
}

TEST_CASE("allot compile exits 2 for a missing file or a bad option", "[cli][compile]") {
  CHECK(allot_compile("/no/such/policy.allot").exit_code == 2);
  CHECK(allot_compile("--emit=wasm " + saas()).exit_code == 2);
  CHECK(allot_compile("--now tomorrow " + saas()).exit_code == 2);
}
