#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <iostream>

#include <fmt/format.h>

#include "allot/duration.h"
#include "allot/files.h"
#include "allot/text.h"
#include "lint.h"

namespace allot::cli {
namespace {

// The `-I` folders of this run of `allot` (set_import_folders).
std::vector<std::string>& import_folders() {
  static std::vector<std::string> folders;
  return folders;
}

}  // namespace

void set_import_folders(std::vector<std::string> folders) { import_folders() = std::move(folders); }

std::vector<std::string> import_path() {
  std::vector<std::string> path = import_folders();
  if (const char* variable = std::getenv("ALLOT_PATH")) {
    const std::string_view folders(variable);
    for (std::size_t begin = 0; begin <= folders.size();) {
      const std::size_t end = std::min(folders.find(':', begin), folders.size());
      if (end > begin) path.emplace_back(folders.substr(begin, end - begin));  // an empty entry means nothing
      begin = end + 1;
    }
  }
  for (std::string& folder : default_import_path()) path.push_back(std::move(folder));
  return path;
}

bool read_now(const std::string& now, std::optional<Date>& today) {
  if (now.empty()) return true;
  today = parse_date(now);
  if (!today) std::cerr << "allot: --now expects a date like 2026-12-31, got `" << now << "`\n";
  return today.has_value();
}

std::optional<std::int64_t> parse_interval(const std::string& text) {
  std::optional<std::int64_t> seconds = support::parse_duration(text);
  if (!seconds && !text.empty() && text.find_first_not_of("0123456789") == std::string::npos)
    seconds = support::parse_duration(text + "s");
  if (!seconds || *seconds <= 0) return std::nullopt;
  return seconds;
}

namespace {

namespace fs = std::filesystem;

// The `*.allot` files below `folder`, sorted, or false after saying why the
// walk could not be finished: a subfolder it cannot read (with the operating
// system's reason), or a `*.allot` symlink it may not follow. A symlink is
// followed only to a regular `.allot` file inside the folder, which the walk
// reaches by its real name anyway, so it is checked once, under that name.
// Symlinked folders are not walked into.
bool walk_folder(const std::string& folder, std::vector<std::string>& found) {
  std::error_code error;
  const std::vector<fs::path> root = {fs::canonical(folder, error)};
  if (error) {
    std::cerr << "allot: cannot read folder `" << folder << "`: " << error.message() << "\n";
    return false;
  }
  fs::path last = folder;  // the entry before the one being read, to name the folder that failed
  fs::recursive_directory_iterator it(folder, error), end;
  for (; !error && it != end; last = it->path(), it.increment(error)) {
    const fs::path& path = it->path();
    if (path.extension() != ".allot") continue;
    if (it->is_symlink(error)) {
      const auto real = support::resolve_policy_file(path, root, fmt::format("`{}`", folder));
      if (real) continue;
      std::cerr << "allot: refusing the symlink `" << path.string() << "`: it " << real.error()
                << "; a folder walk follows a symlink only to a policy file inside the folder\n";
      return false;
    }
    if (it->is_regular_file(error)) found.push_back(path.string());
  }
  if (error) {
    // The walk fails entering a folder it cannot open (`last`), or reading the one `last` is in.
    std::error_code ignored;
    const fs::path where = fs::is_directory(fs::symlink_status(last, ignored)) ? last : last.parent_path();
    std::cerr << "allot: cannot read folder `" << where.string() << "`: " << error.message() << "\n";
    return false;
  }
  std::sort(found.begin(), found.end());
  return true;
}

}  // namespace

bool expand_paths(const std::vector<std::string>& paths, std::vector<std::string>& files) {
  for (const auto& path : paths) {
    std::error_code error;
    if (fs::is_directory(path, error)) {
      std::vector<std::string> found;
      if (!walk_folder(path, found)) return false;
      // A folder with nothing to check is a mistake (a wrong path in CI), never a pass.
      if (found.empty()) {
        std::cerr << "allot: `" << path << "` holds no policy files (*.allot)\n";
        return false;
      }
      files.insert(files.end(), found.begin(), found.end());
    } else if (fs::exists(path, error)) {
      files.push_back(path);
    } else {
      std::cerr << "allot: cannot read `" << path << "`: no such file or folder\n";
      return false;
    }
  }
  return true;
}

bool flush_stdout() {
  std::cout.flush();
  errno = 0;
  const bool flushed = std::fflush(stdout) == 0;
  const int error_number = errno;
  if (flushed && !std::ferror(stdout) && std::cout.good()) return true;
  std::cerr << "allot: cannot write standard output: "
            << (error_number != 0 ? support::system_reason(error_number) : "the output was cut short") << "\n";
  return false;
}

bool use_color() { return std::getenv("NO_COLOR") == nullptr && isatty(STDOUT_FILENO); }

bool stderr_color() { return std::getenv("NO_COLOR") == nullptr && isatty(STDERR_FILENO); }

std::ostream& colored_stdout(bool color) { return color ? support::unguarded_stdout() : std::cout; }

std::ostream& colored_stderr(bool color) { return color ? support::unguarded_stderr() : std::cerr; }

std::ostream& policy_stdout() { return isatty(STDOUT_FILENO) ? std::cout : support::unguarded_stdout(); }

}  // namespace allot::cli
