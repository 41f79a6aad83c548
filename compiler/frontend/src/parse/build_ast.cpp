#include "build_ast.h"

#include <fmt/format.h>

#include "allot/duration.h"

#include <charconv>

namespace allot {
namespace {

using P = grammar::AllotParser;

// Converts a parse tree into AST values. Recursion depth is bounded by the
// parser's rule-depth limit, so the recursive expression builder is safe.
class Builder {
 public:
  Builder(FileId file, DiagnosticSink& diagnostics) : file_(file), diagnostics_(diagnostics) {}

  ast::Module module(P::FileContext* context) {
    ast::Module result;
    result.file = file_;
    for (auto* import : context->importDecl()) {
      result.imports.push_back({string_value(import->path), span(import)});
    }
    for (auto* item : context->topItem()) {
      if (item->policyDecl()) result.policies.push_back(policy(item->policyDecl()));
      if (item->fnDecl()) result.functions.push_back(function(item->fnDecl()));
      if (item->classDecl()) result.classes.push_back(class_decl(item->classDecl()));
    }
    return result;
  }

 private:
  Span span(antlr4::ParserRuleContext* context) const { return context_span(file_, context); }
  Span span(const antlr4::Token* token) const { return token_span(file_, token); }

  // Literals stop at 10^15: every whole number up to there is exact in a double,
  // and a longer one (a typo, or a fuzzer's) would otherwise become infinity.
  static constexpr double kLargestLiteral = 1e15;

  // The largest number written in a literal (`1.5`, `99d`, `1h30m`), and
  // whether it is past kLargestLiteral (then reported as number_out_of_range).
  bool too_large(const antlr4::Token* token) {
    const std::string text = token->getText();
    double largest = 0;
    for (std::size_t at = 0; at < text.size();) {
      std::size_t end = at;
      while (end < text.size() && (std::isdigit(static_cast<unsigned char>(text[end])) || text[end] == '.')) ++end;
      if (end > at) largest = std::max(largest, std::strtod(text.substr(at, end - at).c_str(), nullptr));
      at = end + 1;
    }
    if (largest <= kLargestLiteral) return false;
    diagnostics_
        .error(DiagnosticCode::number_out_of_range, span(token), fmt::format("`{}` is too large for a literal", text))
        .help("literals go up to 1000000000000000 (10^15); use a larger unit or a smaller number");
    return true;
  }

  double number_value(const antlr4::Token* token) {
    if (too_large(token)) return 0;
    return std::strtod(token->getText().c_str(), nullptr);
  }

  // Read in the grammar every input reads a duration in; a duration past the
  // longest any input may state keeps its value, and the check of the place it
  // stands in says why it is too long there (a window, a contract).
  double duration_seconds(const antlr4::Token* token) {
    const std::string text = token->getText();
    const auto seconds = support::parse_duration_unbounded(text);
    if (!seconds) {
      diagnostics_.error(DiagnosticCode::invalid_duration, span(token), fmt::format("`{}` is not a duration", text))
          .help(
              "write whole numbers with the units largest first, each once (`1h30m`), or one unit with a decimal "
              "part (`1.5h`)");
      return 0;
    }
    return too_large(token) ? 0 : *seconds;
  }

  static std::string string_value(const antlr4::Token* token) {
    const std::string text = token->getText();
    std::string result;
    for (std::size_t i = 1; i + 1 < text.size(); ++i) {
      if (text[i] == '\\' && i + 2 < text.size()) {
        const char escaped = text[++i];
        result += escaped == 'n' ? '\n' : escaped == 't' ? '\t' : escaped;
      } else {
        result += text[i];
      }
    }
    return result;
  }

  std::optional<Date> date_value(const antlr4::Token* token) {
    auto date = parse_date(token->getText());
    if (!date) {
      diagnostics_
          .error(DiagnosticCode::invalid_date, span(token),
                 fmt::format("`{}` is not a calendar date", token->getText()))
          .help("write dates as YYYY-MM-DD with a month of 01-12 and a day that exists in it");
    }
    return date;
  }

  ast::Policy policy(P::PolicyDeclContext* context) {
    ast::Policy result;
    result.name = context->name->getText();
    result.name_span = span(context->name);
    result.span = span(context);
    for (auto* item : context->policyItem()) policy_item(item, result);
    return result;
  }

