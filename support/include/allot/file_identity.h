// Whether two paths reach the same file, whatever links lie between them: a
// command that writes one path and reads another must not overwrite its own
// input (`--apply` onto the policy, `--json` onto the trace), and two outputs
// must not be one file.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace allot::support {

// One thing a path may reach on disk. A file that exists is its device and
// inode; a path with nothing at it yet is its folder's device and inode with
// the name it would get there (so `out.json` and `./x/../out.json` agree).
struct FileIdentity {
  std::uint64_t device = 0;
  std::uint64_t inode = 0;
  std::string name;  // empty for a file that exists

  bool operator==(const FileIdentity&) const = default;
};

// What `path` reaches: the file after following every symlink and, when the
// path itself is a symlink, the link too (writing replaces the link, reading
// reads its target; both are the same file as far as the user can tell).
// Empty when neither the path nor its folder exists.
std::vector<FileIdentity> file_identities(const std::string& path);

// True when `a` and `b` reach a common file (by device and inode, through any
// symlink or hard link), or are spelt the same.
bool same_file(const std::string& a, const std::string& b);

}  // namespace allot::support
