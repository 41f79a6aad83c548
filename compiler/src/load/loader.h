// Reads a policy file and, transitively, the library files it imports.
#pragma once

#include <string>
#include <vector>

#include "../ast.h"
#include "../diagnostics.h"

namespace allot {

// A root file with everything it imports, parsed. modules[0] is the root.
struct Program {
  std::vector<ast::Module> modules;
  bool parsed_cleanly = true;  // false when any file had a syntax error
  bool root_unreadable = false;
};

// Loads `path` (or `text` when given, named `path`) and its imports.
// An import is looked up relative to the importing file's folder, then
// relative to each folder above it, so `import "stdlib/x.allot"` works from
// any folder of a repository whose root holds stdlib/.
Program load_program(const std::string& path, const std::string* text, SourceManager& sources,
                     DiagnosticSink& diagnostics);

}  // namespace allot
