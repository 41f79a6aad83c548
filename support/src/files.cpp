#include "allot/files.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <random>
#include <utility>

#include <fmt/format.h>

namespace allot::support {
namespace {

// Closes a descriptor when it goes out of scope.
class Descriptor {
 public:
  explicit Descriptor(int fd) : fd_(fd) {}
  Descriptor(const Descriptor&) = delete;
  Descriptor& operator=(const Descriptor&) = delete;
  ~Descriptor() {
    if (fd_ >= 0) ::close(fd_);
  }
  int get() const { return fd_; }
  // Closes now and reports whether the close succeeded (a write error may show only here).
  bool close() { return ::close(std::exchange(fd_, -1)) == 0; }
  // Gives the descriptor to the caller.
  int release() { return std::exchange(fd_, -1); }

 private:
  int fd_;
};

const char* kind_of(mode_t mode) {
  if (S_ISDIR(mode)) return "is a folder, not a file";
  if (S_ISFIFO(mode)) return "is a FIFO, not a regular file";
  if (S_ISCHR(mode) || S_ISBLK(mode)) return "is a device, not a regular file";
  if (S_ISSOCK(mode)) return "is a socket, not a regular file";
  return "is not a regular file";
}

FileError os_error(int error_number) {
  return FileError{error_number == ENOENT || error_number == ENOTDIR ? FileProblem::missing : FileProblem::io,
                   system_reason(error_number)};
}

std::string random_suffix() {
  std::random_device device;
  std::uniform_int_distribution<unsigned> digit(0, 15);
  std::string suffix;
  for (int i = 0; i < 16; ++i) suffix += "0123456789abcdef"[digit(device)];
  return suffix;
}

FileError too_large(std::uint64_t bytes, std::size_t max_bytes) {
  return FileError{FileProblem::too_large, fmt::format("is {} bytes, more than the {} allowed", bytes, max_bytes),
                   bytes};
}

// Reads `descriptor` to its end, expecting about `expected` bytes, and refuses
// more than `max_bytes`: a file that grows while it is read, or a stream
// (standard input fed from /dev/zero), is read up to the limit and no further.
Expected<std::string, FileError> read_until_end(int descriptor, std::size_t expected, std::size_t max_bytes) {
  std::string contents;
  contents.resize(expected);
  std::size_t filled = 0;
  while (true) {
    if (filled == contents.size()) {
      if (contents.size() > max_bytes) return unexpected(too_large(contents.size(), max_bytes));
      contents.resize(std::min<std::size_t>(max_bytes + 1, contents.size() + 65536));
    }
    const ssize_t count = ::read(descriptor, contents.data() + filled, contents.size() - filled);
    if (count < 0 && errno == EINTR) continue;
    if (count < 0) return unexpected(os_error(errno));
    if (count == 0) break;
    filled += static_cast<std::size_t>(count);
  }
  contents.resize(filled);
  if (filled > max_bytes) return unexpected(too_large(filled, max_bytes));
  return contents;
}

}  // namespace

std::string system_reason(int error_number) {
  std::array<char, 256> buffer{};
  // GNU strerror_r returns the message (possibly not in `buffer`).
  return ::strerror_r(error_number, buffer.data(), buffer.size());
}

Expected<std::string, FileError> read_file(const std::string& path, std::size_t max_bytes) {
  Descriptor file(::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK));
  if (file.get() < 0) return unexpected(os_error(errno));
  struct stat info {};
  if (::fstat(file.get(), &info) != 0) return unexpected(os_error(errno));
  if (!S_ISREG(info.st_mode)) return unexpected(FileError{FileProblem::not_regular, kind_of(info.st_mode)});
  const auto size = static_cast<std::uint64_t>(info.st_size);
  if (size > max_bytes) return unexpected(too_large(size, max_bytes));
  return read_until_end(file.get(), static_cast<std::size_t>(size), max_bytes);
}

Expected<std::string, FileError> read_descriptor(int descriptor, std::size_t max_bytes) {
  return read_until_end(descriptor, 0, max_bytes);
}

std::optional<std::string> write_all(int descriptor, std::string_view bytes) {
  for (std::size_t written = 0; written < bytes.size();) {
    const ssize_t count = ::write(descriptor, bytes.data() + written, bytes.size() - written);
    if (count < 0 && errno == EINTR) continue;
    if (count < 0) return system_reason(errno);
    if (count == 0) return std::string("nothing was written");
    written += static_cast<std::size_t>(count);
  }
  return std::nullopt;
}

