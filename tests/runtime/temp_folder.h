// A fresh folder under the system's temporary directory, removed with its
// contents when the test ends.
#pragma once

#include <filesystem>
#include <fstream>
#include <random>
#include <string>

#include <unistd.h>

class TempFolder {
 public:
  explicit TempFolder(const std::string& name) {
    std::random_device entropy;
    path_ = std::filesystem::temp_directory_path() /
            (name + "-" + std::to_string(::getpid()) + "-" + std::to_string(entropy()));
    std::filesystem::create_directories(path_);
  }
  ~TempFolder() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  TempFolder(const TempFolder&) = delete;
  TempFolder& operator=(const TempFolder&) = delete;

  // A path inside the folder.
  std::string file(const std::string& name) const { return (path_ / name).string(); }
  const std::filesystem::path& path() const { return path_; }
  // Writes `text` to the file `name` inside the folder (creating the folders
  // `name` names) and returns its path.
  std::string write(const std::string& name, const std::string& text) const {
    const std::filesystem::path path = path_ / name;
    std::filesystem::create_directories(path.parent_path());
    std::ofstream(path, std::ios::binary) << text;
    return path.string();
  }

 private:
  std::filesystem::path path_;
};
