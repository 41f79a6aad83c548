// The `allot` subcommands. Each returns the process exit code:
// 0 success, 1 problems found in the input, 2 usage or I/O failure.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace allot::cli {

struct CheckArguments {
  std::vector<std::string> paths;
  std::string now;  // YYYY-MM-DD, empty for today
  std::string format = "text";
  bool deny_warnings = false;
  int max_exception_days = 90;
};
int run_check(const CheckArguments& arguments);

struct FmtArguments {
  std::vector<std::string> paths;
  bool check = false;
  bool write = false;
};
int run_fmt(const FmtArguments& arguments);

struct CompileArguments {
  std::string path;
  std::string emit;            // "", ir, llvm or asm
  std::string engine = "jit";  // jit or interp
  std::string now;             // YYYY-MM-DD, empty for today
};
int run_compile(const CompileArguments& arguments);

struct ReplayArguments {
  std::vector<std::string> policies;  // NAME=FILE (or FILE, named after its stem)
  std::string cluster;
  std::string scenario;  // normal, burst, large, drain or all; empty with --trace
  std::uint64_t seed = 1;
  std::string trace;
  std::string map;
  int days = 0;      // 0: 7 for scenarios, the whole trace
  std::string json;  // file, "-" for stdout
  std::string html;
  std::string engine = "jit";  // jit or interp
  std::string now;             // YYYY-MM-DD, empty for today
  double load = 1.3;           // scenario demand, a multiple of capacity
  std::int64_t cycle_gap = 0;  // seconds at least between two cycles
};
int run_replay(const ReplayArguments& arguments);

// Expands folders into the `*.allot` files below them (sorted); files stay as
// given. Returns false (after printing why) when a path does not exist.
bool expand_paths(const std::vector<std::string>& paths, std::vector<std::string>& files);

// Whether stdout should get ANSI colour (a terminal, and NO_COLOR unset).
bool use_color();

}  // namespace allot::cli
