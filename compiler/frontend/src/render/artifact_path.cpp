#include "artifact_path.h"

#include <fmt/format.h>

#include <filesystem>

namespace allot {

std::string repository_path(const std::string& file) {
  namespace fs = std::filesystem;
  fs::path path(file);
  if (path.is_absolute()) {
    std::error_code error;
    fs::path relative = fs::proximate(path, fs::current_path(error), error);
    // A file outside the working directory keeps its absolute path.
    if (!error && !relative.empty() && *relative.begin() != "..") path = relative;
  }
  std::string result = path.lexically_normal().generic_string();
  while (result.starts_with("./")) result.erase(0, 2);
  return result;
}

std::string uri_reference(const std::string& path) {
  std::string result;
  for (const char c : path) {
    const auto byte = static_cast<unsigned char>(c);
    const bool unreserved = (byte >= 'A' && byte <= 'Z') || (byte >= 'a' && byte <= 'z') ||
                            (byte >= '0' && byte <= '9') || c == '-' || c == '.' || c == '_' || c == '~' || c == '/';
    result += unreserved ? std::string(1, c) : fmt::format("%{:02X}", byte);
  }
  return result;
}

}  // namespace allot
