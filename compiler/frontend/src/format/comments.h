// Where each comment of a file belongs. ANTLR puts comments on the hidden
// channel; the formatter attaches each one to a code token so that the layout
// code can print it next to that token:
// - a comment on the same line as the code before it trails that token;
// - any other comment leads the next code token (the end-of-file token for the
//   comments at the end) and is printed on its own line.
#pragma once

#include <string>
#include <vector>

#include "antlr4-runtime.h"

namespace allot::format {

// One comment's text (CRLF turned into LF) and what preceded it in the source.
struct Comment {
  std::string text;
  bool blank_line_before = false;
  // An own-line comment that shares its line with the comment before it
  // (`/* a */ // b`) stays on that line.
  bool continues_line = false;
};

// The comments attached to every code token, each handed out exactly once.
class CommentTable {
 public:
  // `tokens` is the whole token stream of one file, hidden channel included.
  explicit CommentTable(const std::vector<antlr4::Token*>& tokens);

  // Removes and returns the comments on their own lines before `token`.
  std::vector<Comment> take_leading(const antlr4::Token* token);
  // Removes and returns the comments after `token` on its line.
  std::vector<Comment> take_trailing(const antlr4::Token* token);
  // Whether `token` has comments of its own, before or after it.
  bool has_comments(const antlr4::Token* token) const;
  // Whether a `//` comment follows `token` on its line.
  bool line_comment_after(const antlr4::Token* token) const;
  // Whether the source had an empty line between `token` and what precedes it.
  bool blank_line_before(const antlr4::Token* token) const;
  // Whether some comment was never taken (the layout missed it).
  bool has_untaken() const;

 private:
  struct Attached {
    std::vector<Comment> leading;
    std::vector<Comment> trailing;
    bool blank_line_before = false;
  };
  std::vector<Attached> by_token_;
};

}  // namespace allot::format
