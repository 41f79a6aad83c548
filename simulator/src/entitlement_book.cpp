#include "entitlement_book.h"

#include <algorithm>
#include <cmath>
#include <span>
#include <stdexcept>

#include "allot/account_columns.h"

namespace allot::simulator {
namespace {

runtime::AccountTree build_tree(const PolicyTables& tables) {
  std::vector<runtime::AccountSpec> specs;
  for (std::size_t i = 1; i < tables.accounts.size(); ++i) {
    specs.push_back({tables.accounts[i].path, std::max(tables.accounts[i].share, 0.0)});
  }
  auto tree = runtime::AccountTree::build(specs);
  if (!tree) throw std::invalid_argument(tree.error());
  return std::move(*tree);
}

std::vector<Seconds> exception_boundaries(const PolicyTables& tables) {
  std::vector<Seconds> times;
  for (const ExceptionInfo& exception : tables.exceptions) {
    times.push_back(static_cast<Seconds>(exception.starts));
    times.push_back(static_cast<Seconds>(exception.expires));
  }
  std::sort(times.begin(), times.end());
  times.erase(std::unique(times.begin(), times.end()), times.end());
  return times;
}

constexpr double kHour = 3600.0;

}  // namespace

EntitlementBook::EntitlementBook(const PolicyTables& tables, Seconds window)
    : tables_(tables),
      tree_(build_tree(tables)),
      window_hours_(std::max<Seconds>(1, window / 3600)),
      boundaries_(exception_boundaries(tables)) {
  policy_index_.assign(tree_.size(), 0);
  for (std::size_t i = 0; i < tables.accounts.size(); ++i) {
    if (auto node = tree_.find(tables.accounts[i].path)) policy_index_[*node] = static_cast<int>(i);
  }
  loads_.assign(tree_.size(), {});
  debt_.assign(tree_.size(), {});
  shares_.assign(tree_.size(), 0.0);
  for (std::size_t node = 1; node < tree_.size(); ++node) {
    if (tree_.node(node).depth != 1) continue;
    program_nodes_.push_back(static_cast<int>(node));
    programs_.push_back(ProgramTotals{tree_.node(node).name});
  }
  // A program's share before exceptions is its fraction of the root.
  for (std::size_t p = 0; p < program_nodes_.size(); ++p) {
    programs_[p].share = tables.accounts[static_cast<std::size_t>(policy_index_[program_nodes_[p]])].share;
  }
  owed_rates_.assign(programs_.size(), 0.0);
  delivered_rates_.assign(programs_.size(), 0.0);
}

std::optional<int> EntitlementBook::node_of(const std::string& path) const {
  const auto node = tree_.find(path);
  if (!node) return std::nullopt;
  return static_cast<int>(*node);
}

void EntitlementBook::add_load(int node, double demand, double usage) {
  runtime::AccountLoad& load = loads_[static_cast<std::size_t>(node)];
  load.demand += demand;
  load.usage += usage;
  // Rates come and go in whole jobs; snap the rounding residue of an empty account to zero.
  if (std::abs(load.demand) < 1e-9) load.demand = 0;
  if (std::abs(load.usage) < 1e-9) load.usage = 0;
}

void EntitlementBook::refresh_shares(Seconds now) {
  const auto passed =
      static_cast<std::size_t>(std::upper_bound(boundaries_.begin(), boundaries_.end(), now) - boundaries_.begin());
  if (passed == boundaries_passed_) return;
  boundaries_passed_ = passed;
  const runtime::SharesInForce in_force = runtime::shares_in_force(tables_, now);
  for (std::size_t node = 0; node < tree_.size(); ++node) {
    shares_[node] = in_force.of_cluster[static_cast<std::size_t>(policy_index_[node])];
  }
}

void EntitlementBook::step(Seconds from, Seconds until, double capacity, TimelineBuilder& timeline) {
  if (until <= from) return;
  refresh_shares(from);
  const runtime::EntitlementStep step{until - from, capacity, loads_};
  const runtime::EntitlementReport report =
      runtime::account_entitlements(tree_, shares_, std::span<const runtime::EntitlementStep>(&step, 1));
  const double hours = static_cast<double>(until - from) / kHour;
  for (std::size_t p = 0; p < program_nodes_.size(); ++p) {
    const runtime::Entitlement& row = report.accounts[static_cast<std::size_t>(program_nodes_[p])];
    programs_[p].owed += row.owed;
    programs_[p].delivered += row.delivered;
    programs_[p].borrowed += row.borrowed;
    owed_rates_[p] = row.owed / hours;
    delivered_rates_[p] = row.delivered / hours;
  }
  timeline.add_programs(from, until, owed_rates_, delivered_rates_);
  used_hours_ += report.used_hours;
  unassigned_hours_ += report.unassigned_hours;
  const Seconds hour = from / 3600;
  for (std::size_t node = 1; node < tree_.size(); ++node) {
    const double debt = report.accounts[node].debt;
    if (debt <= 0 || !tree_.node(node).is_leaf()) continue;
    auto& hours_of = debt_[node].hours;
    if (!hours_of.empty() && hours_of.back().first == hour) {
      hours_of.back().second += debt;
    } else {
      hours_of.emplace_back(hour, debt);
    }
  }
}

void EntitlementBook::fill_debt(Seconds now, std::map<std::string, double>& debt) {
  const Seconds oldest = now / 3600 - window_hours_ + 1;
  for (std::size_t node = 1; node < tree_.size(); ++node) {
    auto& hours_of = debt_[node].hours;
    while (!hours_of.empty() && hours_of.front().first < oldest) hours_of.pop_front();
    if (!tree_.node(node).is_leaf()) continue;
    double sum = 0;
    for (const auto& [hour, amount] : hours_of) sum += amount;
    if (sum > 0) {
      debt[tree_.node(node).path] = sum;
    } else {
      debt.erase(tree_.node(node).path);
    }
  }
}

}  // namespace allot::simulator