std::optional<std::string> write_file_atomic(const std::string& path, std::string_view contents) {
  namespace fs = std::filesystem;
  const fs::path target(path);
  if (target.filename().empty()) return fmt::format("cannot write `{}`: not a file name", path);
  const fs::path folder = target.has_parent_path() ? target.parent_path() : fs::path(".");
  const auto failed = [&](const char* step, int error_number) {
    return fmt::format("cannot write `{}`: {} failed: {}", path, step, system_reason(error_number));
  };
  mode_t mode = 0644;
  struct stat existing {};
  const bool replaces = ::lstat(path.c_str(), &existing) == 0;
  // Only a regular file is replaced, or a symlink (not followed) that leads to
  // one or nowhere. `--output /dev/null` or `/dev/stdout` is refused: renaming
  // over a device or a symlink to a terminal would destroy it for everyone.
  struct stat followed {};
  const bool leads_somewhere = ::stat(path.c_str(), &followed) == 0;
  if (replaces && !S_ISREG(existing.st_mode) && !S_ISLNK(existing.st_mode))
    return fmt::format("cannot write `{}`: it {}", path, kind_of(existing.st_mode));
  if (replaces && S_ISLNK(existing.st_mode) && leads_somewhere && !S_ISREG(followed.st_mode))
    return fmt::format("cannot write `{}`: it is a symlink to something that {}", path, kind_of(followed.st_mode));
  if (replaces && S_ISREG(existing.st_mode)) mode = existing.st_mode & 07777;

  std::string temporary;
  int fd = -1;
  for (int attempt = 0; attempt < 16 && fd < 0; ++attempt) {
    temporary = (folder / ("." + target.filename().string() + ".tmp-" + random_suffix())).string();
    fd = ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (fd < 0 && errno != EEXIST) return failed("creating a temporary file beside it", errno);
  }
  if (fd < 0) return failed("creating a temporary file beside it", EEXIST);
  Descriptor file(fd);
  const auto abandon = [&](std::string message) {
    ::unlink(temporary.c_str());
    return message;
  };
  if (replaces && S_ISREG(existing.st_mode) && ::fchmod(file.get(), mode) != 0)
    return abandon(failed("keeping its permissions", errno));
  if (auto problem = write_all(file.get(), contents))
    return abandon(fmt::format("cannot write `{}`: {}", path, *problem));
  if (::fsync(file.get()) != 0) return abandon(failed("sync", errno));
  if (!file.close()) return abandon(failed("close", errno));
  if (::rename(temporary.c_str(), path.c_str()) != 0) return abandon(failed("rename", errno));
  // The rename is durable once the folder's entry is.
  Descriptor directory(::open(folder.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (directory.get() < 0 || ::fsync(directory.get()) != 0) return failed("sync of its folder", errno);
  return std::nullopt;
}

Expected<int, std::string> open_append(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDWR | O_APPEND | O_CREAT | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK, 0644);
  if (fd < 0) {
    const int error_number = errno;
    if (error_number == ELOOP) return unexpected(fmt::format("cannot open `{}`: it is a symlink", path));
    return unexpected(fmt::format("cannot open `{}`: {}", path, system_reason(error_number)));
  }
  Descriptor file(fd);
  struct stat info {};
  if (::fstat(fd, &info) != 0) return unexpected(fmt::format("cannot open `{}`: {}", path, system_reason(errno)));
  if (!S_ISREG(info.st_mode)) return unexpected(fmt::format("cannot open `{}`: it {}", path, kind_of(info.st_mode)));
  // Writes to a regular file do not block; clear O_NONBLOCK anyway so no short-write surprises.
  ::fcntl(fd, F_SETFL, O_APPEND);
  return file.release();
}

namespace {

bool inside_any(const std::filesystem::path& file, const std::vector<std::filesystem::path>& roots) {
  if (roots.empty()) return true;
  for (const auto& root : roots) {
    const std::filesystem::path relative = file.lexically_relative(root);
    if (!relative.empty() && *relative.begin() != "..") return true;
  }
  return false;
}

}  // namespace

Expected<std::filesystem::path, std::string> resolve_policy_file(const std::filesystem::path& path,
                                                                 const std::vector<std::filesystem::path>& roots,
                                                                 std::string_view roots_name) {
  std::error_code error;
  const std::filesystem::path real = std::filesystem::canonical(path, error);
  if (error) return unexpected(fmt::format("cannot be resolved: {}", error.message()));
  struct stat info {};
  if (::stat(real.c_str(), &info) != 0) return unexpected(fmt::format("cannot be resolved: {}", system_reason(errno)));
  if (!S_ISREG(info.st_mode)) return unexpected(fmt::format("is `{}`, which {}", real.string(), kind_of(info.st_mode)));
  if (real.extension() != ".allot") {
    return unexpected(fmt::format("is `{}`, which is not an `.allot` file", real.string()));
  }
  if (!inside_any(real, roots)) return unexpected(fmt::format("is `{}`, outside {}", real.string(), roots_name));
  return real;
}

std::optional<std::filesystem::path> installed_data_folder() {
  std::error_code error;
  const std::filesystem::path executable = std::filesystem::read_symlink("/proc/self/exe", error);
  if (error || executable.empty()) return std::nullopt;
  const std::filesystem::path folder = executable.parent_path().parent_path() / "share" / "allot";
  if (!std::filesystem::is_directory(folder / "stdlib", error)) return std::nullopt;
  return folder;
}

}  // namespace allot::support
