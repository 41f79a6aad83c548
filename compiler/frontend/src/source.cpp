#include "source.h"

namespace allot {

FileId SourceManager::add(std::string path, std::string text) {
  files_.push_back({std::move(path), std::move(text)});
  return static_cast<FileId>(files_.size() - 1);
}

long SourceManager::find(const std::string& path) const {
  for (std::size_t i = 0; i < files_.size(); ++i) {
    if (files_[i].path == path) return static_cast<long>(i);
  }
  return -1;
}

SourceSpan SourceManager::resolve(Span span) const {
  return {path(span.file), span.begin.line, span.begin.column, span.end.line, span.end.column};
}

SourceTexts SourceManager::texts() const {
  SourceTexts result;
  for (const auto& file : files_) result[file.path] = file.text;
  return result;
}

}  // namespace allot
