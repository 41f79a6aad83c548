// Expressions: single spaces around binary operators, none inside parentheses;
// `+ - and or` chains, `if`, `let` and `match` break when their line is too long.
#include <algorithm>
#include <typeinfo>

#include "layout.h"

namespace allot::format {
namespace {

constexpr int kContinuationIndent = 4;
constexpr int kMatchArmIndent = 2;

AllotParser::ExprContext* as_expression(antlr4::tree::ParseTree* node) {
  return static_cast<AllotParser::ExprContext*>(node);
}

bool breaks_before_operator(AllotParser::ExprContext* expression) {
  return dynamic_cast<AllotParser::AddExprContext*>(expression) != nullptr ||
         dynamic_cast<AllotParser::AndExprContext*>(expression) != nullptr ||
         dynamic_cast<AllotParser::OrExprContext*>(expression) != nullptr;
}

bool is_binary(AllotParser::ExprContext* expression) {
  return breaks_before_operator(expression) || dynamic_cast<AllotParser::MultiplyExprContext*>(expression) != nullptr ||
         dynamic_cast<AllotParser::CompareExprContext*>(expression) != nullptr ||
         dynamic_cast<AllotParser::PowerExprContext*>(expression) != nullptr;
}

}  // namespace

Doc Layout::expression(AllotParser::ExprContext* expression) {
  if (auto* primary_expression = dynamic_cast<AllotParser::PrimaryExprContext*>(expression)) {
    return primary(primary_expression->primary());
  }
  if (is_binary(expression)) return operator_chain(expression, breaks_before_operator(expression));
  if (auto* field = dynamic_cast<AllotParser::FieldExprContext*>(expression)) return field_chain(field);
  if (auto* negate = dynamic_cast<AllotParser::NegateExprContext*>(expression)) {
    return concat({token(negate->children[0]), this->expression(negate->operand)});
  }
  if (auto* negation = dynamic_cast<AllotParser::NotExprContext*>(expression)) {
    return concat({token(negation->children[0]), text(" "), this->expression(negation->operand)});
  }
  if (auto* conditional = dynamic_cast<AllotParser::IfExprContext*>(expression)) return if_expression(conditional);
  // `let a = 1 in let b = 2 in a + b` breaks into lines at one indentation.
  return group({let_lines(static_cast<AllotParser::LetExprContext*>(expression))});
}

Doc Layout::operator_chain(AllotParser::ExprContext* expression, bool breakable) {
  std::vector<antlr4::tree::ParseTree*> operators;
  std::vector<AllotParser::ExprContext*> operands;
  AllotParser::ExprContext* node = expression;
  while (typeid(*node) == typeid(*expression)) {  // children: left, operator, right
    operators.push_back(node->children[1]);
    operands.push_back(as_expression(node->children[2]));
    node = as_expression(node->children[0]);
  }
  operands.push_back(node);
  std::reverse(operators.begin(), operators.end());
  std::reverse(operands.begin(), operands.end());
  Doc first = this->expression(operands[0]);
  std::vector<Doc> rest;
  for (std::size_t i = 0; i < operators.size(); ++i) {
    rest.push_back(breakable ? line() : text(" "));
    auto* comparison = dynamic_cast<antlr4::ParserRuleContext*>(operators[i]);
    rest.push_back(comparison != nullptr ? tight(comparison) : token(operators[i]));
    rest.push_back(text(" "));
    rest.push_back(this->expression(operands[i + 1]));
  }
  if (!breakable) return concat({first, concat(std::move(rest))});
  // The first operand is indented too, so that an `and` chain broken inside an
  // `or` chain shows its lines deeper than the `or`.
  return group({indent(kContinuationIndent, {first}), indent(kContinuationIndent, std::move(rest))});
}

Doc Layout::field_chain(AllotParser::FieldExprContext* expression) {
  std::vector<AllotParser::FieldExprContext*> links;
  AllotParser::ExprContext* node = expression;
  while (auto* link = dynamic_cast<AllotParser::FieldExprContext*>(node)) {
    links.push_back(link);
    node = link->target;
  }
  std::vector<Doc> parts{this->expression(node)};
  for (auto link = links.rbegin(); link != links.rend(); ++link) {
    parts.push_back(token((*link)->children[1]));
    parts.push_back(tight((*link)->field));
  }
  return concat(std::move(parts));
}

Doc Layout::if_expression(AllotParser::IfExprContext* expression) {
  const auto& children = expression->children;  // if c then a else b
  return group(
      {token(children[0]), text(" "), this->expression(expression->condition),
       indent(kContinuationIndent, {line(), token(children[2]), text(" "), this->expression(expression->thenBranch),
                                    line(), token(children[4]), text(" "), this->expression(expression->elseBranch)})});
}

Doc Layout::let_lines(AllotParser::LetExprContext* expression) {
  std::vector<Doc> lines;
  AllotParser::ExprContext* node = expression;
  while (auto* let = dynamic_cast<AllotParser::LetExprContext*>(node)) {
    const auto& children = let->children;  // let x = v in body
    lines.push_back(concat({token(children[0]), text(" "), token(children[1]), text(" "), token(children[2]), text(" "),
                            this->expression(let->value), text(" "), token(children[4])}));
    node = let->body;
  }
  lines.push_back(this->expression(node));
  return join(lines, line());
}

Doc Layout::primary(AllotParser::PrimaryContext* primary) {
  if (auto* name = dynamic_cast<AllotParser::NamePrimaryContext*>(primary)) return token(name->name);
  if (auto* call_primary = dynamic_cast<AllotParser::CallPrimaryContext*>(primary)) return call(call_primary);
  if (auto* match = dynamic_cast<AllotParser::MatchPrimaryContext*>(primary)) return match_expression(match);
  if (auto* paren = dynamic_cast<AllotParser::ParenPrimaryContext*>(primary)) {
    return concat({token(paren->children[0]), expression(paren->inner), token(paren->children[2])});
  }
  return tight(primary);  // a literal
}

Doc Layout::call(AllotParser::CallPrimaryContext* call) {
  const auto& children = call->children;  // callee ( args )
  const Children arguments(children.begin() + 2, children.end() - 1);
  auto argument = [this](antlr4::ParserRuleContext* context) {
    return expression(static_cast<AllotParser::ExprContext*>(context));
  };
  return concat(
      {token(children[0]), token(children[1]), comma_list(arguments, argument, text(" ")), token(children.back())});
}

Doc Layout::match_expression(AllotParser::MatchPrimaryContext* match) {
  const auto& children = match->children;  // match subject { arm (, arm)* ,? }
  const auto arms = match->matchArm();
  std::vector<Doc> inner;
  std::size_t at = 3;
  for (std::size_t i = 0; i < arms.size(); ++i, at += 2) {
    const bool last = i + 1 == arms.size();
    antlr4::Token* separator = is_token(children[at + 1], ",") ? as_terminal(children[at + 1])->getSymbol() : nullptr;
    // The last arm's comma is the formatter's to place: its comments always follow it.
    Doc moved = comments_to_move_past_comma(arms[i]->getStop(), last ? nullptr : separator);
    inner.push_back(line());
    inner.push_back(match_arm(arms[i]));
    if (!last) {
      inner.push_back(comma(separator, std::move(moved)));
      continue;
    }
    // The last arm has a comma exactly when the arms are on their own lines.
    inner.push_back(if_break(","));
    inner.push_back(std::move(moved));
    if (separator != nullptr) inner.push_back(comments_of(separator));
  }
  inner.push_back(closing_comments(as_terminal(children.back())->getSymbol(), Gap::never));
  return group({token(children[0]), text(" "), expression(match->subject), text(" "), token(children[2]),
                indent(kMatchArmIndent, std::move(inner)), line(), token(children.back())});
}

Doc Layout::match_arm(AllotParser::MatchArmContext* arm) {
  const auto& children = arm->children;  // pattern => value
  return concat({token(children[0]), text(" "), token(children[1]), text(" "), expression(arm->value)});
}

}  // namespace allot::format
