#include "allot/file_identity.h"

#include <sys/stat.h>

#include <algorithm>
#include <filesystem>

namespace allot::support {
namespace {

FileIdentity identity_of(const struct stat& info) {
  return FileIdentity{static_cast<std::uint64_t>(info.st_dev), static_cast<std::uint64_t>(info.st_ino), {}};
}

}  // namespace

std::vector<FileIdentity> file_identities(const std::string& path) {
  std::vector<FileIdentity> found;
  struct stat info {};
  if (::stat(path.c_str(), &info) == 0) found.push_back(identity_of(info));
  if (::lstat(path.c_str(), &info) == 0) {
    if (S_ISLNK(info.st_mode)) found.push_back(identity_of(info));
    return found;
  }
  // Nothing there yet: the folder it would be created in, and its name there.
  const std::filesystem::path lexical(path);
  const std::string folder = lexical.has_parent_path() ? lexical.parent_path().string() : ".";
  if (::stat(folder.c_str(), &info) == 0 && S_ISDIR(info.st_mode)) {
    FileIdentity would_be = identity_of(info);
    would_be.name = lexical.filename().string();
    found.push_back(std::move(would_be));
  }
  return found;
}

bool same_file(const std::string& a, const std::string& b) {
  if (a == b) return true;
  const std::vector<FileIdentity> first = file_identities(a);
  const std::vector<FileIdentity> second = file_identities(b);
  return std::any_of(first.begin(), first.end(), [&](const FileIdentity& identity) {
    return std::find(second.begin(), second.end(), identity) != second.end();
  });
}

}  // namespace allot::support
