// Source files held in memory and positions inside them.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "allot/frontend.h"

namespace allot {

using FileId = std::uint32_t;

// A 1-based line and column (in code points) inside one file.
struct Position {
  int line = 0;
  int column = 0;
  friend auto operator<=>(Position, Position) = default;
};

// A half-open region [begin, end) of one file.
struct Span {
  FileId file = 0;
  Position begin;
  Position end;
};

// Every file read during one check, addressed by FileId.
class SourceManager {
 public:
  FileId add(std::string path, std::string text);
  const std::string& path(FileId file) const { return files_[file].path; }
  const std::string& text(FileId file) const { return files_[file].text; }
  std::size_t size() const { return files_.size(); }
  // Returns the id of an already added file with this path, or -1.
  long find(const std::string& path) const;
  SourceSpan resolve(Span span) const;
  SourceTexts texts() const;

 private:
  struct File {
    std::string path;
    std::string text;
  };
  std::vector<File> files_;
};

}  // namespace allot
