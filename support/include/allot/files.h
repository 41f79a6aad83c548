// Reading and writing the files Allot is given, as hostile input: a read takes
// only a regular file and at most a stated size (a FIFO, /dev/zero or a folder
// is refused, never read forever); a write replaces its target atomically and
// never follows a symlink planted at it or at its temporary name; a log is
// opened for appending without following a symlink. Every failure says why, with
// the operating system's reason.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "allot/expected.h"

namespace allot::support {

// Size limits per kind of input, in bytes. A reader that meets a larger file
// refuses it with FileProblem::too_large.
inline constexpr std::size_t kMaxPolicyBytes = std::size_t{1} << 20;      // a policy or library file
inline constexpr std::size_t kMaxMapBytes = std::size_t{16} << 20;        // a replay or Slurm mapping file
inline constexpr std::size_t kMaxInventoryBytes = std::size_t{64} << 20;  // an inventory
inline constexpr std::size_t kMaxDumpBytes = std::size_t{64} << 20;       // a `sacctmgr dump`
inline constexpr std::size_t kMaxStateBytes = std::size_t{32} << 20;      // a state snapshot
inline constexpr std::size_t kMaxTraceBytes = std::size_t{128} << 20;     // a trace CSV

// The longest name an input may give (a node, job, account, class, GPU type,
// block, label, trace field): longer than any real one, short enough that a
// million of them fit in memory (docs/SECURITY.md). Paths may be as long as
// the system's.
inline constexpr std::size_t kMaxNameBytes = 256;
inline constexpr std::size_t kMaxPathBytes = 4096;

enum class FileProblem {
  missing,      // no such file (or a component of the path is missing)
  not_regular,  // a folder, device, FIFO or socket
  too_large,    // more bytes than the reader's limit
  io,           // any other failure of the operating system (permissions, I/O)
};

struct FileError {
  FileProblem problem = FileProblem::io;
  std::string reason;       // "No such file or directory", "is a folder, not a file", ...
  std::uint64_t bytes = 0;  // too_large: the size found
};

// The whole contents of the regular file at `path`, if it has at most
// `max_bytes`. Opening never blocks (a FIFO is refused, not waited on).
Expected<std::string, FileError> read_file(const std::string& path, std::size_t max_bytes);

// Everything `descriptor` gives until its end (standard input, a pipe), if it
// is at most `max_bytes`; reading stops one byte past the limit, so an endless
// stream is refused rather than read forever.
Expected<std::string, FileError> read_descriptor(int descriptor, std::size_t max_bytes);

// Replaces the file at `path` with `contents`: writes a new file with a random
// name beside it (created exclusively, never through a symlink), syncs it,
// renames it over `path` and syncs the folder. On any failure `path` is as it
// was and the temporary file is gone. A symlink at `path` is replaced by the
// file, not followed. Anything else that is not a regular file (a device such
// as /dev/null, a FIFO, a folder, a symlink to a terminal) is refused, never
// replaced. An existing file's permission bits are kept; a new file gets 0644
// (less the umask). Returns why it failed, naming `path`.
std::optional<std::string> write_file_atomic(const std::string& path, std::string_view contents);

// A file descriptor open for appending to (and reading) the regular file at
// `path` (created 0644 if missing), never through a symlink. Close it with ::close.
Expected<int, std::string> open_append(const std::string& path);

// Writes all of `bytes` to `descriptor` (continuing after short writes and
// signals); the operating system's reason on failure.
std::optional<std::string> write_all(int descriptor, std::string_view bytes);

// Where `path` leads once `..` and every symlink are resolved, if that is a
// regular `.allot` file inside one of `roots` (canonical folders; no roots:
// anywhere). Otherwise why not, as the end of a sentence about `path` ("is
// `/x/.env`, which is not an `.allot` file"), naming `roots_name` when it lies
// outside them. Resolve, then check: the name a link or import string carries
// proves nothing about the file it reaches.
Expected<std::filesystem::path, std::string> resolve_policy_file(const std::filesystem::path& path,
                                                                 const std::vector<std::filesystem::path>& roots,
                                                                 std::string_view roots_name);

// The operating system's reason for `error_number`, as strerror gives it.
std::string system_reason(int error_number);

// Where an installed Allot keeps its data (the stdlib, the example policies
// and clusters): `share/allot` beside the running executable's `bin/`
// (`/usr/bin/allot` -> `/usr/share/allot`, a `dpkg -x` root or a `cmake
// --install` prefix alike), when that folder holds `stdlib/`; nullopt for a
// binary run from its build tree, which uses the source tree instead.
std::optional<std::filesystem::path> installed_data_folder();

}  // namespace allot::support
