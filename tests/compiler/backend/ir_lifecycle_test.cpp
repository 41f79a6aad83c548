// Many policies compiled and dropped in one process (a scheduler hot-swaps
// its policy for weeks): every round releases its JIT code. The ASan build's
// LeakSanitizer checks these rounds for leaks; here resident memory must stay flat.
#include <fstream>

#include "allot/compile.h"
#include "allot/policy.h"
#include "ir_test_support.h"
#include "random_states.h"

namespace allot::ir_test {
namespace {

// Resident memory of this process in KiB (Linux), 0 when unknown.
long resident_kib() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind("VmRSS:", 0) == 0) return std::stol(line.substr(6));
  }
  return 0;
}

// Compiles a policy whose rank is `job.gpus * round`, ranks one job, drops it.
void compile_rank_and_drop(const std::string& text_template, int round) {
  CompileOptions options;
  options.check.today = parse_date("2026-12-01");
  std::string text = text_template;
  text.replace(text.find("ROUND"), 5, std::to_string(round));
  const CompileResult result = compile_policy_source("round.allot", text, options);
  REQUIRE(result.policy);
  REQUIRE(result.policy->engine() == Engine::jit);
  testing::StateTables tables(1, 1);
  tables.job(abi::job_gpus, 0) = 2;
  REQUIRE(result.policy->rank(tables.jobs(), 0, tables.accounts(), {}) == 2.0 * round);
}

}  // namespace

TEST_CASE("1,000 policies compiled and dropped release their code", "[ir][lifecycle][jit]") {
  const std::string text = policy_with("job.gpus * ROUND", "victim.gpus > requester.gpus");
  for (int round = 1; round <= 100; ++round) compile_rank_and_drop(text, round);
  const long warmed_up = resident_kib();
  for (int round = 101; round <= 1000; ++round) compile_rank_and_drop(text, round);
  const long growth = resident_kib() - warmed_up;
  INFO("resident memory grew by " << growth << " KiB over 900 rounds");
  CHECK(growth < 16 * 1024);
}

}  // namespace allot::ir_test
