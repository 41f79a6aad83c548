#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <iostream>

#include "allot/files.h"
#include "commands.h"

namespace allot::cli {

bool read_now(const std::string& now, std::optional<Date>& today) {
  if (now.empty()) return true;
  today = parse_date(now);
  if (!today) std::cerr << "allot: --now expects a date like 2026-12-31, got `" << now << "`\n";
  return today.has_value();
}

bool expand_paths(const std::vector<std::string>& paths, std::vector<std::string>& files) {
  namespace fs = std::filesystem;
  for (const auto& path : paths) {
    std::error_code error;
    if (fs::is_directory(path, error)) {
      std::vector<std::string> found;
      for (fs::recursive_directory_iterator it(path, error), end; !error && it != end; it.increment(error)) {
        if (it->is_regular_file() && it->path().extension() == ".allot") found.push_back(it->path().string());
      }
      std::sort(found.begin(), found.end());
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

}  // namespace allot::cli
