// The entitlement book (accounting.h): owed, delivered and debt stepped through time.
#include <algorithm>
#include <cmath>

#include "allot/accounting.h"

namespace allot::runtime {
namespace {

constexpr Seconds kHour = 3600;

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

// The hour index of a time (floor, also before the epoch).
Seconds hour_of(Seconds time) { return time >= 0 ? time / kHour : -((-time + kHour - 1) / kHour); }

// The hours a window ending at `now` counts: after `now - window`, up to `now`'s.
std::pair<Seconds, Seconds> window_hours(Seconds now, Seconds window) {
  return {hour_of(now - window) + 1, hour_of(now)};
}

}  // namespace

std::map<std::string, double> sum_in_window(const DebtHours& hours, Seconds now, Seconds window) {
  const auto [oldest, newest] = window_hours(now, window);
  std::map<std::string, double> sums;
  for (const auto& [key, amount] : hours) {
    if (key.second >= oldest && key.second <= newest && amount > 0) sums[key.first] += amount;
  }
  return sums;
}

Expected<EntitlementBook, std::string> EntitlementBook::create(const PolicyTables& tables) {
  auto tree = policy_tree(tables);
  if (!tree) return unexpected(tree.error());
  return EntitlementBook(tables, std::move(*tree));
}

EntitlementBook::EntitlementBook(const PolicyTables& tables, PolicyTree tree)
    : tables_(&tables), tree_(std::move(tree)), boundaries_(exception_boundaries(tables)) {
  const std::size_t nodes = tree_.tree.size();
  shares_.assign(nodes, 0.0);
  loads_.assign(nodes, {});
  debt_.assign(nodes, {});
}

std::optional<std::size_t> EntitlementBook::node_of(std::string_view path) const { return tree_.tree.find(path); }

void EntitlementBook::add_load(std::size_t node, double demand, double usage) {
  AccountLoad& load = loads_[node];
  load.demand += demand;
  load.usage += usage;
  // Rates come and go in whole jobs; snap the rounding residue of an empty account to zero.
  if (std::abs(load.demand) < 1e-9) load.demand = 0;
  if (std::abs(load.usage) < 1e-9) load.usage = 0;
}

void EntitlementBook::load(const ClusterState& state, const UnitWeights& unit) {
  std::fill(loads_.begin(), loads_.end(), AccountLoad{});
  for (const RunningJob& job : state.running) {
    const auto node = tree_.tree.find(job.request.account);
    if (!node) continue;
    const double held = running_rate(unit, state.inventory, job);
    loads_[*node].usage += held;
    loads_[*node].demand += held;
  }
  for (const JobRequest& job : state.pending) {
    if (const auto node = tree_.tree.find(job.account)) loads_[*node].demand += request_rate(unit, job, job.gpu_type);
  }
}

void EntitlementBook::refresh_shares(Seconds now) {
  const auto passed =
      static_cast<std::size_t>(std::upper_bound(boundaries_.begin(), boundaries_.end(), now) - boundaries_.begin());
  if (passed == boundaries_passed_) return;
  boundaries_passed_ = passed;
  const SharesInForce in_force = shares_in_force(*tables_, now);
  for (std::size_t node = 0; node < shares_.size(); ++node) {
    shares_[node] = in_force.of_cluster[static_cast<std::size_t>(tree_.account_of[node])];
  }
}

void EntitlementBook::add_debt_at(std::size_t node, Seconds hour, double amount) {
  auto& hours = debt_[node];
  auto at = std::lower_bound(hours.begin(), hours.end(), hour,
                             [](const std::pair<Seconds, double>& entry, Seconds h) { return entry.first < h; });
  if (at != hours.end() && at->first == hour) {
    at->second += amount;
  } else {
    hours.insert(at, {hour, amount});
  }
}

const EntitlementReport& EntitlementBook::step(Seconds from, Seconds until, double capacity) {
  last_hour_ = hour_of(from);
  if (until <= from) {
    report_ = EntitlementReport{};
    report_.accounts.assign(tree_.tree.size(), {});
    return report_;
  }
  refresh_shares(from);
  const EntitlementStep step{until - from, capacity, loads_};
  report_ = account_entitlements(tree_.tree, shares_, std::span<const EntitlementStep>(&step, 1));
  for (std::size_t node = 1; node < tree_.tree.size(); ++node) {
    const double debt = report_.accounts[node].debt;
    if (debt > 0 && tree_.tree.node(node).is_leaf()) add_debt_at(node, last_hour_, debt);
  }
  return report_;
}

namespace {

// One column of a step's report, per leaf and the step's hour.
DebtHours leaf_hours(const AccountTree& tree, const EntitlementReport& report, Seconds hour,
                     double Entitlement::*column) {
  DebtHours hours;
  for (std::size_t node = 1; node < report.accounts.size(); ++node) {
    const double amount = report.accounts[node].*column;
    if (amount > 0 && tree.node(node).is_leaf()) hours[{tree.node(node).path, hour}] += amount;
  }
  return hours;
}

}  // namespace

DebtHours EntitlementBook::last_step_debt() const {
  return leaf_hours(tree_.tree, report_, last_hour_, &Entitlement::debt);
}

DebtHours EntitlementBook::last_step_owed() const {
  return leaf_hours(tree_.tree, report_, last_hour_, &Entitlement::owed);
}

void EntitlementBook::add_debt(const DebtHours& hours) {
  for (const auto& [key, amount] : hours) {
    const auto node = tree_.tree.find(key.first);
    if (node && tree_.tree.node(*node).is_leaf()) add_debt_at(*node, key.second, amount);
  }
}

std::map<std::string, double> EntitlementBook::debt_in_window(Seconds now, Seconds window) {
  std::map<std::string, double> debt;
  const auto [oldest, newest] = window_hours(now, window);
  for (std::size_t node = 1; node < debt_.size(); ++node) {
    auto& hours = debt_[node];
    while (!hours.empty() && hours.front().first < oldest) hours.pop_front();
    double sum = 0;
    for (const auto& [hour, amount] : hours) {
      if (hour <= newest) sum += amount;
    }
    if (sum > 0) debt[tree_.tree.node(node).path] = sum;
  }
  return debt;
}

}  // namespace allot::runtime