  void policy_item(P::PolicyItemContext* item, ast::Policy& policy) {
    if (auto* unit = item->unitDecl()) {
      ast::UnitDecl decl{unit->kind->getText(), span(unit->kind), {}, span(unit)};
      for (auto* weight : unit->weight()) {
        decl.weights.push_back({weight->name->getText(), number_value(weight->value), span(weight)});
      }
      policy.units.push_back(std::move(decl));
    } else if (auto* window = item->windowDecl()) {
      ast::WindowDecl decl{duration_seconds(window->length), std::nullopt, {}, span(window), span(window->length)};
      if (window->halfLife) {
        decl.half_life_seconds = duration_seconds(window->halfLife);
        decl.half_life_span = span(window->halfLife);
      }
      policy.windows.push_back(decl);
    } else if (auto* fairshare = item->fairshareDecl()) {
      policy.fairshares.push_back({fairshare->algorithm->getText(), span(fairshare)});
    } else if (auto* tree = item->treeDecl()) {
      policy.trees.push_back(tree_decl(tree));
    } else if (auto* class_context = item->classDecl()) {
      policy.classes.push_back(class_decl(class_context));
    } else if (auto* exception = item->exceptionDecl()) {
      policy.exceptions.push_back(exception_decl(exception));
    } else if (auto* fn = item->fnDecl()) {
      policy.functions.push_back(function(fn));
    } else if (auto* rank = item->rankDecl()) {
      policy.ranks.push_back({expr(rank->body), span(rank)});
    } else if (auto* preempt = item->preemptDecl()) {
      policy.preempts.push_back({expr(preempt->body), span(preempt)});
    } else if (auto* gates = item->gatesDecl()) {
      policy.gates.push_back(gates_decl(gates));
    }
  }

  ast::TreeDecl tree_decl(P::TreeDeclContext* context) {
    ast::TreeDecl result;
    result.span = span(context);
    for (auto* child : context->children) {
      if (auto* node = dynamic_cast<P::TreeNodeContext*>(child)) result.programs.push_back(tree_node(node));
      if (auto* rest = dynamic_cast<P::UnallocatedContext*>(child)) result.unallocated.push_back(unallocated(rest));
    }
    return result;
  }

  ast::Unallocated unallocated(P::UnallocatedContext* context) { return {number_value(context->share), span(context)}; }

  ast::TreeNode tree_node(P::TreeNodeContext* context) {
    ast::TreeNode node;
    if (context->level) {
      node.level_keyword = context->level->getText() == "user" ? ast::NodeLevel::user : ast::NodeLevel::project;
    }
    node.name = context->name->getText();
    node.name_span = span(context->name);
    node.share_span = span(context->share);
    if (auto* percent = dynamic_cast<P::PercentShareContext*>(context->share)) {
      node.percent = number_value(percent->percent);
    } else if (auto* raw = dynamic_cast<P::RawShareContext*>(context->share)) {
      node.share_form = ast::ShareForm::raw;
      node.raw_shares = number_value(raw->raw);
    } else {
      node.share_form = ast::ShareForm::parent;
    }
    node.span = span(context);
    for (auto* item : context->nodeItem()) {
      if (item->treeNode()) node.children.push_back(tree_node(item->treeNode()));
      if (item->unallocated()) node.unallocated.push_back(unallocated(item->unallocated()));
      if (item->nodeAttribute()) node.attributes.push_back(attribute(item->nodeAttribute()));
    }
    return node;
  }

  ast::NodeAttribute attribute(P::NodeAttributeContext* context) {
    ast::NodeAttribute result;
    result.span = span(context);
    if (auto* owner = dynamic_cast<P::OwnerAttributeContext*>(context)) {
      result.kind = ast::AttributeKind::owner;
      result.text = string_value(owner->value);
    } else if (auto* review = dynamic_cast<P::ReviewAttributeContext*>(context)) {
      result.kind = ast::AttributeKind::review;
      result.date = date_value(review->date);
    } else if (auto* hypothesis = dynamic_cast<P::HypothesisAttributeContext*>(context)) {
      result.kind = ast::AttributeKind::hypothesis;
      result.text = string_value(hypothesis->value);
    }
    return result;
  }

  static bool flag_value(P::BooleanLiteralContext* flag) { return flag == nullptr || flag->getText() == "true"; }

