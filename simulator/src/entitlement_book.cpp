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

}  // namespace

ProgramBook::ProgramBook(const PolicyTables& tables, Seconds window)
    : book_(book_of(tables)), window_(std::max<Seconds>(1, window / 3600) * 3600) {
  const runtime::AccountTree& tree = book_.tree();
  for (std::size_t node = 1; node < tree.size(); ++node) {
    if (tree.node(node).depth != 1) continue;
    program_nodes_.push_back(node);
    // A program's share before exceptions is its fraction of the root.
    const auto account = static_cast<std::size_t>(book_.account_of(node));
    programs_.push_back(ProgramTotals{tree.node(node).name, tables.accounts[account].share});
  }
  owed_rates_.assign(programs_.size(), 0.0);
  delivered_rates_.assign(programs_.size(), 0.0);
}

std::optional<int> ProgramBook::node_of(const std::string& path) const {
  const auto node = book_.node_of(path);
  if (!node) return std::nullopt;
  return static_cast<int>(*node);
}

void ProgramBook::step(Seconds from, Seconds until, double capacity, TimelineBuilder& timeline) {
  if (until <= from) return;
  const runtime::EntitlementReport& report = book_.step(from, until, capacity);
  const double hours = static_cast<double>(until - from) / kHour;
  for (std::size_t p = 0; p < program_nodes_.size(); ++p) {
    const runtime::Entitlement& row = report.accounts[program_nodes_[p]];
    programs_[p].owed += row.owed;
    programs_[p].delivered += row.delivered;
    programs_[p].borrowed += row.borrowed;
    owed_rates_[p] = row.owed / hours;
    delivered_rates_[p] = row.delivered / hours;
  }
  timeline.add_programs(from, until, owed_rates_, delivered_rates_);
  used_hours_ += report.used_hours;
  unassigned_hours_ += report.unassigned_hours;
  beyond_user_share_hours_ += report.beyond_leaf_share_hours;
}

}  // namespace allot::simulator
