// Reads a policy file and, transitively, the library files it imports.
#pragma once

#include <string>
#include <vector>

#include "allot/frontend.h"

#include "../ast.h"
#include "../diagnostics.h"

namespace allot {

// A root file with everything it imports, parsed. modules[0] is the root.
struct Program {
  std::vector<ast::Module> modules;
  bool parsed_cleanly = true;  // false when any file had a syntax error
  bool root_unreadable = false;
  // False when an import could not be loaded (not found, refused, unreadable):
  // the names it would have declared are unknown, and the checker does not
  // report them again (the import's own error is the one report).
  bool imports_complete = true;
};

// Loads `path` (or `text` when given, named `path`) and its imports.
// An import names an `.allot` file, looked up relative to the importing file's
// folder, then relative to each folder of `options.import_path`. Unless
// `options.allow_outside_imports`, an absolute path is refused, and so is a
// file that lies (after `..` and symlinks) outside the root file's folder and
// the import path: a policy cannot make a privileged adapter read /etc/shadow.
Program load_program(const std::string& path, const std::string* text, SourceManager& sources,
                     DiagnosticSink& diagnostics, const CheckOptions& options = {});

}  // namespace allot
