#include "lower_tables.h"

#include <limits>

#include "allot/gates.h"
#include "check/tree_index.h"
#include "check/tree_levels.h"

namespace allot::ir {
namespace {

constexpr double kSecondsPerDay = 86400.0;

double fraction(double percent) { return percent / 100.0; }

// A count from the source as an int; the checker only promises a positive integer.
int saturated_int(double value) {
  constexpr double kMax = std::numeric_limits<int>::max();
  return value >= kMax ? std::numeric_limits<int>::max() : static_cast<int>(value);
}

double unallocated_fraction(const std::vector<ast::Unallocated>& entries) {
  double total = 0;
  for (const auto& entry : entries) total += entry.percent;
  return fraction(total);
}

// Owner, review and hypothesis: set on the node, or inherited from its parent.
void apply_attributes(const ast::TreeNode& node, AccountInfo& account) {
  for (const auto& attribute : node.attributes) {
    switch (attribute.kind) {
      case ast::AttributeKind::owner:
        account.owner = attribute.text;
        break;
      case ast::AttributeKind::review:
        account.review = attribute.date;
        break;
      case ast::AttributeKind::hypothesis:
        account.hypothesis = attribute.text;
        break;
    }
  }
}

AccountInfo root_account(const ast::TreeDecl& tree) {
  AccountInfo root;
  root.leaf = tree.programs.empty();
  root.unallocated = unallocated_fraction(tree.unallocated);
  return root;
}

// The share of each node (TreeIndex order) as a fraction of its direct parent,
// keeping the runtime's product model: of_cluster(node) = share(node) * of_cluster(parent).
//  - a node in a percentage set: percent / 100 (the rest of 100% is unallocated);
//  - a node in a raw set, or in a percentage set that `share parent` children
//    join: raw / levelsum (percentage points count as raw shares), as Slurm's
//    NormShares, so a level never holds more than its parent;
//  - through `share parent`: every member of a level (level_members) gets
//    f = raw / levelsum, the level's raw sum; a `share parent` node P holds
//    F(P) = the sum of f over its members, relative to the nearest ancestor that owns the level,
//    and each node below P holds its fraction of F(P).
// Bottom-up over the tree order, without recursion.
// Whether some child of `owner` is `share parent`, so its children join owner's level.
bool joined_through_parent(const TreeIndex& index, int owner) {
  for (int child : index.children_of(owner)) {
    if (uses_parent(index.nodes()[static_cast<std::size_t>(child)])) return true;
  }
  return false;
}

std::vector<double> lowered_shares(const TreeIndex& index) {
  const auto& nodes = index.nodes();
  const std::size_t count = nodes.size();
  std::vector<double> joined(count, 0);  // f for a level member, F for a `share parent` node
  for (int owner = kTreeRoot; owner < static_cast<int>(count); ++owner) {
    if (!owns_level(index, owner)) continue;
    const std::vector<int> members = level_members(index, owner);
    double sum = 0;
    for (int member : members) sum += raw_share(*nodes[member].node);
    for (int member : members) joined[member] = sum > 0 ? raw_share(*nodes[member].node) / sum : 0;
  }
  for (std::size_t i = count; i-- > 0;) {
    if (!uses_parent(nodes[i])) continue;
    double total = 0;
    for (int child : nodes[i].children) total += joined[child];
    joined[i] = total;
  }
  std::vector<double> shares(count, 0);
  for (std::size_t i = 0; i < count; ++i) {
    const int parent = nodes[i].parent;
    if (parent != kTreeRoot && uses_parent(nodes[parent])) {
      shares[i] = joined[parent] > 0 ? joined[i] / joined[parent] : 0;
    } else if (uses_parent(nodes[i])) {
      shares[i] = joined[i];
    } else if (nodes[i].node->share_form == ast::ShareForm::percent && !joined_through_parent(index, parent)) {
      shares[i] = fraction(nodes[i].node->percent);  // what is left of 100% stays unallocated
    } else {
      // raw / levelsum, the level's raw sum with the members that join it
      // through `share parent` (Slurm's level_shares), as computed above.
      shares[i] = joined[i];
    }
  }
  return shares;
}

// The tree depth-first: index 0 is the root, then TreeIndex's order shifted by one.
std::vector<AccountInfo> lower_accounts(const ast::TreeDecl& tree) {
  std::vector<AccountInfo> accounts{root_account(tree)};
  const TreeIndex index(tree);
  const std::vector<double> shares = lowered_shares(index);
  for (std::size_t i = 0; i < index.nodes().size(); ++i) {
    const IndexedNode& indexed = index.nodes()[i];
    const int parent = indexed.parent == kTreeRoot ? 0 : indexed.parent + 1;
    AccountInfo account = accounts[parent];  // inherits owner, review, hypothesis
    account.path = indexed.path;
    account.name = indexed.node->name;
    account.parent = parent;
    account.depth = indexed.depth + 1;
    account.share = shares[i];
    account.unallocated = unallocated_fraction(indexed.node->unallocated);
    account.use_parent = uses_parent(indexed);
    account.raw_shares = raw_share(*indexed.node);
    account.percent_shares = set_form(index, indexed.parent) != ast::ShareForm::raw;
    account.leaf = indexed.node->children.empty();
    apply_attributes(*indexed.node, account);
    accounts.push_back(std::move(account));
  }
  return accounts;
}

ClassInfo lower_class(const ast::ClassDecl& decl) {
  ClassInfo info;
  info.name = decl.name;
  using Kind = ast::ClassPropertyKind;
  bool explicit_preemptible = false;
  for (const auto& property : decl.properties) {
    switch (property.kind) {
      case Kind::max_gpus:
        info.max_gpus = saturated_int(property.value);
        break;
      case Kind::max_nodes:
        info.max_nodes = saturated_int(property.value);
        break;
      case Kind::max_runtime:
        info.max_runtime = property.value;
        break;
      case Kind::protect:
        info.protect = property.value;
        info.protect_up_to = property.up_to;
        break;
      case Kind::checkpoint:
        info.checkpoint_every = property.value;
        break;
      case Kind::grace:
        info.grace = property.value;
        break;
      case Kind::resumable:
        info.resumable = property.flag;
        break;
      case Kind::preemptible:
        info.preemptible = property.flag;
        explicit_preemptible = true;
        break;
      case Kind::deadline:
        info.deadline_required = property.flag;
        break;
      case Kind::slo:
        info.slo = fraction(property.value);
        break;
      case Kind::fast_lane:
        info.fast_lane_gpus = saturated_int(property.value);
        break;
      case Kind::progress:
        info.progress_every = property.value;
        info.progress_after = property.after;
        // The checker accepts only these words, and no `preempt` for a class that is not preemptible.
        info.on_stall = property.action == "keep"   ? StallAction::keep
                        : property.action == "stop" ? StallAction::stop
                                                    : StallAction::preempt;
        break;
    }
  }
  // As the contract check decides (check/contract_check.cpp is_preemptible): a
  // deadline class is not preemptible unless it says so.
  if (info.deadline_required && !explicit_preemptible) info.preemptible = false;
  return info;
}

// The account index of a tree reference, -1 when it does not resolve.
int account_of(const TreeIndex& index, const ast::NodePath& path) {
  const NodeLookup lookup = index.lookup(path);
  return lookup.status == NodeLookup::Status::found ? lookup.node + 1 : -1;
}

double seconds_of(const std::optional<Date>& date) { return date ? date->days_since_epoch * kSecondsPerDay : 0.0; }

// One row per grant: an exception with two grants switches both on and off together.
void lower_exception(const ast::ExceptionDecl& decl, const TreeIndex& index, std::vector<ExceptionInfo>& out) {
  ExceptionInfo common;
  common.name = decl.name;
  for (const auto& field : decl.fields) {
    switch (field.kind) {
      case ast::ExceptionFieldKind::owner:
        common.owner = field.text;
        break;
      case ast::ExceptionFieldKind::reason:
        common.reason = field.text;
        break;
      case ast::ExceptionFieldKind::starts:
        common.starts = seconds_of(field.date);
        break;
      case ast::ExceptionFieldKind::expires:
        common.expires = seconds_of(field.date);
        break;
    }
  }
  for (const auto& grant : decl.grants) {
    ExceptionInfo row = common;
    row.to = account_of(index, grant.to);
    row.from = grant.from ? account_of(index, *grant.from) : -1;
    row.delta = fraction(grant.percent);
    if (row.to >= 0) out.push_back(std::move(row));
  }
}

double literal_in_abi_units(const ast::Expr& literal) {
  switch (literal.kind) {
    case ast::ExprKind::percent:
      return fraction(literal.number);
    case ast::ExprKind::date:
      return literal.number * kSecondsPerDay;
    default:
      return literal.number;
  }
}

GateInfo lower_gate(const ast::Gate& gate) {
  GateInfo info;
  // The checker refused any metric or operator the tables do not hold.
  info.metric = find_gate_metric(gate.metric)->metric;
  info.subject = gate.subject.value_or("");
  info.op = *find_gate_op(gate.op);
  if (gate.threshold) info.threshold = literal_in_abi_units(*gate.threshold);
  info.window = gate.window_seconds;
  return info;
}

UnitInfo lower_unit(const ast::Policy& policy) {
  UnitInfo unit;
  if (policy.units.empty()) return unit;
  unit.dominant = policy.units.front().kind == "dominant";
  for (const auto& weight : policy.units.front().weights) unit.weights.emplace_back(weight.name, weight.value);
  return unit;
}

}  // namespace

std::vector<const ast::ClassDecl*> visible_classes(const Program& program) {
  std::vector<const ast::ClassDecl*> classes;
  for (std::size_t i = 1; i <= program.modules.size(); ++i) {
    const ast::Module& module = program.modules[i % program.modules.size()];  // the root file last
    for (const auto& decl : module.classes) classes.push_back(&decl);
    if (i != program.modules.size()) continue;
    for (const auto& policy : module.policies) {
      for (const auto& decl : policy.classes) classes.push_back(&decl);
    }
  }
  return classes;
}

PolicyTables lower_tables(const Program& program, const ast::Policy& policy) {
  PolicyTables tables;
  tables.name = policy.name;
  tables.unit = lower_unit(policy);
  if (!policy.windows.empty()) {
    tables.window = policy.windows.front().seconds;
    tables.half_life = policy.windows.front().half_life_seconds;
  }
  if (!policy.fairshares.empty()) tables.fairshare = policy.fairshares.front().algorithm;
  if (!policy.trees.empty()) tables.accounts = lower_accounts(policy.trees.front());
  for (const ast::ClassDecl* decl : visible_classes(program)) tables.classes.push_back(lower_class(*decl));
  if (!policy.trees.empty()) {
    const TreeIndex index(policy.trees.front());
    for (const auto& exception : policy.exceptions) lower_exception(exception, index, tables.exceptions);
  }
  for (const auto& gates : policy.gates) {
    for (const auto& gate : gates.gates) tables.gates.push_back(lower_gate(gate));
  }
  return tables;
}

}  // namespace allot::ir
