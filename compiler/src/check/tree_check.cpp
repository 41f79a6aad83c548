// The budget tree: levels, sibling names, shares that sum to 100%, and the
// owner, review date and hypothesis every program answers for.
#include <fmt/format.h>

#include <cmath>
#include <map>

#include "check_context.h"
#include "tree_format.h"
#include "tree_index.h"

namespace allot {
namespace {

using ast::AttributeKind;
using ast::NodeLevel;

const char* keyword_text(NodeLevel level) { return level == NodeLevel::user ? "user" : "project"; }

// The `project` / `user` keyword written before a node's name.
Span keyword_span(const ast::TreeNode& node) {
  Span span = node.span;
  const int width = static_cast<int>(std::string(keyword_text(node.level_keyword.value_or(NodeLevel::project))).size());
  span.end = {span.begin.line, span.begin.column + width};
  return span;
}

// --- levels ------------------------------------------------------------------

void check_program_keyword(const ast::TreeNode& program, const CheckContext& context) {
  if (!program.level_keyword) return;
  context.diagnostics
      .error("invalid_tree_level", keyword_span(program),
             fmt::format("a {} cannot stand at the top of the tree", keyword_text(*program.level_keyword)))
      .help(fmt::format("top-level nodes are programs: write `{} {}`, or move it inside a program", program.name,
                        format_percent(program.percent)));
}

void report_missing_keyword(const ast::TreeNode& child, const std::string& allowed, const CheckContext& context) {
  context.diagnostics
      .error("invalid_tree_level", child.name_span, fmt::format("`{}` needs a level keyword", child.name))
      .help(fmt::format("write {}", allowed));
}

// The level `child` takes under a node of `parent_level`, reporting a missing
// or misplaced keyword. nullopt for a misplaced child: its own children are
// then not judged against a guess.
std::optional<NodeLevel> child_level(const ast::TreeNode& child, NodeLevel parent_level, const CheckContext& context) {
  if (parent_level == NodeLevel::program) {
    if (child.level_keyword) return child.level_keyword;
    report_missing_keyword(child, fmt::format("`project {0}` or `user {0}`", child.name), context);
    return std::nullopt;
  }
  if (child.level_keyword == NodeLevel::user) return NodeLevel::user;
  if (!child.level_keyword) {
    report_missing_keyword(child, fmt::format("`user {}`", child.name), context);
    return std::nullopt;
  }
  context.diagnostics.error("invalid_tree_level", keyword_span(child), "a project cannot contain a project")
      .help(fmt::format("projects hold users only: write `user {}`, or move it up beside its parent", child.name));
  return std::nullopt;
}

void check_user_is_leaf(const ast::TreeNode& user, const CheckContext& context) {
  if (!user.children.empty()) {
    context.diagnostics
        .error("invalid_tree_level", user.children.front().name_span,
               fmt::format("user `{}` cannot have members", user.name))
        .note(fmt::format("`{}` is a user", user.name), keyword_span(user))
        .help(fmt::format("only programs and projects divide their share: make `{}` a `project`, or move `{}` out",
                          user.name, user.children.front().name));
  } else if (!user.unallocated.empty()) {
    context.diagnostics
        .error("invalid_tree_level", user.unallocated.front().span,
               fmt::format("user `{}` has no members to leave a share unallocated", user.name))
        .help("remove `unallocated`; only programs and projects divide their share");
  }
}

void check_levels_below(const ast::TreeNode& node, NodeLevel level, const CheckContext& context) {
  if (level == NodeLevel::user) return check_user_is_leaf(node, context);
  for (const auto& child : node.children) {
    if (auto level_of_child = child_level(child, level, context)) check_levels_below(child, *level_of_child, context);
  }
}

void check_levels(const ast::TreeDecl& tree, const CheckContext& context) {
  for (const auto& program : tree.programs) {
    check_program_keyword(program, context);
    check_levels_below(program, NodeLevel::program, context);
  }
}

// --- one level: names and shares ----------------------------------------------

// The children of the tree root or of one node, with their `unallocated`.
struct Level {
  std::string where;  // "among the programs", "under `exploration`"
  Span span;          // where a wrong sum is reported
  bool top = false;
  const std::vector<ast::TreeNode>& children;
  const std::vector<ast::Unallocated>& unallocated;
};

void check_sibling_names(const Level& level, const CheckContext& context) {
  std::map<std::string, const ast::TreeNode*> seen;
  for (const auto& child : level.children) {
    auto [first, inserted] = seen.emplace(child.name, &child);
    if (inserted) continue;
    context.diagnostics
        .error("duplicate_name", child.name_span, fmt::format("`{}` appears twice {}", child.name, level.where))
        .note("first declared here", first->second->name_span)
        .help("rename one of them, or merge them into one node");
  }
}

// Reports shares outside (0%, 100%]; false when any is, so the sum is not judged too.
bool shares_in_range(const Level& level, const CheckContext& context) {
  bool in_range = true;
  for (const auto& child : level.children) {
    if (child.percent > 100 + kShareTolerance) {
      context.diagnostics
          .error("share_out_of_range", child.share_span,
                 fmt::format("share of `{}` is {}, above 100%", child.name, format_percent(child.percent)))
          .help("a share is a percentage of its parent: write at most `100%`");
      in_range = false;
    } else if (child.percent <= 0) {
      context.diagnostics.error("share_out_of_range", child.share_span, fmt::format("share of `{}` is 0%", child.name))
          .help("a node needs a share above 0%; remove it, or lend the capacity with `unallocated`");
      in_range = false;
    }
  }
  if (!level.unallocated.empty() && level.unallocated.front().percent > 100 + kShareTolerance) {
    context.diagnostics
        .error("share_out_of_range", level.unallocated.front().span,
               fmt::format("`unallocated {}` is above 100%", format_percent(level.unallocated.front().percent)))
        .help("lend at most `unallocated 100%`");
    in_range = false;
  }
  return in_range;
}

// Reports every `unallocated` after the first; false when there was one.
bool check_single_unallocated(const Level& level, const CheckContext& context) {
  for (std::size_t i = 1; i < level.unallocated.size(); ++i) {
    context.diagnostics
        .error("duplicate_declaration", level.unallocated[i].span,
               fmt::format("`unallocated` is set twice {}", level.where))
        .note("first set here", level.unallocated.front().span)
        .help("merge them into one `unallocated`");
  }
  return level.unallocated.size() <= 1;
}

std::string sum_help(const Level& level, double total) {
  if (total > 100) return "lower a share so they sum to 100%";
  const double rest = 100 - total;
  if (level.unallocated.empty()) {
    return fmt::format("add `unallocated {}` to lend the rest as unassigned capacity, or adjust a share",
                       format_percent(rest));
  }
  return fmt::format("raise `unallocated` to {} to lend the rest as unassigned capacity, or adjust a share",
                     format_percent(level.unallocated.front().percent + rest));
}

void check_share_sum(const Level& level, const CheckContext& context) {
  std::vector<ShareTerm> terms;
  double total = 0;
  for (const auto& child : level.children) {
    terms.push_back({child.name, child.percent});
    total += child.percent;
  }
  // A repeated `unallocated` is its own diagnostic; the first one counts.
  if (!level.unallocated.empty()) {
    terms.push_back({"unallocated", level.unallocated.front().percent});
    total += level.unallocated.front().percent;
  }
  if (std::fabs(total - 100) <= kShareTolerance) return;
  if (terms.empty()) {
    context.diagnostics.error("share_sum_mismatch", level.span, "the tree has no programs")
        .help("add programs whose shares sum to 100%, such as `research 100% { ... }`");
    return;
  }
  const std::string message = level.top
                                  ? fmt::format("shares of the programs sum to {}, not 100%", format_percent(total))
                                  : fmt::format("shares {} sum to {}, not 100%", level.where, format_percent(total));
  context.diagnostics.error("share_sum_mismatch", level.span, message)
      .note(format_sum(terms, total))
      .help(sum_help(level, total));
}

void check_level(const Level& level, const CheckContext& context) {
  check_sibling_names(level, context);
  // With `unallocated` twice the intended sum is unclear; the duplicate is the one diagnostic.
  const bool single_unallocated = check_single_unallocated(level, context);
  if (shares_in_range(level, context) && single_unallocated) check_share_sum(level, context);
}

Span tree_keyword_span(const ast::TreeDecl& tree) {
  Span span = tree.span;
  span.end = {span.begin.line, span.begin.column + 4};
  return span;
}

void check_every_level(const ast::TreeDecl& tree, const TreeIndex& index, const CheckContext& context) {
  check_level({"among the programs", tree_keyword_span(tree), true, tree.programs, tree.unallocated}, context);
  for (const auto& entry : index.nodes()) {
    const ast::TreeNode& node = *entry.node;
    // A user that divides its share is an `invalid_tree_level`; its sum is moot.
    if (node.level_keyword == NodeLevel::user || (node.children.empty() && node.unallocated.empty())) continue;
    check_level({fmt::format("under `{}`", entry.path), node.name_span, false, node.children, node.unallocated},
                context);
  }
}

// --- owner, review, hypothesis ----------------------------------------------------

const char* attribute_name(AttributeKind kind) {
  switch (kind) {
    case AttributeKind::owner:
      return "owner";
    case AttributeKind::review:
      return "review";
    case AttributeKind::hypothesis:
      return "hypothesis";
  }
  return "";
}

// The first attribute of each kind on a node; repeats are reported.
std::map<AttributeKind, const ast::NodeAttribute*> first_attributes(const IndexedNode& entry,
                                                                    const CheckContext& context) {
  std::map<AttributeKind, const ast::NodeAttribute*> first;
  for (const auto& attribute : entry.node->attributes) {
    auto [it, inserted] = first.emplace(attribute.kind, &attribute);
    if (inserted) continue;
    const char* name = attribute_name(attribute.kind);
    context.diagnostics
        .error("duplicate_declaration", attribute.span, fmt::format("`{}` is set twice on `{}`", name, entry.path))
        .note("first set here", it->second->span)
        .help(fmt::format("keep one `{}`", name));
  }
  return first;
}

struct RequiredAttribute {
  AttributeKind kind;
  const char* code;
  const char* missing;  // how the message names it
  const char* help;
};

const RequiredAttribute kRequiredAttributes[] = {
    {AttributeKind::owner, "missing_owner", "owner",
     "add `owner \"name@example.com\"`: the person who answers for this share"},
    {AttributeKind::review, "missing_review", "review date",
     "add `review YYYY-MM-DD`: when its share and hypothesis are next reviewed"},
    {AttributeKind::hypothesis, "missing_hypothesis", "hypothesis",
     "add `hypothesis \"...\"`: the impact this share is expected to buy"},
};

void check_program_attributes(const IndexedNode& program,
                              const std::map<AttributeKind, const ast::NodeAttribute*>& attributes,
                              const CheckContext& context) {
  for (const auto& required : kRequiredAttributes) {
    auto found = attributes.find(required.kind);
    if (found == attributes.end()) {
      context.diagnostics
          .error(required.code, program.node->name_span,
                 fmt::format("program `{}` has no {}", program.path, required.missing))
          .help(required.help);
    } else if (required.kind != AttributeKind::review && found->second->text.empty()) {
      // The empty string is the thing to change, so it carries the span.
      context.diagnostics
          .error(required.code, found->second->span,
                 fmt::format("program `{}` has an empty {}", program.path, attribute_name(required.kind)))
          .help(required.help);
    }
  }
}

std::string days_from_now(int days) {
  if (days == 0) return "today";
  return days == 1 ? "in 1 day" : fmt::format("in {} days", days);
}

void check_review_date(const IndexedNode& entry, const ast::NodeAttribute& review, const CheckContext& context) {
  if (!review.date) return;  // an impossible date is already an `invalid_date`
  const int days = review.date->days_since_epoch - context.today.days_since_epoch;
  const Span span = trailing_columns(review.span, kDateWidth);
  const char* help = "review the node's share and hypothesis with its owner, then move the date";
  if (days < 0) {
    context.diagnostics
        .error("review_date_passed", span,
               fmt::format("review of `{}` was due on {}", entry.path, format_date(*review.date)))
        .note(fmt::format("today is {}", format_date(context.today)))
        .help(help);
  } else if (days <= context.options.review_warning_days) {
    context.diagnostics
        .warning(
            "review_date_near", span,
            fmt::format("review of `{}` is due {}, on {}", entry.path, days_from_now(days), format_date(*review.date)))
        .help(help);
  }
}

void check_attributes(const TreeIndex& index, const CheckContext& context) {
  for (const auto& entry : index.nodes()) {
    const auto attributes = first_attributes(entry, context);
    // Deeper nodes inherit their program's owner and review, so only programs must set them.
    if (entry.depth == 0) check_program_attributes(entry, attributes, context);
    if (auto review = attributes.find(AttributeKind::review); review != attributes.end()) {
      check_review_date(entry, *review->second, context);
    }
  }
}

}  // namespace

void check_tree(const ast::Policy& policy, const CheckContext& context) {
  // A second `tree` is a `duplicate_declaration`; judging it too would only repeat.
  if (policy.trees.empty()) return;
  const ast::TreeDecl& tree = policy.trees.front();
  const TreeIndex index(tree);
  check_levels(tree, context);
  check_every_level(tree, index, context);
  check_attributes(index, context);
}

}  // namespace allot
