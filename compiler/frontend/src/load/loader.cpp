#include "loader.h"

#include <fmt/format.h>

#include <filesystem>
#include <set>

#include "allot/files.h"
#include "allot/nearest_name.h"

#include "../parse/build_ast.h"
#include "../parse/parse_tree.h"

namespace allot {
namespace {

namespace fs = std::filesystem;

// Invariant: an import chain longer than this is reported, not followed.
constexpr std::size_t kMaxImportDepth = 32;

// A policy or library file, bounded (support/files.h): a folder, FIFO or
// device is refused rather than read, a file over the limit is not read at all.
Expected<std::string, support::FileError> read_source(const std::string& path) {
  return support::read_file(path, kMaxSourceBytes);
}

std::string canonical(const std::string& path) {
  std::error_code error;
  auto result = fs::weakly_canonical(path, error);
  return error ? path : result.string();
}

// Where an import may come from: the root file's folder and the import path,
// as canonical folders (symlinks resolved).
class ImportRules {
 public:
  ImportRules(const std::string& root_file, const CheckOptions& options) : options_(options) {
    std::error_code error;
    const fs::path folder = fs::absolute(root_file, error).parent_path();
    roots_.push_back(fs::weakly_canonical(folder, error));
    for (const auto& entry : options.import_path) {
      const fs::path root = fs::weakly_canonical(fs::absolute(entry, error), error);
      if (!error) roots_.push_back(root);
    }
  }

  // The file `target` names from `importer` (as shown, and its real path), why
  // it is refused, or neither (not found).
  struct Resolution {
    std::optional<std::string> path;
    std::optional<std::string> real_path;
    std::optional<std::string> refusal;
  };

  Resolution resolve(const std::string& importer, const std::string& target) const {
    if (!fs::path(target).has_extension() || fs::path(target).extension() != ".allot") {
      return {std::nullopt, std::nullopt,
              fmt::format("`{}` is not an `.allot` file; only policy libraries can be imported", target)};
    }
    std::vector<fs::path> candidates;
    if (fs::path(target).is_absolute()) {
      if (!options_.allow_outside_imports) {
        return {std::nullopt, std::nullopt,
                fmt::format("`{}` is an absolute path; imports are relative to the importing file or the import path",
                            target)};
      }
      candidates.push_back(target);
    } else {
      std::error_code error;
      candidates.push_back(fs::absolute(importer, error).parent_path() / target);
      for (const auto& entry : options_.import_path) candidates.push_back(fs::path(entry) / target);
    }
    for (const fs::path& candidate : candidates) {
      std::error_code error;
      // A dangling or looping symlink is there too: refused below, not "not found".
      if (!fs::exists(fs::symlink_status(candidate, error))) continue;
      // Resolve, then check: the string ends in `.allot`, the file it reaches may not.
      const auto real =
          support::resolve_policy_file(candidate, options_.allow_outside_imports ? std::vector<fs::path>{} : roots_,
                                       "the policy's folder and the import path");
      if (!real) return {std::nullopt, std::nullopt, fmt::format("`{}` {}", target, real.error())};
      return {shown(candidate), real->string(), std::nullopt};
    }
    return {};
  }

  // The `.allot` file nearest to `target` (a typo: "stdlib/fairshar.allot") in the
  // folders `target` would be looked up in, written as `target` is; "" when none is near.
  std::string nearest_import(const std::string& importer, const std::string& target) const {
    if (fs::path(target).is_absolute()) return "";
    const fs::path subfolder = fs::path(target).parent_path();
    std::vector<fs::path> folders;
    std::error_code error;
    folders.push_back(fs::absolute(importer, error).parent_path() / subfolder);
    for (const auto& entry : options_.import_path) folders.push_back(fs::path(entry) / subfolder);
    std::vector<std::string> candidates;
    constexpr std::size_t kMostListed = 4096;  // a folder of many files is read no further
    for (const fs::path& folder : folders) {
      for (fs::directory_iterator it(folder, error), end; !error && it != end && candidates.size() < kMostListed;
           it.increment(error)) {
        if (it->path().extension() == ".allot") candidates.push_back((subfolder / it->path().filename()).string());
      }
      error.clear();
    }
    return support::nearest_name(target, candidates);
  }

 private:
  // Relative to the working folder when below it, as people typed it.
  static std::string shown(const fs::path& file) {
    std::error_code error;
    const fs::path relative = fs::relative(file, fs::current_path(), error).lexically_normal();
    if (error || relative.empty() || *relative.begin() == "..") return file.lexically_normal().string();
    return relative.string();
  }

  const CheckOptions& options_;
  std::vector<fs::path> roots_;
};

class Loader {
 public:
  Loader(SourceManager& sources, DiagnosticSink& diagnostics, const ImportRules& rules)
      : sources_(sources), diagnostics_(diagnostics), rules_(rules) {}

