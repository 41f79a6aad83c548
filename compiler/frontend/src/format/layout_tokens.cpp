// Tokens, comments and the line breaks between the items of a block.
#include "layout.h"

namespace allot::format {

antlr4::tree::TerminalNode* as_terminal(antlr4::tree::ParseTree* node) {
  return dynamic_cast<antlr4::tree::TerminalNode*>(node);
}

bool is_token(antlr4::tree::ParseTree* node, const char* text) {
  auto* terminal = as_terminal(node);
  return terminal != nullptr && terminal->getSymbol()->getText() == text;
}

namespace {

// Between two comments on one line: two spaces before a line comment, like
// after code, one before a block comment.
Doc space_before_comment(const Comment& comment) { return text(is_line_comment(comment.text) ? "  " : " "); }

}  // namespace

Doc Layout::own_line_comments(antlr4::Token* token) {
  std::vector<Doc> parts;
  // Own-line comments inside a line break it before and after themselves.
  for (auto& comment : comments_.take_leading(token)) {
    // Only a comment printed just before keeps this one on its line: after a
    // trailing comment, a group may have broken the line in between.
    parts.push_back(comment.continues_line && !parts.empty() ? space_before_comment(comment) : hard_line());
    parts.push_back(text(std::move(comment.text)));
  }
  if (!parts.empty()) parts.push_back(hard_line());
  return concat(std::move(parts));
}

Doc Layout::token(antlr4::Token* token) {
  std::vector<Doc> parts{own_line_comments(token)};
  parts.push_back(text(token->getText()));
  parts.push_back(trailing_comments(token));
  return concat(std::move(parts));
}

Doc Layout::token(antlr4::tree::ParseTree* terminal) { return token(as_terminal(terminal)->getSymbol()); }

Doc Layout::trailing_comments(antlr4::Token* token) {
  std::vector<Doc> parts;
  for (auto& comment : comments_.take_trailing(token)) {
    // A line comment swallows the rest of its line, so code goes on the next.
    const bool ends_line = is_line_comment(comment.text);
    parts.push_back(trailing_comment(std::move(comment.text)));
    if (ends_line) parts.push_back(hard_line());
  }
  return concat(std::move(parts));
}

Doc Layout::comments_to_move_past_comma(antlr4::Token* last, antlr4::Token* comma) {
  const bool move = comments_.line_comment_after(last) && (comma == nullptr || !comments_.has_comments(comma));
  return move ? trailing_comments(last) : concat({});
}

Doc Layout::comma(antlr4::Token* comma, Doc moved) {
  return concat({own_line_comments(comma), text(comma->getText()), std::move(moved), trailing_comments(comma)});
}

Doc Layout::comments_of(antlr4::Token* token) { return concat({own_line_comments(token), trailing_comments(token)}); }

Doc Layout::comment_lines(const std::vector<Comment>& comments, Gap gap, const antlr4::Token* next) {
  std::vector<Doc> parts;
  auto line_break = [&](bool blank_in_source) {
    bool blank = blank_in_source;
    if (parts.empty()) blank = gap == Gap::always || (gap == Gap::as_written && blank_in_source);
    parts.push_back(blank ? blank_line() : hard_line());
  };
  for (const auto& comment : comments) {
    if (comment.continues_line && !parts.empty()) {
      parts.push_back(space_before_comment(comment));
    } else {
      line_break(comment.blank_line_before);
    }
    parts.push_back(text(comment.text));
  }
  if (next != nullptr) line_break(comments_.blank_line_before(next));
  return concat(std::move(parts));
}

Doc Layout::line_break_before(antlr4::Token* first, Gap gap) {
  return comment_lines(comments_.take_leading(first), gap, first);
}

Doc Layout::closing_comments(antlr4::Token* close, Gap gap) {
  return comment_lines(comments_.take_leading(close), gap, nullptr);
}

Doc Layout::words(antlr4::ParserRuleContext* context) {
  std::vector<Doc> pieces;
  for (auto* child : context->children) {
    if (as_terminal(child) != nullptr) {
      pieces.push_back(token(child));
    } else if (dynamic_cast<AllotParser::NodePathContext*>(child) != nullptr ||
               dynamic_cast<AllotParser::SignedPercentContext*>(child) != nullptr) {
      pieces.push_back(tight(static_cast<antlr4::ParserRuleContext*>(child)));
    } else {
      pieces.push_back(words(static_cast<antlr4::ParserRuleContext*>(child)));
    }
  }
  return join(pieces, text(" "));
}

Doc Layout::tight(antlr4::ParserRuleContext* context) {
  std::vector<Doc> pieces;
  for (auto* child : context->children) {
    pieces.push_back(as_terminal(child) != nullptr ? token(child)
                                                   : tight(static_cast<antlr4::ParserRuleContext*>(child)));
  }
  return concat(std::move(pieces));
}

}  // namespace allot::format
