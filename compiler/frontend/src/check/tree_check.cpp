// The budget tree: levels at any depth, sibling names, one share form per
// sibling set, percentages that sum to 100%, raw shares Slurm can hold, and the
// owner, review date and hypothesis every program answers for.
#include <fmt/format.h>

#include <cmath>
#include <map>

#include "check_context.h"
#include "tree_format.h"
#include "tree_index.h"
#include "tree_levels.h"

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
      .error(DiagnosticCode::invalid_tree_level, keyword_span(program),
             fmt::format("a {} cannot stand at the top of the tree", keyword_text(*program.level_keyword)))
      .help(fmt::format("top-level nodes are programs: write `{} {}`, or move it inside a program", program.name,
                        format_share(program)));
}

void report_missing_keyword(const ast::TreeNode& child, const CheckContext& context) {
  // Only projects have members, so a node with children can only be one.
  const std::string allowed = child.children.empty() ? fmt::format("`project {0}` or `user {0}`", child.name)
                                                     : fmt::format("`project {}`", child.name);
  context.diagnostics
      .error(DiagnosticCode::invalid_tree_level, child.name_span, fmt::format("`{}` needs a level keyword", child.name))
      .help(fmt::format("write {}", allowed));
}

void check_user_is_leaf(const ast::TreeNode& user, const CheckContext& context) {
  if (!user.children.empty()) {
    context.diagnostics
        .error(DiagnosticCode::invalid_tree_level, user.children.front().name_span,
               fmt::format("user `{}` cannot have members", user.name))
        .note(fmt::format("`{}` is a user", user.name), keyword_span(user))
        .help(fmt::format("only programs and projects divide their share: make `{}` a `project`, or move `{}` out",
                          user.name, user.children.front().name));
  } else if (!user.unallocated.empty()) {
    context.diagnostics
        .error(DiagnosticCode::invalid_tree_level, user.unallocated.front().span,
               fmt::format("user `{}` has no members to leave a share unallocated", user.name))
        .help("remove `unallocated`; only programs and projects divide their share");
  }
}

bool is_user(const IndexedNode& entry) {
  return entry.parent != kTreeRoot && entry.node->level_keyword == NodeLevel::user;
}

// Programs at the top, `project` (any depth, mixed with users) or `user` below.
// A node that stands where it may not has its own children left unjudged, so
// they are not measured against a guess. In tree order, without recursion.
void check_levels(const TreeIndex& index, const CheckContext& context) {
  std::vector<char> judged(index.nodes().size(), 0);
  for (std::size_t i = 0; i < index.nodes().size(); ++i) {
    const IndexedNode& entry = index.nodes()[i];
    if (entry.parent == kTreeRoot) {
      check_program_keyword(*entry.node, context);
    } else if (!judged[entry.parent] || is_user(index.nodes()[entry.parent])) {
      continue;  // a user's members are one diagnostic, on the user
    } else if (!entry.node->level_keyword) {
      report_missing_keyword(*entry.node, context);
      continue;
    }
    judged[i] = 1;
    if (is_user(entry)) check_user_is_leaf(*entry.node, context);
  }
}

void check_parent_shares(const TreeIndex& index, const CheckContext& context) {
  for (int program : index.children_of(kTreeRoot)) {
    const ast::TreeNode& node = *index.nodes()[program].node;
    if (node.share_form != ast::ShareForm::parent || !node.children.empty()) continue;
    context.diagnostics
        .error(DiagnosticCode::invalid_share_parent, node.share_span,
               fmt::format("program `{}` has `share parent` but no children", node.name))
        .note("`share parent` hands a node's place among its siblings to its children")
        .help(fmt::format("give `{}` a share of its own, such as `{}` or `shares 40`, or add its projects and users",
                          node.name, "40%"));
  }
}

