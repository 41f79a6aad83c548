// `jit_unavailable` produced for real: on a host that forbids executable memory
// (SELinux's deny_execmem, a seccomp profile, PaX MPROTECT), LLVM's JIT cannot
// map code. The policy must still compile, run on the interpreter with the same
// results, and say why in a warning; the process must not abort.
//
// The test forks a child that installs a seccomp filter refusing executable
// memory (support/no_exec_memory.h), then compiles a real policy for the JIT. The child reports through a pipe;
// the parent checks the report and compares the child's ranks with its own JIT.
#include <fmt/format.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>
#include <catch2/catch.hpp>

#include <cerrno>
#include <cstddef>
#include <string>

#include "allot/compile.h"
#include "allot/frontend.h"
#include "jit_fixture.h"
#include "support/no_exec_memory.h"

namespace allot::jit_test {
namespace {

CompileOptions options_for(Engine engine) {
  CompileOptions options;
  options.engine = engine;
  options.check.today = parse_date("2026-12-01");
  return options;
}

const std::string kPolicy = std::string(ALLOT_SOURCE_DIR) + "/policies/saas.allot";

// Ranks of a few job rows (GPUs 0..7, the other fields zero), one per line, as exact bits.
std::string ranks_of(const CompiledPolicy& policy) {
  Tables tables(8, 1);
  for (std::size_t job = 0; job < 8; ++job) tables.job_columns[abi::job_gpus][job] = static_cast<double>(job);
  std::string out;
  for (std::size_t job = 0; job < 8; ++job) {
    out += fmt::format("{:016x}\n", bits(policy.rank(tables.jobs(), job, tables.accounts(), tables.cluster)));
  }
  return out;
}

// What the child saw: "engine=..", the warnings' codes and notes, then the ranks.
std::string compile_without_executable_memory() {
  std::string report;
  if (!allot_test::forbid_executable_memory()) return "cannot install the seccomp filter\n";
  void* page = mmap(nullptr, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (page != MAP_FAILED) return "the filter let an executable mapping through\n";
  const CompileResult result = compile_policy_file(kPolicy, options_for(Engine::jit));
  if (!result.policy) return "no policy\n";
  report += fmt::format("engine={}\n", result.policy->engine() == Engine::jit ? "jit" : "interpreter");
  for (const Diagnostic& d : result.diagnostics) {
    report += fmt::format("{} {}\n", d.severity == Severity::warning ? "warning" : "other", d.code);
    for (const DiagnosticNote& note : d.notes) report += "note " + note.message + "\n";
  }
  return report + "ranks\n" + ranks_of(*result.policy);
}

}  // namespace

TEST_CASE("without executable memory the JIT is unavailable: a warning, the interpreter, the same ranks",
          "[jit][jit_unavailable]") {
  const CompileResult jit = compile_policy_file(kPolicy, options_for(Engine::jit));
  REQUIRE(jit.policy);
  REQUIRE(jit.policy->engine() == Engine::jit);
  const std::string expected_ranks = ranks_of(*jit.policy);

  const allot_test::ChildRun child = allot_test::run_in_child([](int out) {
    const std::string report = compile_without_executable_memory();
    std::size_t written = 0;
    while (written < report.size()) {
      const ssize_t n = write(out, report.data() + written, report.size() - written);
      if (n <= 0) _exit(3);
      written += static_cast<std::size_t>(n);
    }
  });
  REQUIRE(child.started);
  const std::string& report = child.output;
  const int status = child.status;
  INFO(report);
  // LLVM must return an error, never abort the process (a scheduler on a hardened host).
  REQUIRE(WIFEXITED(status));
  REQUIRE(WEXITSTATUS(status) == 0);
  CHECK(report.find("engine=interpreter\n") != std::string::npos);
  CHECK(report.find("warning jit_unavailable\n") != std::string::npos);
  // The note carries LLVM's reason (the refused mapping), not an empty line.
  CHECK(report.find("note ") != std::string::npos);
  CHECK(report.find("note \n") == std::string::npos);
  const std::size_t ranks = report.find("ranks\n");
  REQUIRE(ranks != std::string::npos);
  CHECK(report.substr(ranks + 6) == expected_ranks);
}

}  // namespace allot::jit_test
