// Slurm's classic fair-share factor, checked against the worked example on
// https://slurm.schedmd.com/classic_fair_share.html and the `sshare` lines of
// Slurm's regression test 24.1 (the same tree plus a zero-share account).
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "allot/account_tree.h"
#include "allot/fair_share.h"

using allot::runtime::AccountSpec;
using allot::runtime::AccountTree;
using allot::runtime::classic_fair_share;
using allot::runtime::ClassicValues;

namespace {

AccountTree test_24_1_tree() {
  auto tree = AccountTree::build({{"AccountA", 40},
                                  {"AccountA/AccountB", 30},
                                  {"AccountA/AccountB/User1", 1},
                                  {"AccountA/AccountC", 10},
                                  {"AccountA/AccountC/User2", 1},
                                  {"AccountA/AccountC/User3", 1},
                                  {"AccountD", 60},
                                  {"AccountD/AccountE", 25},
                                  {"AccountD/AccountE/User4", 1},
                                  {"AccountD/AccountF", 35},
                                  {"AccountD/AccountF/User5", 1},
                                  {"AccountG", 0},
                                  {"AccountG/User6", 0}});
  REQUIRE(tree);
  return std::move(*tree);
}

std::vector<double> test_24_1_usage(const AccountTree& tree) {
  std::vector<double> usage(tree.size(), 0.0);
  usage[*tree.find("AccountA/AccountB/User1")] = 20;
  usage[*tree.find("AccountA/AccountC/User2")] = 25;
  usage[*tree.find("AccountD/AccountE/User4")] = 25;
  usage[*tree.find("AccountG/User6")] = 30;
  return usage;
}

// Account|User|RawShares|NormShares|RawUsage|NormUsage|EffectvUsage|FairShare, as `sshare -l -P` prints them.
std::string sshare_line(const AccountTree& tree, const std::vector<ClassicValues>& values, std::size_t i) {
  const auto& node = tree.node(i);
  const auto& value = values[i];
  const std::string parent = tree.node(static_cast<std::size_t>(node.parent)).name;
  return fmt::format("{}|{}|{}|{:.6f}|{}|{:.6f}|{:.6f}|{:.6f}", node.is_user() ? parent : node.name,
                     node.is_user() ? node.name : "", static_cast<int>(node.shares), value.shares_norm,
                     static_cast<std::uint64_t>(value.usage_raw), static_cast<double>(value.usage_norm),
                     static_cast<double>(value.usage_effective), value.fair_share_shown);
}

}  // namespace

TEST_CASE("classic fair share prints exactly the sshare lines of Slurm's test 24.1", "[runtime][fairshare][classic]") {
  const AccountTree tree = test_24_1_tree();
  const auto values = classic_fair_share(tree, test_24_1_usage(tree));
  const std::vector<std::pair<std::string, std::string>> expected = {
      {"AccountA", "AccountA||40|0.400000|45|0.450000|0.450000|0.458502"},
      {"AccountA/AccountB", "AccountB||30|0.300000|20|0.200000|0.387500|0.408479"},
      {"AccountA/AccountB/User1", "AccountB|User1|1|0.300000|20|0.200000|0.387500|0.408479"},
      {"AccountA/AccountC", "AccountC||10|0.100000|25|0.250000|0.300000|0.125000"},
      {"AccountA/AccountC/User2", "AccountC|User2|1|0.050000|25|0.250000|0.275000|0.022097"},
      {"AccountA/AccountC/User3", "AccountC|User3|1|0.050000|0|0.000000|0.150000|0.125000"},
      {"AccountD", "AccountD||60|0.600000|25|0.250000|0.250000|0.749154"},
      {"AccountD/AccountE", "AccountE||25|0.250000|25|0.250000|0.250000|0.500000"},
      {"AccountD/AccountE/User4", "AccountE|User4|1|0.250000|25|0.250000|0.250000|0.500000"},
      {"AccountD/AccountF", "AccountF||35|0.350000|0|0.000000|0.145833|0.749154"},
      {"AccountD/AccountF/User5", "AccountF|User5|1|0.350000|0|0.000000|0.145833|0.749154"},
      {"AccountG", "AccountG||0|0.000000|30|0.300000|0.300000|0.000000"},
  };
  for (const auto& [path, line] : expected) {
    INFO(path);
    CHECK(sshare_line(tree, values, *tree.find(path)) == line);
  }
  // Slurm's test checks only "AccountG|User6|0|": a user with no shares gets factor 0.
  const auto& user6 = values[*tree.find("AccountG/User6")];
  CHECK(user6.shares_norm == 0);
  CHECK(user6.fair_share == 0);
}