// --- one sibling set: names, forms, ranges and sums ---------------------------

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
        .error(DiagnosticCode::duplicate_name, child.name_span,
               fmt::format("`{}` appears twice {}", child.name, level.where))
        .note("first declared here", first->second->name_span)
        .help("rename one of them, or merge them into one node");
  }
}

const char* form_plural(ast::ShareForm form) { return form == ast::ShareForm::raw ? "raw `shares N`" : "percentages"; }

const char* form_singular(ast::ShareForm form) {
  return form == ast::ShareForm::raw ? "raw `shares N`" : "a percentage";
}

constexpr const char* kOneFormHelp =
    "write every share of a sibling set the same way: all as percentages of the parent (`40%`), or all as raw "
    "`shares N` (Slurm's Fairshare=N)";

// The first child that is not `share parent`: the one that sets the level's form.
const ast::TreeNode* form_setter(const Level& level) {
  for (const auto& child : level.children) {
    if (child.share_form != ast::ShareForm::parent) return &child;
  }
  return nullptr;
}

// Percentages and raw shares in one set, or an `unallocated` among raw shares.
// False when reported: ranges and sums of a mixed set mean nothing.
bool check_one_form(const Level& level, const CheckContext& context) {
  const ast::TreeNode* first = form_setter(level);
  if (first == nullptr) return true;
  for (const auto& child : level.children) {
    if (child.share_form == ast::ShareForm::parent || child.share_form == first->share_form) continue;
    context.diagnostics
        .error(DiagnosticCode::mixed_share_forms, child.share_span,
               fmt::format("shares {} mix percentages and raw `shares N`", level.where))
        .note(fmt::format("`{}` uses {}", first->name, form_singular(first->share_form)), first->share_span)
        .help(kOneFormHelp);
    return false;
  }
  if (first->share_form == ast::ShareForm::raw && !level.unallocated.empty()) {
    context.diagnostics
        .error(DiagnosticCode::mixed_share_forms, level.unallocated.front().span,
               fmt::format("`unallocated` is a percentage, but the shares {} are raw `shares N`", level.where))
        .note(fmt::format("`{}` uses raw shares", first->name), first->share_span)
        .help(
            "remove it: raw shares are normalised among the siblings, so no part is left over; write the shares "
            "as percentages to keep some unallocated");
    return false;
  }
  return true;
}

constexpr double kMaxRawShares = 1'000'000;

void check_raw_range(const ast::TreeNode& child, bool& in_range, const CheckContext& context) {
  const char* help = "raw shares are whole numbers from 0 to 1000000, as Slurm's Fairshare";
  if (child.raw_shares != std::floor(child.raw_shares)) {
    context.diagnostics
        .error(DiagnosticCode::share_out_of_range, child.share_span,
               fmt::format("raw share of `{}` is {}, not a whole number", child.name, format_number(child.raw_shares)))
        .help(help);
    in_range = false;
  } else if (child.raw_shares > kMaxRawShares) {
    context.diagnostics
        .error(DiagnosticCode::share_out_of_range, child.share_span,
               fmt::format("raw share of `{}` is {}, above 1000000", child.name, format_number(child.raw_shares)))
        .help(help);
    in_range = false;
  }
}

