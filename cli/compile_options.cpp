// compile_options (commands.h): how every command that compiles a policy
// compiles it; the lint binary checks without compiling (lint.h).
#include "commands.h"

namespace allot::cli {

CompileOptions compile_options(const std::string& engine) {
  CompileOptions options;
  options.engine = engine == "interp" ? Engine::interpreter : Engine::jit;
  options.check.import_path = import_path();
  return options;
}

}  // namespace allot::cli
