// `allot slurm` and the one rule for a policy the JIT cannot load (allot/hot_swap.h,
// compile_candidate): under `--engine jit` it is refused, at start as at every
// reload, with the reason; `--engine interp` runs it. The JIT is made unavailable
// for real, as on a host that forbids executable memory: the test runs the real
// `allot` under a seccomp filter that refuses anonymous executable mappings and
// every mprotect to PROT_EXEC (the program's own file-backed code still loads).
// No Slurm is needed: both runs end before the adapter connects, the second at
// a SLURM_CONF that does not exist.
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstddef>
#include <filesystem>
#include <string>
#include <vector>

#include "run_allot.h"
#include "support/no_exec_memory.h"

namespace allot_cli_test {
namespace {

// Runs `allot ARGUMENTS` without executable memory; standard output and error together.
Run run_without_executable_memory(const std::vector<std::string>& arguments) {
  const allot_test::ChildRun child = allot_test::run_in_child([&](int out) {
    dup2(out, STDOUT_FILENO);
    dup2(out, STDERR_FILENO);
    const int null = open("/dev/null", O_RDONLY);
    dup2(null, STDIN_FILENO);
    std::vector<char*> argv{const_cast<char*>(ALLOT_BINARY)};
    for (const std::string& argument : arguments) argv.push_back(const_cast<char*>(argument.c_str()));
    argv.push_back(nullptr);
    if (!allot_test::forbid_executable_memory()) _exit(90);
    setenv("SLURM_CONF", "/nonexistent/slurm.conf", 1);
    execv(ALLOT_BINARY, argv.data());
    _exit(91);
  });
  REQUIRE(child.started);
  return Run{WIFEXITED(child.status) ? WEXITSTATUS(child.status) : -1, child.output};
}

}  // namespace

TEST_CASE("allot slurm refuses a policy the JIT cannot load under --engine jit and runs it under interp",
          "[cli][slurm_command]") {
  const std::filesystem::path folder = std::filesystem::temp_directory_path() / "allot-slurm-no-jit";
  std::filesystem::remove_all(folder);
  std::filesystem::create_directories(folder);
  const std::vector<std::string> common{"slurm",
                                        "--policy",
                                        std::string(ALLOT_SOURCE_DIR) + "/policies/saas.allot",
                                        "--map",
                                        std::string(ALLOT_SOURCE_DIR) + "/examples/slurm/saas_map.toml",
                                        "--ledger",
                                        (folder / "ledger.sqlite").string(),
                                        "--once",
                                        "--dry-run",
                                        "--now",
                                        "2026-12-01"};

  const auto with_engine = [&](const char* engine) {
    std::vector<std::string> arguments = common;
    arguments.insert(arguments.end(), {"--engine", engine});
    return run_without_executable_memory(arguments);
  };
  const Run refused = with_engine("jit");
  INFO(refused.out);
  CHECK(refused.exit_code == 1);
  CHECK_THAT(refused.out, Catch::Contains("warning[jit_unavailable]"));
  CHECK_THAT(refused.out, Catch::Contains("allot: refused: the JIT could not load"));
  CHECK_THAT(refused.out, Catch::Contains("swap with the interpreter engine to run it anyway"));
  CHECK_FALSE(std::filesystem::exists(folder / "ledger.sqlite"));  // refused before anything was opened

  const Run runs = with_engine("interp");
  INFO(runs.out);
  // Past the policy: it stops only where it would connect to Slurm.
  CHECK(runs.exit_code == 2);
  CHECK_THAT(runs.out, Catch::Contains("no Slurm configuration at `/nonexistent/slurm.conf`"));
  CHECK_THAT(runs.out, !Catch::Contains("refused"));
  std::filesystem::remove_all(folder);
}

TEST_CASE("allot slurm keeps scheduling past a review date and an expiry that fail allot check",
          "[cli][slurm_command]") {
  const std::filesystem::path folder = std::filesystem::temp_directory_path() / "allot-slurm-governance";
  std::filesystem::remove_all(folder);
  std::filesystem::create_directories(folder);
  // policies/saas.allot's reviews fall due on 2026-12-31 and its exception expires on 2026-12-20.
  const std::string later = " --now 2027-03-01";
  const Run check = run_allot("check" + later + " " + source("policies/saas.allot"), true);
  INFO(check.out);
  CHECK(check.exit_code == 1);  // CI fails on that day, with no edit
  CHECK_THAT(check.out, Catch::Contains("error[review_date_passed]"));
  CHECK_THAT(check.out, Catch::Contains("error[exception_expired]"));

  setenv("SLURM_CONF", "/nonexistent/slurm.conf", 1);
  const Run slurm =
      run_allot("slurm --policy " + source("policies/saas.allot") + " --map " + source("examples/slurm/saas_map.toml") +
                    " --ledger '" + (folder / "ledger.sqlite").string() + "' --once --dry-run" + later,
                true);
  unsetenv("SLURM_CONF");
  INFO(slurm.out);
  // Past the policy, loudly: it stops only where it would connect to Slurm (SLURM_CONF below).
  CHECK(slurm.exit_code == 2);
  CHECK_THAT(slurm.out, Catch::Contains("warning[review_date_passed]: review of `product` was due on 2026-12-31"));
  CHECK_THAT(slurm.out, Catch::Contains("warning[exception_expired]"));
  CHECK_THAT(slurm.out, Catch::Contains("no Slurm configuration at `/nonexistent/slurm.conf`"));
  CHECK_THAT(slurm.out, !Catch::Contains("refused"));
  std::filesystem::remove_all(folder);
}

}  // namespace allot_cli_test
