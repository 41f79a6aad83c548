// Entitlement and debt, told as the seed's story: eight GPUs, product 40%,
// platform 35%, exploration 25% (ana and ben half each).
#include <catch2/catch.hpp>

#include "allot/account_tree.h"
#include "allot/entitlement.h"

using allot::runtime::account_entitlements;
using allot::runtime::AccountLoad;
using allot::runtime::AccountTree;
using allot::runtime::EntitlementStep;

namespace {

constexpr allot::runtime::Seconds kDay = 86400;

struct Company {
  AccountTree tree;
  std::size_t product, platform, exploration, ana;
};

Company company() {
  auto tree = AccountTree::build(
      {{"product", 40}, {"platform", 35}, {"exploration", 25}, {"exploration/ana", 50}, {"exploration/ben", 50}});
  REQUIRE(tree);
  Company c{std::move(*tree), 0, 0, 0, 0};
  c.product = *c.tree.find("product");
  c.platform = *c.tree.find("platform");
  c.exploration = *c.tree.find("exploration");
  c.ana = *c.tree.find("exploration/ana");
  return c;
}

// A day on eight GPUs; loads are GPUs wanted and held.
EntitlementStep day(const Company& c, AccountLoad product, AccountLoad platform, AccountLoad ana) {
  EntitlementStep step{kDay, 8.0, std::vector<AccountLoad>(c.tree.size())};
  step.load[c.product] = product;
  step.load[c.platform] = platform;
  step.load[c.ana] = ana;
  return step;
}

}  // namespace

TEST_CASE("Tuesday: product is idle, exploration borrows the idle GPUs as unassigned capacity",
          "[runtime][entitlement]") {
  const Company c = company();
  const std::vector<EntitlementStep> steps = {day(c, {0, 0}, {2, 2}, {8, 6})};
  const auto report = account_entitlements(c.tree, c.tree.normalized_shares(), steps);
  const auto& product = report.accounts[c.product];
  CHECK(product.owed == 0);  // no demand, nothing owed
  CHECK(product.debt == 0);
  const auto& ana = report.accounts[c.ana];
  CHECK(ana.owed == Approx(24));  // her share: 1 GPU (12.5% of 8) for 24 hours
  CHECK(ana.delivered == Approx(24));
  CHECK(ana.borrowed == Approx(120));  // the other 5 GPUs were lent to her
  const auto& exploration = report.accounts[c.exploration];
  CHECK(exploration.owed == Approx(48));
  CHECK(exploration.borrowed == Approx(96));
  // Unassigned capacity is what exploration, the program, used beyond its share;
  // ana also used ben's idle half of it, which is beyond her own share but not unassigned.
  CHECK(report.unassigned_hours == Approx(96));
  CHECK(report.beyond_leaf_share_hours == Approx(120));
  CHECK(report.idle_hours == Approx(0));
}

TEST_CASE("Wednesday: product returns and is owed its 40% while it waits", "[runtime][entitlement]") {
  const Company c = company();
  const std::vector<EntitlementStep> steps = {day(c, {0, 0}, {2, 2}, {8, 6}), day(c, {8, 1}, {2, 2}, {8, 5})};
  const auto report = account_entitlements(c.tree, c.tree.normalized_shares(), steps);
  const auto& product = report.accounts[c.product];
  CHECK(product.owed == Approx(3.2 * 24));
  CHECK(product.delivered == Approx(24));
  CHECK(product.debt == Approx(2.2 * 24));
  CHECK(report.accounts[c.platform].debt == 0);  // platform asked for less than its share and got it
  CHECK(report.unassigned_hours == Approx(96 + 72));
  CHECK(report.beyond_leaf_share_hours == Approx(120 + 96));
  CHECK(report.capacity_hours == Approx(2 * 8 * 24));
}

TEST_CASE("idle capacity is what nobody used, and demand never counts below usage", "[runtime][entitlement]") {
  const Company c = company();
  const std::vector<EntitlementStep> steps = {day(c, {1, 3}, {0, 0}, {0, 0})};
  const auto report = account_entitlements(c.tree, c.tree.normalized_shares(), steps);
  CHECK(report.idle_hours == Approx(5 * 24));
  CHECK(report.accounts[c.product].owed == Approx(3 * 24));  // demand raised to the 3 GPUs it held
  CHECK(report.accounts[c.product].debt == 0);
}

TEST_CASE("exception-adjusted shares change what is owed", "[runtime][entitlement]") {
  const Company c = company();
  std::vector<double> shares = c.tree.normalized_shares();
  shares[c.product] = 0.50;  // "grant product +10% from exploration"
  const std::vector<EntitlementStep> steps = {day(c, {8, 2}, {0, 0}, {8, 6})};
  const auto report = account_entitlements(c.tree, shares, steps);
  CHECK(report.accounts[c.product].owed == Approx(4 * 24));
  CHECK(report.accounts[c.product].debt == Approx(2 * 24));
}
