// Builds the Doc for a parsed file from the ANTLR parse tree (not the AST, so
// every token and comment is still there): one declaration per line inside
// `{ }` blocks, expressions as groups that break before their loosest operators.
#pragma once

#include <functional>
#include <vector>

#include "allot/grammar/AllotParser.h"
#include "comments.h"
#include "doc.h"

namespace allot::format {

using grammar::AllotParser;

// One use per file: taking a comment out of the table is how the layout makes
// sure each comment is printed exactly once.
class Layout {
 public:
  explicit Layout(CommentTable& comments) : comments_(comments) {}

  // Imports, then the top-level declarations one blank line apart, then the
  // comments at the end of the file.
  Doc file(AllotParser::FileContext* file);

 private:
  // How an item's first line break may be a blank line.
  enum class Gap { never, as_written, always };
  using Children = std::vector<antlr4::tree::ParseTree*>;
  using ItemLayout = std::function<Doc(antlr4::ParserRuleContext*)>;

  // --- tokens and comments (layout_tokens.cpp) ---
  // A token with its comments: own-line ones before it, trailing ones after.
  Doc token(antlr4::Token* token);
  Doc token(antlr4::tree::ParseTree* terminal);
  // The comments on their own lines before `token`, for a token inside a line.
  Doc own_line_comments(antlr4::Token* token);
  // The comments after `token` on its line, taken now so they can be printed
  // somewhere else (after a comma, after a whole declaration).
  Doc trailing_comments(antlr4::Token* token);
  // The trailing comments of an item's `last` token when one of them is a `//`
  // comment: the comma must come before it (`a,  // why`). Nothing moves when
  // the `comma` has comments of its own (null: a comma the formatter adds), so
  // that comments keep their order and their lines.
  Doc comments_to_move_past_comma(antlr4::Token* last, antlr4::Token* comma);
  // A comma with its own comments, and those moved from the item before it.
  Doc comma(antlr4::Token* comma, Doc moved);
  // All comments of a token that is not printed (a dropped trailing comma).
  Doc comments_of(antlr4::Token* token);
  // The line break before an item of a block, with the item's own-line comments.
  Doc line_break_before(antlr4::Token* first, Gap gap);
  // The own-line comments before `close` (a closing brace), each on its own line.
  Doc closing_comments(antlr4::Token* close, Gap gap);
  // Own-line comments, each after a line break, then (when `next` is given) the
  // line break before `next`. Blank lines are kept as written, the first one's per `gap`.
  Doc comment_lines(const std::vector<Comment>& comments, Gap gap, const antlr4::Token* next);
  // The tokens of `context` separated by single spaces (paths and signed
  // percentages stay tight).
  Doc words(antlr4::ParserRuleContext* context);
  // The tokens of `context` with nothing between them.
  Doc tight(antlr4::ParserRuleContext* context);

  // --- declarations (layout_declarations.cpp) ---
  Doc item(antlr4::ParserRuleContext* context);
  Doc block_declaration(antlr4::ParserRuleContext* context);
  Doc block_body(antlr4::tree::ParseTree* open, const std::vector<antlr4::ParserRuleContext*>& items,
                 antlr4::tree::ParseTree* close);
  Doc function_declaration(AllotParser::FnDeclContext* function);
  // `rank = e` and `preempt when e`: two keywords and a body.
  Doc keyword_statement(antlr4::ParserRuleContext* statement, AllotParser::ExprContext* body);
  // `head` followed by a body expression.
  Doc statement(std::vector<Doc> head, AllotParser::ExprContext* body);
  // Items of `children` separated by their commas, each comma followed by `gap`.
  Doc comma_list(const Children& children, const ItemLayout& layout, const Doc& gap);

  // --- expressions (layout_expressions.cpp) ---
  Doc expression(AllotParser::ExprContext* expression);
  Doc primary(AllotParser::PrimaryContext* primary);
  // `a + b - c` (one kind of binary operator, left-associative), flattened
  // iteratively: long chains must not recurse once per operand.
  Doc operator_chain(AllotParser::ExprContext* expression, bool breakable);
  Doc field_chain(AllotParser::FieldExprContext* expression);
  Doc if_expression(AllotParser::IfExprContext* expression);
  // `let x = v in` lines and the final body, separated by breakable lines.
  Doc let_lines(AllotParser::LetExprContext* expression);
  Doc match_expression(AllotParser::MatchPrimaryContext* match);
  Doc match_arm(AllotParser::MatchArmContext* arm);
  Doc call(AllotParser::CallPrimaryContext* call);

  CommentTable& comments_;
};

// Helpers shared by the layout files.
antlr4::tree::TerminalNode* as_terminal(antlr4::tree::ParseTree* node);
bool is_token(antlr4::tree::ParseTree* node, const char* text);

}  // namespace allot::format