  ast::ClassDecl class_decl(P::ClassDeclContext* context) {
    ast::ClassDecl result{context->name->getText(), span(context->name), {}, span(context)};
    for (auto* property : context->classProperty()) result.properties.push_back(class_property(property));
    return result;
  }

  ast::ClassProperty class_property(P::ClassPropertyContext* context) {
    using Kind = ast::ClassPropertyKind;
    ast::ClassProperty result;
    result.span = span(context);
    const auto set = [&result](ast::ClassPropertyKind kind, double value, bool flag, bool up_to) {
      result.kind = kind;
      result.value = value;
      result.flag = flag;
      result.up_to = up_to;
    };
    if (auto* p = dynamic_cast<P::MaxGpusPropertyContext*>(context)) {
      set(Kind::max_gpus, number_value(p->value), true, false);
    } else if (auto* p = dynamic_cast<P::MaxNodesPropertyContext*>(context)) {
      set(Kind::max_nodes, number_value(p->value), true, false);
    } else if (auto* p = dynamic_cast<P::MaxRuntimePropertyContext*>(context)) {
      set(Kind::max_runtime, duration_seconds(p->value), true, false);
    } else if (auto* p = dynamic_cast<P::ProtectPropertyContext*>(context)) {
      set(Kind::protect, duration_seconds(p->value), true, p->upTo != nullptr);
    } else if (auto* p = dynamic_cast<P::CheckpointPropertyContext*>(context)) {
      set(Kind::checkpoint, duration_seconds(p->value), true, false);
    } else if (auto* p = dynamic_cast<P::GracePropertyContext*>(context)) {
      set(Kind::grace, duration_seconds(p->value), true, false);
    } else if (auto* p = dynamic_cast<P::ResumablePropertyContext*>(context)) {
      set(Kind::resumable, 0, flag_value(p->flag), false);
    } else if (auto* p = dynamic_cast<P::PreemptiblePropertyContext*>(context)) {
      set(Kind::preemptible, 0, flag_value(p->flag), false);
    } else if (auto* p = dynamic_cast<P::DeadlinePropertyContext*>(context)) {
      set(Kind::deadline, 0, p->requirement->getText() == "required", false);
    } else if (auto* p = dynamic_cast<P::SloPropertyContext*>(context)) {
      set(Kind::slo, number_value(p->value), true, false);
    } else if (auto* p = dynamic_cast<P::FastLanePropertyContext*>(context)) {
      set(Kind::fast_lane, number_value(p->value), true, false);
      for (antlr4::Token* word : p->words) result.words.push_back(word->getText());
      result.words_span =
          p->words.empty() ? span(p->value) : Span{file_, span(p->words.front()).begin, span(p->words.back()).end};
    } else if (auto* p = dynamic_cast<P::ProgressPropertyContext*>(context)) {
      set(Kind::progress, duration_seconds(p->value), true, false);
      if (p->afterWord != nullptr) {
        result.words.push_back(p->afterWord->getText());
        result.words_span = span(p->afterWord);
        result.after = duration_seconds(p->after);
      }
      if (p->action != nullptr) {
        result.action = p->action->getText();
        result.action_span = span(p->action);
      }
    }
    return result;
  }

  ast::NodePath node_path(P::NodePathContext* context) {
    ast::NodePath path;
    path.span = span(context);
    for (auto* part : context->IDENT()) path.parts.push_back(part->getText());
    return path;
  }

  ast::ExceptionDecl exception_decl(P::ExceptionDeclContext* context) {
    ast::ExceptionDecl result;
    result.name = context->name->getText();
    result.name_span = span(context->name);
    result.span = span(context);
    for (auto* property : context->exceptionProperty()) {
      if (auto* grant = dynamic_cast<P::GrantPropertyContext*>(property)) {
        ast::Grant value;
        value.to = node_path(grant->to);
        value.percent = number_value(grant->amount->PERCENT()->getSymbol());
        if (grant->amount->sign && grant->amount->sign->getText() == "-") value.percent = -value.percent;
        value.amount_span = span(grant->amount);
        if (grant->source) value.from = node_path(grant->source);
        value.span = span(grant);
        result.grants.push_back(std::move(value));
      } else {
        result.fields.push_back(exception_field(property));
      }
    }
    return result;
  }

