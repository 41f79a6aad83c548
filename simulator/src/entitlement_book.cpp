#include "entitlement_book.h"

#include <algorithm>
#include <stdexcept>

namespace allot::simulator {
namespace {

runtime::EntitlementBook book_of(const PolicyTables& tables) {
  auto book = runtime::EntitlementBook::create(tables);
  if (!book) throw std::invalid_argument(book.error());
  return std::move(*book);
}

constexpr double kHour = 3600.0;
constexpr double kTiny = 1e-12;

}  // namespace

ProgramBook::ProgramBook(const PolicyTables& tables, Seconds window)
    : book_(book_of(tables)), window_(std::max<Seconds>(1, window / 3600) * 3600) {
  const runtime::AccountTree& tree = book_.tree();
  std::vector<int> program_by_account(tables.accounts.size(), -1);
  for (std::size_t node = 1; node < tree.size(); ++node) {
    if (tree.node(node).depth != 1) continue;
    const auto account = static_cast<std::size_t>(book_.account_of(node));
    program_by_account[account] = static_cast<int>(program_nodes_.size());
    program_nodes_.push_back(node);
    // A program's share before exceptions is its fraction of the root.
    programs_.push_back(ProgramTotals{tree.node(node).name, tables.accounts[account].share});
  }
  program_of_node_.assign(tree.size(), -1);
  for (std::size_t node = 1; node < tree.size(); ++node) {
    const int account = book_.account_of(node);
    if (account > 0)
      program_of_node_[node] = program_by_account[static_cast<std::size_t>(allot::program_of(tables, account))];
  }
  owed_rates_.assign(programs_.size(), 0.0);
  delivered_rates_.assign(programs_.size(), 0.0);
  shortfall_rates_.assign(programs_.size(), ShortfallHours{});
}

std::optional<int> ProgramBook::node_of(const std::string& path) const {
  const auto node = book_.node_of(path);
  if (!node) return std::nullopt;
  return static_cast<int>(*node);
}

void ProgramBook::step(Seconds from, Seconds until, double capacity, const std::vector<ShortfallHours>& held,
                       TimelineBuilder& timeline) {
  if (until <= from) return;
  const runtime::EntitlementReport& report = book_.step(from, until, capacity);
  const double hours = static_cast<double>(until - from) / kHour;
  // What a program below its share lacks was free, or held by programs beyond
  // their shares: each one's excess counts its jobs that preemption could take
  // first, then those in a grace, then protected ones, then pinned ones.
  ShortfallHours pool{};
  pool[static_cast<std::size_t>(Shortfall::free)] = std::max(0.0, capacity - report.used_hours / hours);
  for (std::size_t p = 0; p < program_nodes_.size(); ++p) {
    const runtime::Entitlement& row = report.accounts[program_nodes_[p]];
    double excess = row.borrowed / hours;
    for (std::size_t c = 1; c < kShortfallCauses && excess > 0; ++c) {
      const double part = std::min(excess, p < held.size() ? held[p][c] : 0.0);
      pool[c] += part;
      excess -= part;
    }
  }
  double pool_total = 0;
  for (double rate : pool) pool_total += rate;
  for (std::size_t p = 0; p < program_nodes_.size(); ++p) {
    const runtime::Entitlement& row = report.accounts[program_nodes_[p]];
    programs_[p].owed += row.owed;
    programs_[p].delivered += row.delivered;
    programs_[p].borrowed += row.borrowed;
    owed_rates_[p] = row.owed / hours;
    delivered_rates_[p] = row.delivered / hours;
    // Shared out over the pool in proportion; the pool always covers every
    // shortfall (shares sum to the cluster), so it is empty only when none is short.
    const double short_rate = std::max(0.0, owed_rates_[p] - delivered_rates_[p]);
    for (std::size_t c = 0; c < kShortfallCauses; ++c) {
      shortfall_rates_[p][c] = pool_total > kTiny ? short_rate * pool[c] / pool_total : (c == 0 ? short_rate : 0.0);
      programs_[p].shortfall[c] += shortfall_rates_[p][c] * hours;
    }
  }
  timeline.add_programs(from, until, owed_rates_, delivered_rates_, shortfall_rates_);
  used_hours_ += report.used_hours;
  unassigned_hours_ += report.unassigned_hours;
  beyond_user_share_hours_ += report.beyond_leaf_share_hours;
}

}  // namespace allot::simulator
