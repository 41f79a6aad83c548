// The formatter's layout language: a tree of text, line breaks, indentation and
// groups (after Wadler's "prettier printer"). The layout code builds a Doc from
// the parse tree; printer.h decides, group by group, which line breaks to take.
#pragma once

#include <memory>
#include <string>
#include <vector>

namespace allot::format {

// What one DocNode stands for.
enum class DocKind {
  text,              // literal text (may hold newlines: a multi-line block comment)
  trailing_comment,  // a comment after code on the same line
  line,              // a space, or a line break when its group breaks
  hard_line,         // always a line break (several in a row make one)
  blank_line,        // a line break plus exactly one empty line
  if_break,          // text printed only when the enclosing group breaks
  indent,            // its parts, with line breaks indented further
  group,             // its parts, on one line when they fit, else broken
  concat,            // its parts, in order
};

struct DocNode;
// Docs are immutable once built and shared freely.
using Doc = std::shared_ptr<const DocNode>;

// One node of the layout tree.
struct DocNode {
  DocKind kind = DocKind::concat;
  std::string text;        // text, trailing_comment, if_break
  int indent = 0;          // indent: how many columns to add
  std::vector<Doc> parts;  // indent, group, concat
  // True when this node contains a line break that is always taken, so no
  // enclosing group can be printed flat.
  bool forces_break = false;
};

// Constructors; each computes `forces_break`.
Doc text(std::string content);
Doc trailing_comment(std::string content);
Doc line();
Doc hard_line();
Doc blank_line();
Doc if_break(std::string content);
Doc indent(int columns, std::vector<Doc> parts);
Doc group(std::vector<Doc> parts);
Doc concat(std::vector<Doc> parts);

// The parts joined by `separator`.
Doc join(const std::vector<Doc>& parts, const Doc& separator);

// True for a `//` comment, which ends its line.
bool is_line_comment(const std::string& comment);

}  // namespace allot::format
