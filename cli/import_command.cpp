// `allot import slurm DUMP`: start from an existing Slurm site. Reads
// `sacctmgr dump CLUSTER` output and prints (or writes, with --output) an
// Allot policy with the same association tree and shares; every part of the
// dump the policy does not carry is listed on standard error as a note.
#include <filesystem>
#include <iostream>
#include <string>

#include <fmt/format.h>

#include "allot/files.h"
#include "allot/slurm_import.h"
#include "allot/text.h"
#include "commands.h"
#include "io_paths.h"

namespace allot::cli {
namespace {

// A dump is read as any input (support/files.h): a regular file of bounded size.
std::optional<std::string> read_dump(const std::string& path, std::string& error) {
  auto text = support::read_file(path, support::kMaxDumpBytes);
  if (!text) {
    error = fmt::format("cannot read `{}`: {}", path, text.error().reason);
    return std::nullopt;
  }
  return std::move(*text);
}

bool valid_date(const std::string& text) {
  if (text.empty() || parse_date(text)) return true;
  std::cerr << "allot: --review expects a date like 2027-03-31, got `" << text << "`\n";
  return false;
}

}  // namespace

int run_import_slurm(const ImportSlurmArguments& arguments) {
  if (!valid_date(arguments.review)) return 2;
  CommandFiles files;
  files.input("the dump", arguments.dump);
  files.output("--output", arguments.output);
  if (!check_files(files)) return 2;
  std::string error;
  const auto dump = read_dump(arguments.dump, error);
  if (!dump) {
    std::cerr << "allot: " << error << "\n";
    return 2;
  }
  // The header names the dump's file, not its folder, so the output does not depend on where it was read.
  const std::string name = std::filesystem::path(arguments.dump).filename().string();
  const auto imported =
      slurm::import_sacctmgr_dump(*dump, name, {arguments.owner, arguments.review, arguments.hypothesis});
  if (!imported) {
    std::cerr << support::printable(
        fmt::format("{}:{}: error: {}\n", arguments.dump, imported.error().line, imported.error().message));
    return 1;
  }
  for (const auto& note : imported->notes) {
    if (note.line > 0) {
      std::cerr << support::printable(fmt::format("{}:{}: note: {}\n", arguments.dump, note.line, note.text));
    } else {
      std::cerr << support::printable(fmt::format("{}: note: {}\n", arguments.dump, note.text));
    }
  }
  std::cerr << fmt::format("{}: imported {} accounts and {} users; {} notes\n", arguments.dump, imported->accounts,
                           imported->users, imported->notes.size());
  if (arguments.output.empty()) {
    policy_stdout() << imported->policy;
    return 0;  // main() checks that it arrived
  }
  if (const auto problem = support::write_file_atomic(arguments.output, imported->policy)) {
    std::cerr << "allot: " << *problem << "\n";
    return 2;
  }
  return 0;
}

}  // namespace allot::cli
