// `allot fmt`: the canonical layout, for people (print, --write) and CI (--check).
#include <fstream>
#include <iostream>
#include <sstream>

#include "allot/compiler.h"
#include "commands.h"

namespace allot::cli {
namespace {

bool read_text(const std::string& path, std::string& text) {
  std::ifstream stream(path, std::ios::binary);
  if (!stream) return false;
  std::ostringstream contents;
  contents << stream.rdbuf();
  text = contents.str();
  return true;
}

}  // namespace

int run_fmt(const FmtArguments& arguments) {
  std::vector<std::string> files;
  if (!expand_paths(arguments.paths, files)) return 2;
  int exit_code = 0;
  for (const auto& path : files) {
    std::string text;
    if (!read_text(path, text)) {
      std::cerr << "allot: cannot read `" << path << "`\n";
      return 2;
    }
    FormatResult result = format_source(path, text);
    if (!result.formatted) {
      std::cerr << render_text(result.diagnostics, {{path, text}}, {use_color()});
      exit_code = 1;
      continue;
    }
    if (arguments.check) {
      if (*result.formatted != text) {
        std::cout << "would reformat " << path << "\n";
        exit_code = 1;
      }
    } else if (arguments.write) {
      if (*result.formatted == text) continue;
      std::ofstream out(path, std::ios::binary | std::ios::trunc);
      if (!(out << *result.formatted)) {
        std::cerr << "allot: cannot write `" << path << "`\n";
        return 2;
      }
    } else {
      std::cout << *result.formatted;
    }
  }
  return exit_code;
}

}  // namespace allot::cli