  ast::ExceptionField exception_field(P::ExceptionPropertyContext* context) {
    using Kind = ast::ExceptionFieldKind;
    ast::ExceptionField field;
    field.span = span(context);
    if (auto* owner = dynamic_cast<P::ExceptionOwnerContext*>(context)) {
      field.kind = Kind::owner;
      field.text = string_value(owner->value);
    } else if (auto* reason = dynamic_cast<P::ExceptionReasonContext*>(context)) {
      field.kind = Kind::reason;
      field.text = string_value(reason->value);
    } else if (auto* starts = dynamic_cast<P::ExceptionStartsContext*>(context)) {
      field.kind = Kind::starts;
      field.date = date_value(starts->date);
    } else if (auto* expires = dynamic_cast<P::ExceptionExpiresContext*>(context)) {
      field.kind = Kind::expires;
      field.date = date_value(expires->date);
    }
    return field;
  }

  ast::TypeRef type_ref(P::TypeNameContext* context) { return {context->getText(), span(context)}; }

  ast::FnDecl function(P::FnDeclContext* context) {
    ast::FnDecl result;
    result.name = context->name->getText();
    result.name_span = span(context->name);
    for (auto* param : context->param()) {
      result.params.push_back({param->name->getText(), span(param->name), type_ref(param->type)});
    }
    if (context->result) result.result = type_ref(context->result);
    result.body = expr(context->body);
    result.span = span(context);
    return result;
  }

  ast::GatesDecl gates_decl(P::GatesDeclContext* context) {
    ast::GatesDecl result;
    result.span = span(context);
    for (auto* gate : context->gate()) {
      ast::Gate value;
      value.metric = gate->metric->getText();
      value.metric_span = span(gate->metric);
      if (gate->subject) {
        value.subject = gate->subject->getText();
        value.subject_span = span(gate->subject);
      }
      value.op = gate->op->getText();
      value.op_span = span(gate->op);
      value.threshold = literal(gate->threshold);
      if (gate->window) {
        value.window_seconds = duration_seconds(gate->window);
        value.window_span = span(gate->window);
      }
      value.span = span(gate);
      result.gates.push_back(std::move(value));
    }
    return result;
  }

  // --- expressions --------------------------------------------------------

  // The expression as written, for messages; empty for long expressions, so
  // building the AST stays linear in the size of the file.
  static std::string short_source_text(antlr4::ParserRuleContext* context) {
    const antlr4::Token* start = context->getStart();
    const antlr4::Token* stop = context->getStop();
    if (stop == nullptr || stop->getTokenIndex() < start->getTokenIndex() ||
        stop->getTokenIndex() - start->getTokenIndex() > 32) {
      return "";
    }
    return start->getInputStream()->getText(antlr4::misc::Interval(start->getStartIndex(), stop->getStopIndex()));
  }

  ast::ExprPtr make(ast::ExprKind kind, antlr4::ParserRuleContext* context) {
    auto node = std::make_unique<ast::Expr>();
    node->kind = kind;
    node->span = span(context);
    node->name_span = node->span;
    node->source_text = short_source_text(context);
    return node;
  }

  ast::ExprPtr binary(antlr4::ParserRuleContext* context, std::string op, P::ExprContext* left, P::ExprContext* right) {
    auto node = make(ast::ExprKind::binary, context);
    node->text = std::move(op);
    node->operands.push_back(expr(left));
    node->operands.push_back(expr(right));
    return node;
  }

  ast::ExprPtr unary(antlr4::ParserRuleContext* context, std::string op, P::ExprContext* operand) {
    auto node = make(ast::ExprKind::unary, context);
    node->text = std::move(op);
    node->operands.push_back(expr(operand));
    return node;
  }

