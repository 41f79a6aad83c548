// Runs the real `allot` binary (ALLOT_BINARY) the way people and CI do, for
// the command tests of `allot cycle`, `allot explain` and `allot slurm --emit-job-submit`.
#pragma once

#include <sys/wait.h>

#include <catch2/catch.hpp>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace allot_cli_test {

struct Run {
  int exit_code = -1;
  std::string out;  // standard output, and standard error when asked for
};

// Runs `allot ARGUMENTS` with no input; `stderr_too` merges standard error into `out`.
inline Run run_allot(const std::string& arguments, bool stderr_too = false) {
  const std::string command =
      std::string("'") + ALLOT_BINARY + "' " + arguments + " </dev/null" + (stderr_too ? " 2>&1" : " 2>/dev/null");
  Run run;
  FILE* pipe = popen(command.c_str(), "r");
  REQUIRE(pipe != nullptr);
  char buffer[4096];
  for (std::size_t n; (n = std::fread(buffer, 1, sizeof buffer, pipe)) > 0;) run.out.append(buffer, n);
  const int status = pclose(pipe);
  run.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return run;
}

// A file of the source tree, quoted for the shell.
inline std::string source(const std::string& relative) {
  return "'" + std::string(ALLOT_SOURCE_DIR) + "/" + relative + "'";
}

// `--policy policies/saas.allot --state examples/states/saas-wednesday.toml`: the seed's Wednesday morning.
inline std::string saas_wednesday() {
  return "--policy " + source("policies/saas.allot") + " --state " + source("examples/states/saas-wednesday.toml");
}

inline std::string read_text(const std::filesystem::path& path) {
  std::ifstream stream(path, std::ios::binary);
  std::ostringstream contents;
  contents << stream.rdbuf();
  return contents.str();
}

}  // namespace allot_cli_test
