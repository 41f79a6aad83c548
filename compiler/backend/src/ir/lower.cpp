#include "lower.h"

#include <algorithm>

#include "check/schema.h"
#include "lower_expr.h"
#include "lower_tables.h"
#include "sha256.h"

namespace allot::ir {
namespace {

// The names an entry point binds, as records (schema.h: rank_inputs, preempt_inputs).
Bindings entry_bindings(std::span<const InputSchema> inputs) {
  Bindings bindings;
  for (const auto& input : inputs) {
    const Subject subject = input.name == "requester" ? Subject::requester : Subject::job;
    bindings.emplace_back(std::string(input.name), Value(ExpressionLowerer::input(input.type, subject)));
  }
  return bindings;
}

Function lower_entry(const ast::Expr& body, std::span<const InputSchema> inputs, const LoweringScope& scope) {
  FunctionBuilder builder;
  ExpressionLowerer lowerer(scope, builder);
  Bindings bindings = entry_bindings(inputs);
  return builder.finish(lowerer.lower(body, bindings).node);
}

// Byte offset in `text` of 1-based `line` and code-point `column` (clamped to the text).
std::size_t byte_offset(const std::string& text, Position position) {
  std::size_t offset = 0;
  for (int line = 1; line < position.line && offset < text.size(); ++line) {
    const std::size_t newline = text.find('\n', offset);
    if (newline == std::string::npos) return text.size();
    offset = newline + 1;
  }
  for (int column = 1; column < position.column && offset < text.size() && text[offset] != '\n'; ++column) {
    ++offset;
    while (offset < text.size() && (static_cast<unsigned char>(text[offset]) & 0xC0) == 0x80) ++offset;
  }
  return offset;
}

// What `span` covers as written, on one line: comments dropped, each run of white space one space.
std::string written(const SourceManager& sources, Span span) {
  const std::string& text = sources.text(span.file);
  const std::size_t begin = byte_offset(text, span.begin), end = std::max(begin, byte_offset(text, span.end));
  std::string out;
  bool space = false;
  for (std::size_t i = begin; i < end; ++i) {
    if (text[i] == '/' && i + 1 < end && text[i + 1] == '/') {
      while (i < end && text[i] != '\n') ++i;
      space = true;
      continue;
    }
    if (text[i] == ' ' || text[i] == '\t' || text[i] == '\n' || text[i] == '\r') {
      space = true;
      continue;
    }
    if (space && !out.empty()) out += ' ';
    space = false;
    out += text[i];
  }
  return out;
}

// An operand of an outermost chain of one kind of operator, and whether it is subtracted.
struct PartExpr {
  const ast::Expr* expr;
  bool negated;
};

// Peels the `let`s around `expr` (into `lets`, outermost first) and returns what they bind in.
const ast::Expr& peel_lets(const ast::Expr& expr, std::vector<const ast::Expr*>& lets) {
  const ast::Expr* body = &expr;
  while (body->kind == ast::ExprKind::let) {
    lets.push_back(body);
    body = body->operands[1].get();
  }
  return *body;
}

// The operands of the left-leaning chain of `operators` at the top of `expr`:
// `a - b + c` gives a, -b, c. A right operand is never split further, so the
// contributions added in order repeat the expression's own additions.
void chain(const ast::Expr& expr, const std::vector<std::string>& operators, std::vector<PartExpr>& out) {
  const bool link =
      expr.kind == ast::ExprKind::binary && std::find(operators.begin(), operators.end(), expr.text) != operators.end();
  if (!link) {
    out.push_back({&expr, false});
    return;
  }
  chain(*expr.operands[0], operators, out);
  out.push_back({expr.operands[1].get(), expr.text == "-"});
}

// The parts of an entry point's body (rank: terms of `+` / `-`; preempt: operands of its outermost `and` or `or`),
// each lowered on its own inside the `let`s around them. `joined_by_or` says
// whether a preempt's condition (inside its `let`s) is an `or`.
std::vector<Part> lower_parts(const ast::Expr& body, bool rank, std::span<const InputSchema> inputs,
                              const LoweringScope& scope, const SourceManager& sources, bool* joined_by_or = nullptr) {
  std::vector<const ast::Expr*> lets;
  const ast::Expr& inner = peel_lets(body, lets);
  const bool by_or = !rank && inner.kind == ast::ExprKind::binary && inner.text == "or";
  if (joined_by_or) *joined_by_or = by_or;
  std::vector<PartExpr> pieces;
  const std::vector<std::string> operators =
      rank ? std::vector<std::string>{"+", "-"} : std::vector<std::string>{by_or ? "or" : "and"};
  chain(inner, operators, pieces);
  std::vector<Part> parts;
  for (const PartExpr& piece : pieces) {
    FunctionBuilder builder;
    ExpressionLowerer lowerer(scope, builder);
    Bindings bindings = entry_bindings(inputs);
    for (const ast::Expr* let : lets) bindings.emplace_back(let->text, lowerer.lower(*let->operands[0], bindings));
    NodeId node = lowerer.lower(*piece.expr, bindings).node;
    if (piece.negated) node = builder.compute(Op::neg, builder.node(node).type, node);
    Part part;
    part.function = builder.finish(node);
    part.info.text = written(sources, piece.expr->span);
    part.info.file = sources.path(piece.expr->span.file);
    part.info.line = piece.expr->span.begin.line;
    part.info.negated = piece.negated;
    part.info.constant = part.function.nodes.size() == 1 && part.function.nodes[0].op == Op::constant;
    if (piece.expr->kind == ast::ExprKind::name) {
      for (auto let = lets.rbegin(); let != lets.rend(); ++let) {
        if ((*let)->text != piece.expr->text) continue;
        part.info.definition = written(sources, (*let)->operands[0]->span);
        break;
      }
    }
    parts.push_back(std::move(part));
  }
  return parts;
}

LoweringScope lowering_scope(const Program& program, const Scope& scope, const ExpressionTypes& types) {
  LoweringScope lowering;
  const auto classes = visible_classes(program);
  for (std::size_t i = 0; i < classes.size(); ++i) lowering.class_ids.emplace(classes[i]->name, static_cast<double>(i));
  lowering.functions = scope.functions;
  lowering.types = &types;
  return lowering;
}

void record_fields_read(const Function& function, LoweredPolicy& policy) {
  for (const auto& node : function.nodes) {
    if (node.op == Op::job_field) policy.job_fields_read.push_back(static_cast<abi::JobField>(node.field));
    if (node.op == Op::account_field) policy.account_fields_read.push_back(static_cast<abi::AccountField>(node.field));
  }
}

template <typename T>
void sort_unique(std::vector<T>& values) {
  std::sort(values.begin(), values.end());
  values.erase(std::unique(values.begin(), values.end()), values.end());
}

}  // namespace

std::string source_hash(const SourceManager& sources) {
  Sha256 hash;
  for (FileId file = 0; file < sources.size(); ++file) {
    const std::string& text = sources.text(file);
    hash.update(std::to_string(text.size()) + "\n");
    hash.update(text);
  }
  return hash.hex_digest();
}

LoweredPolicy lower_program(const CheckedProgram& checked, const SourceManager& sources) {
  const Program& program = *checked.program;
  const ast::Policy& policy = program.modules.front().policies.front();
  const LoweringScope lowering = lowering_scope(program, checked.scope, checked.typed.expression_types);

  LoweredPolicy lowered;
  lowered.tables = lower_tables(program, policy);
  lowered.rank = lower_entry(*policy.ranks.front().body, rank_inputs(), lowering);
  lowered.rank_terms = lower_parts(*policy.ranks.front().body, true, rank_inputs(), lowering, sources);
  if (!policy.preempts.empty()) {
    const ast::Expr& body = *policy.preempts.front().body;
    lowered.preempt = lower_entry(body, preempt_inputs(), lowering);
    lowered.preempt_operands =
        lower_parts(body, false, preempt_inputs(), lowering, sources, &lowered.preempt_operands_or);
  }
  lowered.source_hash = source_hash(sources);
  record_fields_read(lowered.rank, lowered);
  if (lowered.preempt) record_fields_read(*lowered.preempt, lowered);
  sort_unique(lowered.job_fields_read);
  sort_unique(lowered.account_fields_read);
  return lowered;
}

}  // namespace allot::ir
