#include "loader.h"

#include <fmt/format.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "../parse/build_ast.h"
#include "../parse/parse_tree.h"

namespace allot {
namespace {

namespace fs = std::filesystem;

// Invariant: an import chain longer than this is reported, not followed.
constexpr std::size_t kMaxImportDepth = 32;

std::optional<std::string> read_file(const std::string& path) {
  std::error_code error;
  if (!fs::is_regular_file(path, error)) return std::nullopt;
  std::ifstream stream(path, std::ios::binary);
  if (!stream) return std::nullopt;
  std::ostringstream contents;
  contents << stream.rdbuf();
  return contents.str();
}

std::string canonical(const std::string& path) {
  std::error_code error;
  auto result = fs::weakly_canonical(path, error);
  return error ? path : result.string();
}

std::optional<std::string> resolve_import(const std::string& importer, const std::string& target) {
  if (fs::path(target).is_absolute()) return fs::exists(target) ? std::optional(target) : std::nullopt;
  std::error_code error;
  fs::path folder = fs::absolute(importer, error).parent_path();
  while (true) {
    fs::path candidate = folder / target;
    if (fs::is_regular_file(candidate, error)) {
      return fs::relative(candidate, fs::current_path(), error).lexically_normal().string();
    }
    if (!folder.has_parent_path() || folder.parent_path() == folder) return std::nullopt;
    folder = folder.parent_path();
  }
}

class Loader {
 public:
  Loader(SourceManager& sources, DiagnosticSink& diagnostics) : sources_(sources), diagnostics_(diagnostics) {}

  Program load(const std::string& path, const std::string* text) {
    std::optional<std::string> contents = text ? std::optional(*text) : read_file(path);
    if (!contents) {
      FileId file = sources_.add(path, "");
      diagnostics_.error("io_error", {file, {0, 0}, {0, 0}}, fmt::format("cannot read `{}`", path))
          .help("check that the path exists and is a readable file");
      program_.root_unreadable = true;
      return std::move(program_);
    }
    load_module(path, std::move(*contents));
    return std::move(program_);
  }

 private:
  std::size_t load_module(const std::string& path, std::string text) {
    FileId file = sources_.add(path, std::move(text));
    auto tree = parse_tree(file, sources_.text(file), diagnostics_);
    const std::size_t index = program_.modules.size();
    program_.modules.push_back({});
    program_.modules[index].file = file;
    if (tree->root == nullptr) {
      program_.parsed_cleanly = false;
      return index;
    }
    program_.modules[index] = build_module(*tree, diagnostics_);
    loading_.push_back({canonical(path), path});
    loaded_.insert(canonical(path));
    // Copy: recursive loads grow program_.modules and move the imports.
    const std::vector<ast::Import> imports = program_.modules[index].imports;
    for (const auto& import : imports) load_import(path, import);
    loading_.pop_back();
    return index;
  }

  void load_import(const std::string& importer, const ast::Import& import) {
    auto resolved = resolve_import(importer, import.path);
    if (!resolved) {
      diagnostics_.error("import_not_found", import.span, fmt::format("cannot find `{}`", import.path))
          .note(fmt::format("looked in the folder of `{}` and every folder above it", importer))
          .help("import paths are relative to the importing file or to a folder above it");
      return;
    }
    const std::string key = canonical(*resolved);
    for (std::size_t i = 0; i < loading_.size(); ++i) {
      if (loading_[i].first != key) continue;
      std::string chain;
      for (std::size_t k = i; k < loading_.size(); ++k) chain += "`" + loading_[k].second + "` imports ";
      diagnostics_.error("import_cycle", import.span, fmt::format("import cycle through `{}`", *resolved))
          .note(chain + "`" + *resolved + "`")
          .help("move what both files need into a third file that imports neither");
      return;
    }
    if (loaded_.count(key)) return;  // already loaded through another path
    if (loading_.size() >= kMaxImportDepth) {
      diagnostics_.error("import_cycle", import.span, "imports nest too deeply")
          .note(fmt::format("at most {} files may import each other in a chain", kMaxImportDepth));
      return;
    }
    auto contents = read_file(*resolved);
    if (!contents) {
      diagnostics_.error("import_not_found", import.span, fmt::format("cannot read `{}`", *resolved));
      return;
    }
    std::size_t index = load_module(*resolved, std::move(*contents));
    if (!program_.modules[index].policies.empty()) {
      diagnostics_.error("import_of_policy", import.span, fmt::format("`{}` is a policy, not a library", import.path))
          .help("only library files (functions and classes) can be imported");
    }
  }

  SourceManager& sources_;
  DiagnosticSink& diagnostics_;
  Program program_;
  std::vector<std::pair<std::string, std::string>> loading_;  // chain being loaded: canonical, shown
  std::set<std::string> loaded_;                              // canonical paths of loaded files
};

}  // namespace

Program load_program(const std::string& path, const std::string* text, SourceManager& sources,
                     DiagnosticSink& diagnostics) {
  return Loader(sources, diagnostics).load(path, text);
}

}  // namespace allot
