// Files, blocks and declarations: one item per line, `{}` for an empty block.
#include "layout.h"

namespace allot::format {
namespace {

constexpr int kBlockIndent = 2;
constexpr int kContinuationIndent = 4;

// `topItem`, `policyItem` and `nodeItem` only wrap one declaration.
antlr4::ParserRuleContext* unwrap(antlr4::ParserRuleContext* context) {
  const bool wrapper = dynamic_cast<AllotParser::TopItemContext*>(context) != nullptr ||
                       dynamic_cast<AllotParser::PolicyItemContext*>(context) != nullptr ||
                       dynamic_cast<AllotParser::NodeItemContext*>(context) != nullptr;
  if (!wrapper || context->children.size() != 1) return context;
  return static_cast<antlr4::ParserRuleContext*>(context->children.front());
}

bool has_block(antlr4::ParserRuleContext* context) {
  for (auto* child : context->children) {
    if (is_token(child, "{")) return true;
  }
  return false;
}

}  // namespace

Doc Layout::file(AllotParser::FileContext* file) {
  std::vector<Doc> parts;
  bool first = true;
  for (auto* child : file->children) {
    auto* declaration = dynamic_cast<antlr4::ParserRuleContext*>(child);
    if (declaration == nullptr) continue;  // the end-of-file token
    const bool top_item = dynamic_cast<AllotParser::TopItemContext*>(declaration) != nullptr;
    const Gap gap = first ? Gap::never : (top_item ? Gap::always : Gap::as_written);
    Doc trailing = trailing_comments(declaration->getStop());
    parts.push_back(line_break_before(declaration->getStart(), gap));
    parts.push_back(item(declaration));
    parts.push_back(std::move(trailing));
    first = false;
  }
  parts.push_back(closing_comments(file->EOF()->getSymbol(), first ? Gap::never : Gap::as_written));
  parts.push_back(hard_line());
  return concat(std::move(parts));
}

Doc Layout::item(antlr4::ParserRuleContext* context) {
  context = unwrap(context);
  if (auto* function = dynamic_cast<AllotParser::FnDeclContext*>(context)) return function_declaration(function);
  if (auto* rank = dynamic_cast<AllotParser::RankDeclContext*>(context)) return keyword_statement(rank, rank->body);
  if (auto* preempt = dynamic_cast<AllotParser::PreemptDeclContext*>(context)) {
    return keyword_statement(preempt, preempt->body);
  }
  if (has_block(context)) return block_declaration(context);
  return words(context);
}

Doc Layout::block_declaration(antlr4::ParserRuleContext* context) {
  const auto& children = context->children;
  std::vector<Doc> header;
  std::size_t at = 0;
  for (; !is_token(children[at], "{"); ++at) {
    auto* rule = dynamic_cast<antlr4::ParserRuleContext*>(children[at]);
    header.push_back(rule == nullptr ? token(children[at]) : words(rule));
  }
  antlr4::tree::ParseTree* open = children[at];
  std::vector<antlr4::ParserRuleContext*> items;
  for (++at; at + 1 < children.size(); ++at) items.push_back(static_cast<antlr4::ParserRuleContext*>(children[at]));
  return concat({join(header, text(" ")), text(" "), block_body(open, items, children.back())});
}

Doc Layout::block_body(antlr4::tree::ParseTree* open, const std::vector<antlr4::ParserRuleContext*>& items,
                       antlr4::tree::ParseTree* close) {
  antlr4::Token* close_token = as_terminal(close)->getSymbol();
  Doc closing = closing_comments(close_token, items.empty() ? Gap::never : Gap::as_written);
  if (items.empty() && closing->parts.empty()) return concat({token(open), token(close)});
  std::vector<Doc> inner;
  for (std::size_t i = 0; i < items.size(); ++i) {
    // A comment after a declaration stays after it, outside its expression's groups.
    Doc trailing = trailing_comments(items[i]->getStop());
    inner.push_back(line_break_before(items[i]->getStart(), i == 0 ? Gap::never : Gap::as_written));
    inner.push_back(item(items[i]));
    inner.push_back(std::move(trailing));
  }
  inner.push_back(std::move(closing));
  return concat({token(open), indent(kBlockIndent, std::move(inner)), hard_line(), token(close)});
}

Doc Layout::function_declaration(AllotParser::FnDeclContext* function) {
  const auto& children = function->children;
  std::size_t close = 3;
  while (!is_token(children[close], ")")) ++close;
  const Children parameters(children.begin() + 3, children.begin() + static_cast<long>(close));
  auto parameter = [this](antlr4::ParserRuleContext* context) {
    const auto& parts = context->children;  // name `:` type
    return concat(
        {token(parts[0]), token(parts[1]), text(" "), words(static_cast<antlr4::ParserRuleContext*>(parts[2]))});
  };
  std::vector<Doc> parts{token(children[0]),
                         text(" "),
                         token(children[1]),
                         token(children[2]),
                         comma_list(parameters, parameter, text(" ")),
                         token(children[close])};
  std::size_t at = close + 1;
  if (is_token(children[at], ":")) {
    parts.push_back(token(children[at]));
    parts.push_back(text(" "));
    parts.push_back(words(function->result));
    at += 2;
  }
  parts.push_back(text(" "));
  parts.push_back(token(children[at]));
  return statement(std::move(parts), function->body);
}

Doc Layout::keyword_statement(antlr4::ParserRuleContext* statement, AllotParser::ExprContext* body) {
  const auto& children = statement->children;
  return this->statement({token(children[0]), text(" "), token(children[1])}, body);
}

Doc Layout::statement(std::vector<Doc> head, AllotParser::ExprContext* body) {
  auto* let = dynamic_cast<AllotParser::LetExprContext*>(body);
  if (let == nullptr && dynamic_cast<AllotParser::IfExprContext*>(body) == nullptr) {
    head.push_back(text(" "));
    head.push_back(expression(body));
    return concat(std::move(head));
  }
  // A `let` or `if` body that does not fit starts on the next line, so that the
  // `let` lines and the final body line up.
  Doc layout = let != nullptr ? let_lines(let) : expression(body);
  return group({concat(std::move(head)), indent(kContinuationIndent, {line(), layout})});
}

Doc Layout::comma_list(const Children& children, const ItemLayout& layout, const Doc& gap) {
  std::vector<Doc> parts;
  for (std::size_t i = 0; i < children.size(); ++i) {
    auto* item = dynamic_cast<antlr4::ParserRuleContext*>(children[i]);
    if (item == nullptr) continue;  // a comma, printed with the item before it
    if (i + 1 == children.size()) {
      parts.push_back(layout(item));
      continue;
    }
    antlr4::Token* separator = as_terminal(children[i + 1])->getSymbol();
    Doc moved = comments_to_move_past_comma(item->getStop(), separator);
    parts.push_back(layout(item));
    parts.push_back(comma(separator, std::move(moved)));
    if (i + 2 < children.size()) parts.push_back(gap);
  }
  return concat(std::move(parts));
}

}  // namespace allot::format
