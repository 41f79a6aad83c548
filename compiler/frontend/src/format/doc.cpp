#include "doc.h"

namespace allot::format {
namespace {

Doc make(DocKind kind, std::string content, bool forces_break) {
  auto node = std::make_shared<DocNode>();
  node->kind = kind;
  node->text = std::move(content);
  node->forces_break = forces_break;
  return node;
}

Doc make_container(DocKind kind, int columns, std::vector<Doc> parts) {
  auto node = std::make_shared<DocNode>();
  node->kind = kind;
  node->indent = columns;
  for (const auto& part : parts) node->forces_break = node->forces_break || part->forces_break;
  node->parts = std::move(parts);
  return node;
}

}  // namespace

bool is_line_comment(const std::string& comment) { return comment.starts_with("//"); }

Doc text(std::string content) {
  const bool multi_line = content.find('\n') != std::string::npos;
  return make(DocKind::text, std::move(content), multi_line);
}

Doc trailing_comment(std::string content) {
  // A line comment ends the line; a multi-line block comment ends it too.
  const bool breaks = is_line_comment(content) || content.find('\n') != std::string::npos;
  return make(DocKind::trailing_comment, std::move(content), breaks);
}

Doc line() { return make(DocKind::line, "", false); }
Doc hard_line() { return make(DocKind::hard_line, "", true); }
Doc blank_line() { return make(DocKind::blank_line, "", true); }
Doc if_break(std::string content) { return make(DocKind::if_break, std::move(content), false); }
Doc indent(int columns, std::vector<Doc> parts) { return make_container(DocKind::indent, columns, std::move(parts)); }
Doc group(std::vector<Doc> parts) { return make_container(DocKind::group, 0, std::move(parts)); }
Doc concat(std::vector<Doc> parts) { return make_container(DocKind::concat, 0, std::move(parts)); }

Doc join(const std::vector<Doc>& parts, const Doc& separator) {
  std::vector<Doc> joined;
  for (std::size_t i = 0; i < parts.size(); ++i) {
    if (i > 0) joined.push_back(separator);
    joined.push_back(parts[i]);
  }
  return concat(std::move(joined));
}

}  // namespace allot::format
