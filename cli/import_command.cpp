// `allot import slurm DUMP`: start from an existing Slurm site. Reads
// `sacctmgr dump CLUSTER` output and prints (or writes, with --output) an
// Allot policy with the same association tree and shares; every part of the
// dump the policy does not carry is listed on standard error as a note.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <string>

#include <fmt/format.h>

#include "allot/slurm_import.h"
#include "commands.h"

namespace allot::cli {
namespace {

constexpr off_t kMaxDump = 64 * 1024 * 1024;

// Reads a regular file of at most kMaxDump bytes; the error says why not.
std::optional<std::string> read_dump(const std::string& path, std::string& error) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) {
    error = fmt::format("cannot read {}: {}", path, std::strerror(errno));
    return std::nullopt;
  }
  struct stat info {};
  std::string text;
  if (::fstat(fd, &info) != 0 || !S_ISREG(info.st_mode)) {
    error = fmt::format("cannot read {}: not a regular file", path);
  } else if (info.st_size > kMaxDump) {
    error = fmt::format("cannot read {}: larger than 64 MiB", path);
  } else {
    char buffer[65536];
    for (ssize_t n; (n = ::read(fd, buffer, sizeof buffer)) != 0;) {
      if (n < 0) {
        if (errno == EINTR) continue;
        error = fmt::format("cannot read {}: {}", path, std::strerror(errno));
        break;
      }
      text.append(buffer, static_cast<std::size_t>(n));
      if (text.size() > static_cast<std::size_t>(kMaxDump)) {
        error = fmt::format("cannot read {}: larger than 64 MiB", path);
        break;
      }
    }
  }
  ::close(fd);
  if (!error.empty()) return std::nullopt;
  return text;
}

// Writes `text` to `path` through a temporary file in the same folder and a
// rename, so a crash leaves the old file or the new one, never half of one,
// and a symlink at `path` is replaced rather than followed.
std::optional<std::string> write_atomically(const std::string& path, const std::string& text) {
  std::string temporary = path + ".XXXXXX";
  const int fd = ::mkstemp(temporary.data());
  if (fd < 0) return fmt::format("cannot write {}: {}", path, std::strerror(errno));
  std::size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      const std::string reason = std::strerror(errno);
      ::close(fd);
      ::unlink(temporary.c_str());
      return fmt::format("cannot write {}: {}", path, reason);
    }
    done += static_cast<std::size_t>(n);
  }
  if (::fchmod(fd, 0644) != 0 || ::fsync(fd) != 0 || ::close(fd) != 0) {
    const std::string reason = std::strerror(errno);
    ::unlink(temporary.c_str());
    return fmt::format("cannot write {}: {}", path, reason);
  }
  if (::rename(temporary.c_str(), path.c_str()) != 0) {
    const std::string reason = std::strerror(errno);
    ::unlink(temporary.c_str());
    return fmt::format("cannot write {}: {}", path, reason);
  }
  return std::nullopt;
}

bool valid_date(const std::string& text) {
  if (text.empty() || parse_date(text)) return true;
  std::cerr << "allot: --review expects a date like 2027-03-31, got `" << text << "`\n";
  return false;
}

}  // namespace

int run_import_slurm(const ImportSlurmArguments& arguments) {
  if (!valid_date(arguments.review)) return 2;
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
    std::cerr << fmt::format("{}:{}: error: {}\n", arguments.dump, imported.error().line, imported.error().message);
    return 1;
  }
  for (const auto& note : imported->notes) {
    if (note.line > 0) {
      std::cerr << fmt::format("{}:{}: note: {}\n", arguments.dump, note.line, note.text);
    } else {
      std::cerr << fmt::format("{}: note: {}\n", arguments.dump, note.text);
    }
  }
  std::cerr << fmt::format("{}: imported {} accounts and {} users; {} notes\n", arguments.dump, imported->accounts,
                           imported->users, imported->notes.size());
  if (arguments.output.empty()) {
    std::cout << imported->policy;
    std::cout.flush();
    return std::cout ? 0 : 2;
  }
  if (const auto problem = write_atomically(arguments.output, imported->policy)) {
    std::cerr << "allot: " << *problem << "\n";
    return 2;
  }
  return 0;
}

}  // namespace allot::cli
