#include "comments.h"

#include <algorithm>
#include <utility>

namespace allot::format {
namespace {

// The line a token ends on (block comments and strings may span lines).
std::size_t end_line(const antlr4::Token* token) {
  const std::string text = token->getText();
  return token->getLine() + static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n'));
}

std::string without_carriage_returns(std::string text) {
  for (std::size_t at = text.find("\r\n"); at != std::string::npos; at = text.find("\r\n", at)) text.erase(at, 1);
  return text;
}

}  // namespace

CommentTable::CommentTable(const std::vector<antlr4::Token*>& tokens) : by_token_(tokens.size()) {
  const antlr4::Token* previous = nullptr;       // any channel
  const antlr4::Token* previous_code = nullptr;  // default channel only
  std::vector<Comment> waiting;                  // comments for the next code token
  for (const antlr4::Token* token : tokens) {
    const bool blank = previous != nullptr && token->getLine() >= end_line(previous) + 2;
    if (token->getChannel() == antlr4::Token::HIDDEN_CHANNEL) {
      const bool after_comment = previous != nullptr && previous->getChannel() == antlr4::Token::HIDDEN_CHANNEL;
      // A line comment ends its line even where the lexer ended it at a lone
      // `\r` (which does not count as a new line): what follows goes below it.
      const bool after_line_comment = after_comment && previous->getText().starts_with("//");
      const bool continues_line = after_comment && !after_line_comment && token->getLine() == end_line(previous);
      Comment comment{without_carriage_returns(token->getText()), blank, continues_line};
      const bool same_line = previous_code != nullptr && token->getLine() == end_line(previous_code);
      if (same_line) {
        by_token_[previous_code->getTokenIndex()].trailing.push_back(std::move(comment));
      } else {
        waiting.push_back(std::move(comment));
      }
    } else {
      Attached& attached = by_token_[token->getTokenIndex()];
      attached.leading = std::move(waiting);
      waiting.clear();
      attached.blank_line_before = blank;
      previous_code = token;
    }
    previous = token;
  }
}

std::vector<Comment> CommentTable::take_leading(const antlr4::Token* token) {
  return std::exchange(by_token_[token->getTokenIndex()].leading, {});
}

std::vector<Comment> CommentTable::take_trailing(const antlr4::Token* token) {
  return std::exchange(by_token_[token->getTokenIndex()].trailing, {});
}

bool CommentTable::has_comments(const antlr4::Token* token) const {
  const Attached& attached = by_token_[token->getTokenIndex()];
  return !attached.leading.empty() || !attached.trailing.empty();
}

bool CommentTable::line_comment_after(const antlr4::Token* token) const {
  const auto& trailing = by_token_[token->getTokenIndex()].trailing;
  return std::any_of(trailing.begin(), trailing.end(), [](const Comment& c) { return c.text.starts_with("//"); });
}

bool CommentTable::blank_line_before(const antlr4::Token* token) const {
  return by_token_[token->getTokenIndex()].blank_line_before;
}

bool CommentTable::has_untaken() const {
  return std::any_of(by_token_.begin(), by_token_.end(),
                     [](const Attached& a) { return !a.leading.empty() || !a.trailing.empty(); });
}

}  // namespace allot::format
