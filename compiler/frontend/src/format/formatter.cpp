// `allot fmt`: parse, lay out the parse tree with its comments, print.
#include "../diagnostics.h"
#include "../parse/parse_tree.h"
#include "allot/frontend.h"
#include "comments.h"
#include "layout.h"
#include "printer.h"

namespace allot {

FormatResult format_source(const std::string& name, const std::string& text) {
  SourceManager sources;
  const FileId file = sources.add(name, text);
  DiagnosticSink diagnostics(sources);
  auto tree = parse_tree(file, text, diagnostics);
  // A file that does not parse is left alone; the syntax error says why.
  if (tree->root == nullptr) return {std::nullopt, diagnostics.take_sorted()};
  format::CommentTable comments(tree->tokens->getTokens());
  format::Layout layout(comments);
  const format::Doc doc = layout.file(tree->root);
  // Last line of defence for "nothing is lost": a comment the layout missed
  // (a bug) leaves the file as it was rather than dropping the comment.
  if (comments.has_untaken()) return {text, {}};
  return {format::print(doc), {}};
}

}  // namespace allot