  Program load(const std::string& path, const std::string* text) {
    if (text) {
      load_module(path, *text);
      return std::move(program_);
    }
    auto contents = read_source(path);
    if (!contents) {
      FileId file = sources_.add(path, "");
      report_unreadable(file, path, contents.error(), Span{file, {0, 0}, {0, 0}});
      program_.root_unreadable = contents.error().problem != support::FileProblem::too_large;
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
    const ImportRules::Resolution resolution = rules_.resolve(importer, import.path);
    if (resolution.refusal) {
      program_.imports_complete = false;
      diagnostics_.error(DiagnosticCode::import_refused, import.span, *resolution.refusal)
          .help(
              "import library files from the policy's folder or the import path (`--import-path DIR`); "
              "`--allow-outside-imports` lifts this for trusted policies");
      return;
    }
    const std::optional<std::string>& resolved = resolution.path;
    if (!resolved) {
      program_.imports_complete = false;
      const std::string near = rules_.nearest_import(importer, import.path);
      diagnostics_.error(DiagnosticCode::import_not_found, import.span, fmt::format("cannot find `{}`", import.path))
          .note(fmt::format("looked in the folder of `{}` and in the import path", importer))
          .help(near.empty() ? "import paths are relative to the importing file or to a folder of the import path"
                             : fmt::format("did you mean `{}`?", near));
      return;
    }
    const std::string& key = *resolution.real_path;
    for (std::size_t i = 0; i < loading_.size(); ++i) {
      if (loading_[i].first != key) continue;
      std::string chain;
      for (std::size_t k = i; k < loading_.size(); ++k) chain += "`" + loading_[k].second + "` imports ";
      diagnostics_.error(DiagnosticCode::import_cycle, import.span, fmt::format("import cycle through `{}`", *resolved))
          .note(chain + "`" + *resolved + "`")
          .help("move what both files need into a third file that imports neither");
      return;
    }
    if (loaded_.count(key)) return;  // already loaded through another path
    if (loading_.size() >= kMaxImportDepth) {
      diagnostics_.error(DiagnosticCode::import_cycle, import.span, "imports nest too deeply")
          .note(fmt::format("at most {} files may import each other in a chain", kMaxImportDepth));
      return;
    }
    // The real path, checked above, is what is read: not the link, which could be changed in between.
    auto contents = read_source(key);
    if (!contents) {
      if (contents.error().problem == support::FileProblem::too_large) {
        report_unreadable(sources_.add(*resolved, ""), *resolved, contents.error(), import.span);
      } else {
        diagnostics_.error(DiagnosticCode::import_not_found, import.span,
                           fmt::format("cannot read `{}`: {}", *resolved, contents.error().reason));
      }
      program_.imports_complete = false;
      return;
    }
    std::size_t index = load_module(*resolved, std::move(*contents));
    if (!program_.modules[index].policies.empty()) {
      diagnostics_
          .error(DiagnosticCode::import_of_policy, import.span,
                 fmt::format("`{}` is a policy, not a library", import.path))
          .help("only library files (functions and classes) can be imported");
    }
  }

  // A file that cannot be read: too large (input_too_large, as parse_tree
  // reports a text), or the operating system's reason (io_error).
  void report_unreadable(FileId file, const std::string& path, const support::FileError& error, Span where) {
    if (error.problem == support::FileProblem::too_large) {
      diagnostics_
          .error(
              DiagnosticCode::input_too_large, where.file == file ? Span{file, {1, 1}, {1, 1}} : where,
              fmt::format("`{}` is {} bytes, more than the {} a policy may have", path, error.bytes, kMaxSourceBytes))
          .help("split the policy into library files and `import` them");
      return;
    }
    diagnostics_.error(DiagnosticCode::io_error, where, fmt::format("cannot read `{}`: {}", path, error.reason))
        .help("check that the path exists and is a readable file");
  }

  SourceManager& sources_;
  DiagnosticSink& diagnostics_;
  const ImportRules& rules_;
  Program program_;
  std::vector<std::pair<std::string, std::string>> loading_;  // chain being loaded: canonical, shown
  std::set<std::string> loaded_;                              // canonical paths of loaded files
};

}  // namespace

Program load_program(const std::string& path, const std::string* text, SourceManager& sources,
                     DiagnosticSink& diagnostics, const CheckOptions& options) {
  const ImportRules rules(path, options);
  return Loader(sources, diagnostics, rules).load(path, text);
}

std::vector<std::string> default_import_path() {
  if (auto installed = support::installed_data_folder()) return {installed->string()};
  return {ALLOT_STDLIB_ROOT};
}

}  // namespace allot