  ast::ExprPtr expr(P::ExprContext* context) {
    using Kind = ast::ExprKind;
    if (auto* e = dynamic_cast<P::PrimaryExprContext*>(context)) return primary(e->primary());
    if (auto* e = dynamic_cast<P::FieldExprContext*>(context)) {
      auto node = make(Kind::field, e);
      node->text = e->field->getText();
      node->name_span = span(e->field);
      node->operands.push_back(expr(e->target));
      return node;
    }
    if (auto* e = dynamic_cast<P::PowerExprContext*>(context)) return binary(e, "^", e->left, e->right);
    if (auto* e = dynamic_cast<P::NegateExprContext*>(context)) return unary(e, "-", e->operand);
    if (auto* e = dynamic_cast<P::MultiplyExprContext*>(context)) return binary(e, e->op->getText(), e->left, e->right);
    if (auto* e = dynamic_cast<P::AddExprContext*>(context)) return binary(e, e->op->getText(), e->left, e->right);
    if (auto* e = dynamic_cast<P::CompareExprContext*>(context)) return binary(e, e->op->getText(), e->left, e->right);
    if (auto* e = dynamic_cast<P::NotExprContext*>(context)) return unary(e, "not", e->operand);
    if (auto* e = dynamic_cast<P::AndExprContext*>(context)) return binary(e, "and", e->left, e->right);
    if (auto* e = dynamic_cast<P::OrExprContext*>(context)) return binary(e, "or", e->left, e->right);
    if (auto* e = dynamic_cast<P::IfExprContext*>(context)) {
      auto node = make(Kind::if_then_else, e);
      node->operands.push_back(expr(e->condition));
      node->operands.push_back(expr(e->thenBranch));
      node->operands.push_back(expr(e->elseBranch));
      return node;
    }
    auto* e = dynamic_cast<P::LetExprContext*>(context);
    auto node = make(Kind::let, e);
    node->text = e->name->getText();
    node->name_span = span(e->name);
    node->operands.push_back(expr(e->value));
    node->operands.push_back(expr(e->body));
    return node;
  }

  ast::ExprPtr primary(P::PrimaryContext* context) {
    using Kind = ast::ExprKind;
    if (auto* p = dynamic_cast<P::LiteralPrimaryContext*>(context)) return literal(p->literal());
    if (auto* p = dynamic_cast<P::NamePrimaryContext*>(context)) {
      auto node = make(Kind::name, p);
      node->text = p->name->getText();
      return node;
    }
    if (auto* p = dynamic_cast<P::CallPrimaryContext*>(context)) {
      auto node = make(Kind::call, p);
      node->text = p->callee->getText();
      node->name_span = span(p->callee);
      for (auto* argument : p->expr()) node->operands.push_back(expr(argument));
      return node;
    }
    if (auto* p = dynamic_cast<P::ParenPrimaryContext*>(context)) {
      auto inner = expr(p->inner);
      inner->span = span(p);  // the parentheses belong to the operand
      return inner;
    }
    auto* p = dynamic_cast<P::MatchPrimaryContext*>(context);
    auto node = make(Kind::match, p);
    node->operands.push_back(expr(p->subject));
    for (auto* arm : p->matchArm()) {
      ast::MatchArm value;
      if (arm->pattern) {
        value.pattern = arm->pattern->getText();
        value.pattern_span = span(arm->pattern);
      } else {
        value.pattern_span = span(arm->wildcard);
      }
      value.value = expr(arm->value);
      node->arms.push_back(std::move(value));
    }
    return node;
  }

  ast::ExprPtr literal(P::LiteralContext* context) {
    using Kind = ast::ExprKind;
    const antlr4::Token* token = context->getStart();
    Kind kind = Kind::boolean;
    auto node = make(kind, context);
    switch (token->getType()) {
      case P::NUMBER:
        node->kind = Kind::number;
        node->number = number_value(token);
        break;
      case P::DURATION:
        node->kind = Kind::duration;
        node->number = duration_seconds(token);
        break;
      case P::PERCENT:
        node->kind = Kind::percent;
        node->number = number_value(token);
        break;
      case P::DATE: {
        node->kind = Kind::date;
        auto date = date_value(token);
        node->number = date ? date->days_since_epoch : 0;
        break;
      }
      case P::STRING:
        node->kind = Kind::string;
        node->text = string_value(token);
        break;
      default:
        node->kind = Kind::boolean;
        node->number = token->getText() == "true" ? 1 : 0;
        break;
    }
    return node;
  }

  FileId file_;
  DiagnosticSink& diagnostics_;
};

}  // namespace

std::string ast::NodePath::joined() const {
  std::string result;
  for (const auto& part : parts) result += (result.empty() ? "" : "/") + part;
  return result;
}

ast::Module build_module(const ParsedTree& tree, DiagnosticSink& diagnostics) {
  return Builder(tree.file, diagnostics).module(tree.root);
}

}  // namespace allot