// Reports shares outside [0%, 100%] or raw shares outside 0..1000000; false
// when any is, so the sum is not judged too.
bool shares_in_range(const Level& level, const CheckContext& context) {
  bool in_range = true;
  for (const auto& child : level.children) {
    if (child.share_form == ast::ShareForm::raw) {
      check_raw_range(child, in_range, context);
    } else if (child.share_form == ast::ShareForm::percent && child.percent > 100 + kShareTolerance) {
      context.diagnostics
          .error(DiagnosticCode::share_out_of_range, child.share_span,
                 fmt::format("share of `{}` is {}, above 100%", child.name, format_percent(child.percent)))
          .help("a share is a percentage of its parent: write at most `100%`");
      in_range = false;
    }
  }
  if (!level.unallocated.empty() && level.unallocated.front().percent > 100 + kShareTolerance) {
    context.diagnostics
        .error(DiagnosticCode::share_out_of_range, level.unallocated.front().span,
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
        .error(DiagnosticCode::duplicate_declaration, level.unallocated[i].span,
               fmt::format("`unallocated` is set twice {}", level.where))
        .note("first set here", level.unallocated.front().span)
        .help("merge them into one `unallocated`");
  }
  return level.unallocated.size() <= 1;
}

std::string sum_help(const Level& level, double total) {
  if (std::fabs(total - 100) < 0.01) {
    return "percentages that do not divide 100% exactly (thirds) sum just off it; give each sibling raw shares "
           "instead, such as `shares 1` for thirds";
  }
  if (total > 100) return "lower a share so they sum to 100%";
  const double rest = 100 - total;
  if (level.unallocated.empty()) {
    return fmt::format("add `unallocated {}` to lend the rest as unassigned capacity, or adjust a share",
                       format_percent(rest));
  }
  return fmt::format("raise `unallocated` to {} to lend the rest as unassigned capacity, or adjust a share",
                     format_percent(level.unallocated.front().percent + rest));
}

// Percentages plus `unallocated` make 100%; `share parent` nodes are not counted.
// False when reported.
bool check_share_sum(const Level& level, const CheckContext& context) {
  std::vector<ShareTerm> terms;
  double total = 0;
  for (const auto& child : level.children) {
    if (child.share_form != ast::ShareForm::percent) continue;
    terms.push_back({child.name, child.percent});
    total += child.percent;
  }
  // A repeated `unallocated` is its own diagnostic; the first one counts.
  if (!level.unallocated.empty()) {
    terms.push_back({"unallocated", level.unallocated.front().percent});
    total += level.unallocated.front().percent;
  }
  if (std::fabs(total - 100) <= kShareTolerance) return true;
  if (terms.empty() && !level.children.empty()) return true;  // only `share parent` nodes: nothing to sum
  if (terms.empty()) {
    context.diagnostics.error(DiagnosticCode::share_sum_mismatch, level.span, "the tree has no programs")
        .help("add programs whose shares sum to 100%, such as `research 100% { ... }`");
    return false;
  }
  const std::string message =
      level.top ? fmt::format("shares of the programs sum to {}, not 100%", format_sum_percent(total))
                : fmt::format("shares {} sum to {}, not 100%", level.where, format_sum_percent(total));
  context.diagnostics.error(DiagnosticCode::share_sum_mismatch, level.span, message)
      .note(format_sum(terms, total))
      .help(sum_help(level, total));
  return false;
}

// False when anything about the set was reported.
bool check_level(const Level& level, const CheckContext& context) {
  check_sibling_names(level, context);
  // With `unallocated` twice the intended sum is unclear; the duplicate is the one diagnostic.
  const bool single_unallocated = check_single_unallocated(level, context);
  if (!check_one_form(level, context)) return false;
  const bool in_range = shares_in_range(level, context);
  if (!in_range || !single_unallocated) return false;
  const ast::TreeNode* first = form_setter(level);
  if (first != nullptr && first->share_form == ast::ShareForm::raw) return true;  // raw sets have no fixed sum
  return check_share_sum(level, context);
}

Span tree_keyword_span(const ast::TreeDecl& tree) {
  Span span = tree.span;
  span.end = {span.begin.line, span.begin.column + 4};
  return span;
}

// Whether the children of `parent` (kTreeRoot: the programs) are a set to judge.
bool has_set(const TreeIndex& index, int parent) {
  if (parent == kTreeRoot) return true;
  const IndexedNode& entry = index.nodes()[parent];
  // A user that divides its share is an `invalid_tree_level`; its sum is moot.
  return !is_user(entry) && (!entry.node->children.empty() || !entry.node->unallocated.empty());
}

// Every sibling set; the result says, per parent (index + 1, 0 for the root),
// whether its set passed.
std::vector<char> check_every_set(const ast::TreeDecl& tree, const TreeIndex& index, const CheckContext& context) {
  std::vector<char> passed(index.nodes().size() + 1, 1);
  passed[0] =
      check_level({"among the programs", tree_keyword_span(tree), true, tree.programs, tree.unallocated}, context);
  for (std::size_t i = 0; i < index.nodes().size(); ++i) {
    const IndexedNode& entry = index.nodes()[i];
    if (is_user(entry) && !entry.node->children.empty()) passed[i + 1] = 0;  // an `invalid_tree_level`
    if (!has_set(index, static_cast<int>(i))) continue;
    passed[i + 1] = check_level({fmt::format("under `{}`", entry.path), entry.node->name_span, false,
                                 entry.node->children, entry.node->unallocated},
                                context);
  }
  return passed;
}

// --- one level as Slurm compares it (sets joined through `share parent`) -----

// Slurm sums a level's raw shares in a uint32 (`_get_children_level_shares`).
constexpr double kMaxLevelShares = 4'294'967'295.0;

struct LevelView {
  int owner = kTreeRoot;
  std::string where;  // "among the programs", "under `org`"
  Span span;
  std::vector<int> members;
};

// The first `share parent` node between `member` and the level's owner.
int parent_through(const TreeIndex& index, int member, int owner) {
  int through = kTreeRoot;
  for (int node = index.nodes()[member].parent; node != owner; node = index.nodes()[node].parent) through = node;
  return through;
}

// The children of a `share parent` node join their fair-share parent's level,
// so they must use its form. False when reported.
bool check_joined_form(const LevelView& level, const TreeIndex& index, const CheckContext& context) {
  if (level.members.empty()) return true;
  const ast::TreeNode& first = *index.nodes()[level.members.front()].node;
  for (int member : level.members) {
    const ast::TreeNode& node = *index.nodes()[member].node;
    if (node.share_form == first.share_form) continue;
    const int through = parent_through(index, member, level.owner);
    const IndexedNode& passing = index.nodes()[through];
    context.diagnostics
        .error(DiagnosticCode::mixed_share_forms, node.share_span,
               fmt::format("`{}` uses {}, but it competes {}, where shares are {}", index.nodes()[member].path,
                           form_singular(node.share_form), level.where, form_plural(first.share_form)))
        .note(fmt::format("`{}` has `share parent`: its children compete one level up", passing.path),
              passing.node->share_span)
        .note(fmt::format("`{}` uses {}", index.nodes()[level.members.front()].path, form_singular(first.share_form)),
              first.share_span)
        .help(fmt::format("write the shares of `{}`'s children as {}, or give `{}` a share of its own", passing.path,
                          form_plural(first.share_form), passing.path));
    return false;
  }
  return true;
}

std::string joined_note(const LevelView& level, const TreeIndex& index) {
  for (int member : level.members) {
    if (index.nodes()[member].parent != level.owner) {
      return "the level counts the children of its `share parent` nodes too";
    }
  }
  return "";
}

void check_level_sum_fits(const LevelView& level, const TreeIndex& index, const CheckContext& context) {
  double total = 0;
  for (int member : level.members) total += raw_share(*index.nodes()[member].node);
  if (total <= kMaxLevelShares) return;
  auto diagnostic =
      context.diagnostics
          .error(DiagnosticCode::share_sum_overflow, level.span,
                 fmt::format("raw shares {} sum to {}, more than Slurm can hold", level.where, format_number(total)))
          .note("Slurm sums a level's shares in 32 bits: at most 4294967295");
  if (std::string note = joined_note(level, index); !note.empty()) diagnostic.note(note);
  diagnostic.help(
      "scale the shares down together: `shares 1000` and `shares 3000` divide a level as `shares 1` "
      "and `shares 3` do");
}

void warn_zero_level(const LevelView& level, const TreeIndex& index, const CheckContext& context) {
  if (level.members.empty()) return;
  for (int member : level.members) {
    if (raw_share(*index.nodes()[member].node) != 0) return;
  }
  const bool raw = index.nodes()[level.members.front()].node->share_form == ast::ShareForm::raw;
  auto diagnostic =
      context.diagnostics
          .warning(DiagnosticCode::zero_share_level, level.span,
                   fmt::format("every share {} is {}", level.where, raw ? "`shares 0`" : "0%"))
          .note(
              "a zero share is no entitlement: their jobs run only on capacity others lend, ranked last by Fair "
              "Tree");
  if (std::string note = joined_note(level, index); !note.empty()) diagnostic.note(note);
  diagnostic.help("give at least one of them a share above zero");
}

// Whether every set that feeds the level passed its own checks.
bool sets_passed(const LevelView& level, const TreeIndex& index, const std::vector<char>& passed) {
  if (!passed[level.owner + 1]) return false;
  for (int member : level.members) {
    if (!passed[index.nodes()[member].parent + 1]) return false;
  }
  return true;
}

void check_every_joined_level(const ast::TreeDecl& tree, const TreeIndex& index, const std::vector<char>& passed,
                              const CheckContext& context) {
  for (int owner = kTreeRoot; owner < static_cast<int>(index.nodes().size()); ++owner) {
    if (!owns_level(index, owner) || (owner != kTreeRoot && !has_set(index, owner))) continue;
    LevelView level{owner, "among the programs", tree_keyword_span(tree), level_members(index, owner)};
    if (owner != kTreeRoot) {
      level.where = fmt::format("under `{}`", index.nodes()[owner].path);
      level.span = index.nodes()[owner].node->name_span;
    }
    if (!sets_passed(level, index, passed) || !check_joined_form(level, index, context)) continue;
    check_level_sum_fits(level, index, context);
    warn_zero_level(level, index, context);
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
        .error(DiagnosticCode::duplicate_declaration, attribute.span,
               fmt::format("`{}` is set twice on `{}`", name, entry.path))
        .note("first set here", it->second->span)
        .help(fmt::format("keep one `{}`", name));
  }
  return first;
}

struct RequiredAttribute {
  AttributeKind kind;
  DiagnosticCode code;
  const char* missing;  // how the message names it
  const char* help;
};

const RequiredAttribute kRequiredAttributes[] = {
    {AttributeKind::owner, DiagnosticCode::missing_owner, "owner",
     "add `owner \"name@example.com\"`: the person who answers for this share"},
    {AttributeKind::review, DiagnosticCode::missing_review, "review date",
     "add `review YYYY-MM-DD`: when its share and hypothesis are next reviewed"},
    {AttributeKind::hypothesis, DiagnosticCode::missing_hypothesis, "hypothesis",
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

void check_review_date(const IndexedNode& entry, const ast::NodeAttribute& review, const CheckContext& context) {
  if (!review.date) return;  // an impossible date is already an `invalid_date`
  const int days = review.date->days_since_epoch - context.today.days_since_epoch;
  const Span span = trailing_columns(review.span, kDateWidth);
  const char* help = "review the node's share and hypothesis with its owner, then move the date";
  if (days < 0) {
    passed_date(context, DiagnosticCode::review_date_passed, span,
                fmt::format("review of `{}` was due on {}", entry.path, format_date(*review.date)))
        .note(fmt::format("today is {}", format_date(context.today)))
        .help(help);
  } else if (days <= context.options.review_warning_days) {
    context.diagnostics
        .warning(
            DiagnosticCode::review_date_near, span,
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
  check_levels(index, context);
  check_parent_shares(index, context);
  const std::vector<char> passed = check_every_set(tree, index, context);
  check_every_joined_level(tree, index, passed, context);
  check_attributes(index, context);
}

}  // namespace allot