TEST_CASE("classic fair share reproduces the documented effective usages", "[runtime][fairshare][classic]") {
  // classic_fair_share.html: "Account B effective usage: 0.2 + ((0.45 - 0.2) * 30 / 40) = 0.3875", ...
  const AccountTree tree = test_24_1_tree();
  const auto values = classic_fair_share(tree, test_24_1_usage(tree));
  const auto effective = [&](const char* path) {
    return static_cast<double>(values[*tree.find(path)].usage_effective);
  };
  CHECK(effective("AccountA") == Approx(0.45));
  CHECK(effective("AccountD") == Approx(0.25));
  CHECK(effective("AccountA/AccountB") == Approx(0.3875));
  CHECK(effective("AccountA/AccountC") == Approx(0.3));
  CHECK(effective("AccountD/AccountE") == Approx(0.25));
  CHECK(effective("AccountD/AccountF") == Approx(0.25 * 35 / 60));
  CHECK(effective("AccountA/AccountC/User2") == Approx(0.275));
  CHECK(effective("AccountA/AccountC/User3") == Approx(0.15));
}

TEST_CASE("classic fair share: FairShare=parent users take their account's values", "[runtime][fairshare][classic]") {
  auto tree = AccountTree::build({{"team", 1}, {"team/a", 1, true}, {"team/b", 1, true}, {"other", 1}});
  REQUIRE(tree);
  std::vector<double> usage(tree->size(), 0.0);
  usage[*tree->find("team/a")] = 30;
  usage[*tree->find("other")] = 10;
  const auto values = classic_fair_share(*tree, usage);
  const auto& team = values[*tree->find("team")];
  for (const char* user : {"team/a", "team/b"}) {
    INFO(user);
    CHECK(values[*tree->find(user)].shares_norm == team.shares_norm);
    CHECK(values[*tree->find(user)].usage_effective == team.usage_effective);
    CHECK(values[*tree->find(user)].fair_share == team.fair_share);
  }
  CHECK(team.fair_share == Approx(std::pow(2.0, -1.5)));  // 2^(-0.75 / 0.5): used 3/4 with a share of 1/2
}

TEST_CASE("classic fair share: when no sibling has shares, effective usage is the parent's, as in Slurm",
          "[runtime][fairshare][classic]") {
  // _set_usage_efctv: "If no user in the account has shares ... setting
  // usage_efctv to the parent's usage_efctv" (not the account's own usage).
  auto tree = AccountTree::build({{"lab", 1}, {"lab/a", 0}, {"lab/b", 0}, {"other", 1}, {"other/c", 1}});
  REQUIRE(tree);
  std::vector<double> usage(tree->size(), 0.0);
  usage[*tree->find("lab/a")] = 30;
  usage[*tree->find("other/c")] = 10;
  const auto values = classic_fair_share(*tree, usage);
  const auto lab = values[*tree->find("lab")].usage_effective;
  CHECK(lab == 0.75L);
  CHECK(values[*tree->find("lab/a")].usage_effective == lab);
  CHECK(values[*tree->find("lab/b")].usage_effective == lab);
  CHECK(values[*tree->find("lab/a")].fair_share == 0.0);  // no shares: factor 0
}

TEST_CASE("classic fair share: the dampening factor softens the penalty", "[runtime][fairshare][classic]") {
  const AccountTree tree = test_24_1_tree();
  const auto values = classic_fair_share(tree, test_24_1_usage(tree), 2.0);
  // FairShareDampeningFactor=2: F = 2^(-U_E / S / 2); User2: 2^(-0.275 / 0.05 / 2).
  CHECK(values[*tree.find("AccountA/AccountC/User2")].fair_share == Approx(std::pow(2.0, -2.75)));
}
