#include "io_paths.h"

#include <iostream>

#include <fmt/format.h>

#include "allot/file_identity.h"
#include "allot/text.h"

namespace allot::cli {
namespace {

std::string named(const NamedPath& file) { return fmt::format("{} `{}`", file.option, file.path); }

bool allowed_in_place(const CommandFiles& files, const NamedPath& output, const NamedPath& input) {
  const auto found = files.in_place.find(output.option);
  return found != files.in_place.end() && found->second == input.option;
}

}  // namespace

std::vector<std::string> files_read(const std::map<std::string, std::string>& sources) {
  std::vector<std::string> files;
  for (const auto& [file, text] : sources) files.push_back(file);
  return files;
}

void CommandFiles::output(std::string option, std::string path) {
  if (!path.empty()) outputs.push_back({std::move(option), std::move(path)});
}

std::optional<std::string> clashing_files(const CommandFiles& files) {
  for (std::size_t i = 0; i < files.outputs.size(); ++i) {
    const NamedPath& output = files.outputs[i];
    for (std::size_t j = 0; j < i; ++j) {
      const NamedPath& other = files.outputs[j];
      if (output.path == "-" ? other.path == "-" : other.path != "-" && support::same_file(output.path, other.path)) {
        return fmt::format("{} and {} are the same file; each output needs its own", named(other), named(output));
      }
    }
    if (output.path == "-") continue;
    for (const NamedPath& input : files.inputs) {
      if (input.path == "-" || allowed_in_place(files, output, input)) continue;
      if (support::same_file(output.path, input.path)) {
        return fmt::format("{} is the same file as {}; writing it would replace an input", named(output), named(input));
      }
    }
  }
  return std::nullopt;
}

bool check_files(const CommandFiles& files) {
  const auto clash = clashing_files(files);
  if (clash) std::cerr << support::printable("allot: " + *clash) << "\n";
  return !clash;
}

}  // namespace allot::cli
