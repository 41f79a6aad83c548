// Exceptions: temporary grants of share. Each must say who owns it, why, and
// when it ends; its nodes must exist; and all of them applied at once (the
// worst case) must leave every share at 0% or more and every level at 100% or less.
#include <fmt/format.h>

#include <cmath>
#include <map>

#include "check_context.h"
#include "tree_format.h"
#include "tree_index.h"
#include "tree_levels.h"

namespace allot {
namespace {

using ast::ExceptionFieldKind;

// --- fields --------------------------------------------------------------------

const char* field_name(ExceptionFieldKind kind) {
  switch (kind) {
    case ExceptionFieldKind::owner:
      return "owner";
    case ExceptionFieldKind::reason:
      return "reason";
    case ExceptionFieldKind::starts:
      return "starts";
    case ExceptionFieldKind::expires:
      return "expires";
  }
  return "";
}

using Fields = std::map<ExceptionFieldKind, const ast::ExceptionField*>;

// The first field of each kind; repeats are reported.
Fields first_fields(const ast::ExceptionDecl& exception, const CheckContext& context) {
  Fields first;
  for (const auto& field : exception.fields) {
    auto [it, inserted] = first.emplace(field.kind, &field);
    if (inserted) continue;
    const char* name = field_name(field.kind);
    context.diagnostics
        .error(DiagnosticCode::duplicate_declaration, field.span,
               fmt::format("`{}` is set twice in exception `{}`", name, exception.name))
        .note("first set here", it->second->span)
        .help(fmt::format("keep one `{}`", name));
  }
  return first;
}

std::string horizon_date(const CheckContext& context) {
  return format_date(Date{context.today.days_since_epoch + context.options.max_exception_horizon_days});
}

// Reports a text field (owner, reason) that is absent, or empty (then the
// empty string is what to change, so it carries the span).
void check_text_field(const ast::ExceptionDecl& exception, const Fields& fields, ExceptionFieldKind kind,
                      DiagnosticCode code, const char* help, const CheckContext& context) {
  const char* name = field_name(kind);
  auto found = fields.find(kind);
  if (found == fields.end()) {
    context.diagnostics.error(code, exception.name_span, fmt::format("exception `{}` has no {}", exception.name, name))
        .help(help);
  } else if (found->second->text.empty()) {
    context.diagnostics
        .error(code, found->second->span, fmt::format("exception `{}` has an empty {}", exception.name, name))
        .help(help);
  }
}

void check_required_fields(const ast::ExceptionDecl& exception, const Fields& fields, const CheckContext& context) {
  check_text_field(exception, fields, ExceptionFieldKind::owner, DiagnosticCode::missing_owner,
                   "add `owner \"name@example.com\"`: the person who answers for the grant", context);
  check_text_field(exception, fields, ExceptionFieldKind::reason, DiagnosticCode::missing_reason,
                   "add `reason \"...\"`: why the grant is needed, for whoever reviews it", context);
  if (!fields.count(ExceptionFieldKind::expires)) {
    context.diagnostics
        .error(DiagnosticCode::exception_missing_expiry, exception.name_span,
               fmt::format("exception `{}` has no expiry date", exception.name))
        .help(
            fmt::format("every exception expires: add `expires YYYY-MM-DD` (at the latest {})", horizon_date(context)));
  }
}

std::optional<Date> field_date(const Fields& fields, ExceptionFieldKind kind) {
  auto found = fields.find(kind);
  return found == fields.end() ? std::nullopt : found->second->date;
}

Span date_span(const Fields& fields, ExceptionFieldKind kind) {
  return trailing_columns(fields.at(kind)->span, kDateWidth);
}

// False when the exception ends before it starts: it never applies.
bool check_starts_before_expiry(const ast::ExceptionDecl& exception, const Fields& fields,
                                const CheckContext& context) {
  const auto starts = field_date(fields, ExceptionFieldKind::starts);
  const auto expires = field_date(fields, ExceptionFieldKind::expires);
  if (!starts || !expires || *expires > *starts) return true;
  context.diagnostics
      .error(DiagnosticCode::exception_ends_before_start, date_span(fields, ExceptionFieldKind::expires),
             fmt::format("exception `{}` expires on {}, {} it starts", exception.name, format_date(*expires),
                         *expires == *starts ? "the day" : "before"))
      .note(fmt::format("it starts on {}", format_date(*starts)), date_span(fields, ExceptionFieldKind::starts))
      .help("set `expires` to a day after `starts`");
  return false;
}

// False when the exception has already expired: it no longer applies.
bool check_expiry(const ast::ExceptionDecl& exception, const Fields& fields, const CheckContext& context) {
  const auto expires = field_date(fields, ExceptionFieldKind::expires);
  if (!expires) return true;
  const int days = expires->days_since_epoch - context.today.days_since_epoch;
  const int horizon = context.options.max_exception_horizon_days;
  const Span span = date_span(fields, ExceptionFieldKind::expires);
  if (days < 0) {
    passed_date(context, DiagnosticCode::exception_expired, span,
                fmt::format("exception `{}` expired on {}", exception.name, format_date(*expires)))
        .note(fmt::format("today is {}", format_date(context.today)))
        .help("remove the exception, or renew it with a later `expires` date if it is still needed");
    return false;
  }
  if (days > horizon) {
    context.diagnostics
        .error(DiagnosticCode::exception_beyond_horizon, span,
               fmt::format("exception `{}` runs {} days from today, beyond the {}-day limit", exception.name, days,
                           horizon))
        .help(fmt::format("expire it by {} and renew it if it is still needed, or raise the limit with "
                          "`--max-exception-days`",
                          horizon_date(context)));
  } else if (days <= context.options.review_warning_days) {
    context.diagnostics
        .warning(
            DiagnosticCode::exception_expiring, span,
            fmt::format("exception `{}` expires {}, on {}", exception.name, days_from_now(days), format_date(*expires)))
        .note(
            "it stops applying then by itself, and from that day `allot check` fails on it "
            "(`exception_expired`) with no edit to the policy")
        .help("renew it with a later `expires` date if it is still needed, or remove it once it is not");
  }
  return true;
}

// --- grants ----------------------------------------------------------------------

// One resolved grant: `points` move to `to` from `from` (or from the level's `unallocated`).
struct ResolvedGrant {
  const ast::ExceptionDecl* exception = nullptr;
  const ast::Grant* grant = nullptr;
  int to = kTreeRoot;
  std::optional<int> from;
};

// Why a grant's percentage points cannot move `node`'s share, or "" when they can:
// its share must be a percentage of its parent, as the lowering keeps it.
std::string not_percent_reason(const TreeIndex& index, int node) {
  const IndexedNode& entry = index.nodes()[node];
  switch (entry.node->share_form) {
    case ast::ShareForm::raw:
      return fmt::format("`{}` has raw `shares {}`, not a percentage", entry.path,
                         format_number(entry.node->raw_shares));
    case ast::ShareForm::parent:
      return fmt::format("`{}` has `share parent`: it holds no share of its own", entry.path);
    case ast::ShareForm::percent:
      break;
  }
  if (entry.parent != kTreeRoot && uses_parent(index.nodes()[entry.parent])) {
    return fmt::format("`{}` competes one level up, through the `share parent` of `{}`", entry.path,
                       index.nodes()[entry.parent].path);
  }
  return "";
}

// Reports a grant end (`to` or `from`) whose node's share is not a percentage; false then.
bool moves_percentages(const ast::NodePath& path, int node, const TreeIndex& index, const CheckContext& context) {
  const std::string reason = not_percent_reason(index, node);
  if (reason.empty()) return true;
  context.diagnostics
      .error(DiagnosticCode::grant_needs_percent, path.span,
             fmt::format("a grant moves percentage points, and {}", reason))
      .note(fmt::format("`{}` is here", index.nodes()[node].path), index.nodes()[node].node->share_span)
      .help("grant to and from nodes whose share is a percentage of their parent, such as `40%`");
  return false;
}

std::optional<ResolvedGrant> resolve_grant(const ast::ExceptionDecl& exception, const ast::Grant& grant,
                                           const TreeIndex& index, const CheckContext& context) {
  const auto to = resolve_node(index, grant.to, context);
  std::optional<int> from;
  if (grant.from) from = resolve_node(index, *grant.from, context);
  if (!to || (grant.from && !from)) return std::nullopt;
  if (!moves_percentages(grant.to, *to, index, context) ||
      (from && !moves_percentages(*grant.from, *from, index, context))) {
    return std::nullopt;
  }
  if (from == to) {
    context.diagnostics
        .error(DiagnosticCode::invalid_grant, grant.span,
               fmt::format("grant takes from `{}` what it gives to `{}`", grant.from->joined(), grant.to.joined()))
        .help("take the points from another node, or leave out `from` to lend the level's `unallocated` share");
    return std::nullopt;
  }
  if (grant.percent == 0) {
    context.diagnostics.error(DiagnosticCode::invalid_grant, grant.amount_span, "grant of 0% changes nothing")
        .help("grant a share such as `+10%`, or remove the line");
    return std::nullopt;
  }
  return ResolvedGrant{&exception, &grant, *to, from};
}

void check_has_grant(const ast::ExceptionDecl& exception, const CheckContext& context) {
  if (!exception.grants.empty()) return;
  context.diagnostics
      .error(DiagnosticCode::missing_declaration, exception.name_span,
             fmt::format("exception `{}` grants nothing", exception.name))
      .help("add a grant such as `grant exploration +10% from platform`");
}

// --- resulting shares (every grant applied at once) ------------------------------

// A node's share after every grant, and the grants that moved it.
struct GrantedShare {
  double percent = 0;
  std::vector<std::pair<const ResolvedGrant*, double>> changes;
};

std::vector<GrantedShare> apply_grants(const TreeIndex& index, const std::vector<ResolvedGrant>& grants) {
  std::vector<GrantedShare> shares;
  for (const auto& node : index.nodes()) shares.push_back({node.node->percent, {}});
  for (const auto& grant : grants) {
    const double points = grant.grant->percent;
    shares[grant.to].percent += points;
    shares[grant.to].changes.push_back({&grant, points});
    if (!grant.from) continue;
    shares[*grant.from].percent -= points;
    shares[*grant.from].changes.push_back({&grant, -points});
  }
  return shares;
}

// The grant that last lowered (or raised) a share: where the diagnostic points.
const ResolvedGrant* last_change(const GrantedShare& share, bool lowering) {
  const ResolvedGrant* last = nullptr;
  for (const auto& [grant, points] : share.changes) {
    if ((points < 0) == lowering) last = grant;
  }
  return last;
}

std::string negative_terms(const IndexedNode& node, const GrantedShare& share) {
  std::string text = fmt::format("`{}` {}", node.path, format_percent(node.node->percent));
  for (const auto& [grant, points] : share.changes) {
    text +=
        fmt::format(" {} {} (`{}`)", points < 0 ? "-" : "+", format_percent(std::fabs(points)), grant->exception->name);
  }
  return text + " = " + format_percent(share.percent);
}

void check_not_negative(const TreeIndex& index, const std::vector<GrantedShare>& shares, const CheckContext& context) {
  for (std::size_t i = 0; i < shares.size(); ++i) {
    const IndexedNode& node = index.nodes()[i];
    // `0%` is a share (no entitlement), so taking from it is negative too.
    if (shares[i].percent >= -kShareTolerance) continue;
    const ResolvedGrant* culprit = last_change(shares[i], true);
    context.diagnostics
        .error(DiagnosticCode::exception_share_negative, culprit->grant->span,
               fmt::format("exceptions leave `{}` with {}", node.path, format_percent(shares[i].percent)))
        .note(negative_terms(node, shares[i]))
        .help(fmt::format("take at most {} from `{}` in total, or take the rest from another node",
                          format_percent(node.node->percent), node.path));
  }
}

// A sibling of `node` to suggest taking points from, or empty.
std::string sibling_path(const TreeIndex& index, int node) {
  for (int sibling : index.children_of(index.nodes()[node].parent)) {
    if (sibling != node) return index.nodes()[sibling].path;
  }
  return "";
}

// The help for a level pushed over 100% by the grant that raised `raised`.
std::string over_100_help(const ResolvedGrant& culprit, int raised, const TreeIndex& index) {
  const std::string sibling = sibling_path(index, raised);
  if (culprit.to != raised || culprit.grant->from) {
    return sibling.empty() ? "lower the grant"
                           : fmt::format("lower the grant, or take the points from a sibling such as `{}`", sibling);
  }
  const int parent = index.nodes()[raised].parent;
  const std::string level =
      parent == kTreeRoot ? "among the programs" : fmt::format("under `{}`", index.nodes()[parent].path);
  const std::string take =
      sibling.empty() ? "lower the grant" : fmt::format("add `from {}` to take the points from a sibling", sibling);
  return fmt::format("{}, or set aside `unallocated` {} for grants to draw on", take, level);
}

void check_level_total(const TreeIndex& index, int parent, const std::vector<GrantedShare>& shares,
                       const CheckContext& context) {
  double before = 0, after = 0;
  std::vector<ShareTerm> terms;
  const ResolvedGrant* culprit = nullptr;
  int raised = kTreeRoot;
  for (int child : index.children_of(parent)) {
    before += index.nodes()[child].node->percent;
    after += shares[child].percent;
    terms.push_back({index.nodes()[child].node->name, shares[child].percent});
    if (const ResolvedGrant* grant = last_change(shares[child], false)) {
      culprit = grant;
      raised = child;
    }
  }
  // A level already over 100% is a `share_sum_mismatch` of its own.
  if (after <= 100 + kShareTolerance || before > 100 + kShareTolerance || !culprit) return;
  const std::string level =
      parent == kTreeRoot ? "the programs' shares" : fmt::format("the shares under `{}`", index.nodes()[parent].path);
  context.diagnostics
      .error(DiagnosticCode::exception_level_over_100, culprit->grant->span,
             fmt::format("exceptions raise {} to {}", level, format_percent(after)))
      .note(format_sum(terms, after))
      .help(over_100_help(*culprit, raised, index));
}

void check_resulting_shares(const TreeIndex& index, const std::vector<ResolvedGrant>& grants,
                            const CheckContext& context) {
  if (grants.empty()) return;
  const std::vector<GrantedShare> shares = apply_grants(index, grants);
  check_not_negative(index, shares, context);
  check_level_total(index, kTreeRoot, shares, context);
  for (int node = 0; node < static_cast<int>(index.nodes().size()); ++node) {
    if (!index.nodes()[node].node->children.empty()) check_level_total(index, node, shares, context);
  }
}

}  // namespace

void check_exceptions(const ast::Policy& policy, const CheckContext& context) {
  std::optional<TreeIndex> index;
  if (!policy.trees.empty()) index.emplace(policy.trees.front());
  std::vector<ResolvedGrant> active_grants;
  for (const auto& exception : policy.exceptions) {
    const Fields fields = first_fields(exception, context);
    check_required_fields(exception, fields, context);
    check_has_grant(exception, context);
    const bool ever_applies = check_starts_before_expiry(exception, fields, context);
    const bool still_applies = ever_applies && check_expiry(exception, fields, context);
    // Without a tree, `missing_declaration` already says what is wrong.
    if (!index) continue;
    for (const auto& grant : exception.grants) {
      auto resolved = resolve_grant(exception, grant, *index, context);
      if (resolved && still_applies) active_grants.push_back(*resolved);
    }
  }
  if (index) check_resulting_shares(*index, active_grants, context);
}

}  // namespace allot
