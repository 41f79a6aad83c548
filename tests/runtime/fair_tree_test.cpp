// Fair Tree, checked against Slurm's own numbers: the association tree and the
// expected `sshare -l` lines of Slurm's regression test 24.4
// (testsuite/expect/test24.4, written by Fair Tree's authors), plus the
// properties and tie rules of https://slurm.schedmd.com/fair_tree.html.
#include <catch2/catch.hpp>

#include <cstdint>
#include <limits>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "allot/account_tree.h"
#include "allot/fair_share.h"

using allot::runtime::AccountSpec;
using allot::runtime::AccountTree;
using allot::runtime::fair_tree;
using allot::runtime::FairTreeValues;

namespace {

// An account, its raw shares (nullopt: FairShare=parent) and its own usage.
struct Association {
  std::string path;
  std::optional<double> shares;
  double usage = 0;
};

struct Built {
  AccountTree tree;
  std::vector<double> usage;
};

Built build(const std::vector<Association>& associations) {
  std::vector<AccountSpec> specs;
  for (const Association& a : associations) specs.push_back({a.path, a.shares.value_or(0), !a.shares});
  auto tree = AccountTree::build(specs);
  REQUIRE(tree);
  std::vector<double> usage(tree->size(), 0.0);
  for (const Association& a : associations) usage[*tree->find(a.path)] = a.usage;
  return Built{std::move(*tree), std::move(usage)};
}

// One line of `sshare -l -P` without its last two columns (GrpTRESMins, TRESRunMins):
// Account|User|RawShares|NormShares|RawUsage|NormUsage|EffectvUsage|FairShare|LevelFS
std::string sshare_line(const AccountTree& tree, const std::vector<FairTreeValues>& values, std::size_t i) {
  const auto& node = tree.node(i);
  const auto& value = values[i];
  const std::string parent = node.parent == 0 ? "root" : tree.node(static_cast<std::size_t>(node.parent)).name;
  const std::string raw_shares = node.use_parent ? "parent" : fmt::format("{}", static_cast<int>(node.shares));
  const std::string fair_share = node.is_user() ? fmt::format("{:.6f}", value.fair_share) : "";
  const std::string level_fs = node.use_parent ? "" : fmt::format("{:.6f}", static_cast<double>(value.level_fs));
  return fmt::format("{}|{}|{}|{:.6f}|{}|{:.6f}|{:.6f}|{}|{}", node.is_user() ? parent : node.name,
                     node.is_user() ? node.name : "", raw_shares, value.shares_norm,
                     static_cast<std::uint64_t>(value.usage_raw),
                     static_cast<double>(value.usage_raw / values[0].usage_raw),
                     static_cast<double>(value.usage_effective), fair_share, level_fs);
}

// Slurm's test24.4.prog.c association tree (usage on users only; Slurm sums it upwards).
const std::vector<Association> kSlurmTest24_4 = {
    {"aA", 40},
    {"aA/aAA", 30},
    {"aA/aAA/uAA1", 1, 20},
    {"aA/aAB", 10},
    {"aA/aAB/uAB1", 1, 25},
    {"aA/aAB/uAB2", 1, 0},
    {"aB", 60},
    {"aB/aBA", 25},
    {"aB/aBA/uBA1", 1, 25},
    {"aB/aBB", 35},
    {"aB/aBB/uBB1", 1, 0},
    {"aC", 0},
    {"aC/uC1", 0, 30},
    {"aD", 50},
    {"aD/aDA", std::nullopt},
    {"aD/aDA/uDA1", std::nullopt, 10},
    {"aD/aDA/uDA2", 30, 10},
    {"aD/aDA/uDA3", 50, 25},
    {"aD/uD1", std::nullopt, 20},
    {"aD/uD2", 40, 20},
    {"aD/uD3", 50, 25},
    {"aE", 10},
    {"aE/aE1", 10, 0},
    {"aE/aE2", 10, 0},
    {"u1", 10, 0},
    {"aF", 20},
    {"aF/uF1", 10, 0},
    {"aF/uF2", 20, 0},
    {"aG", 8},
    {"aG/uG1", 10, 10},
    {"aG/aGA", 10},
    {"aG/aGA/uGA1", 20, 4},
    {"aG/aGA/uGA2", 20, 6},
    {"u2", 10, 10},
};

double factor_of(const Built& built, const std::vector<FairTreeValues>& values, const std::string& path) {
  return values[*built.tree.find(path)].fair_share;
}

}  // namespace

TEST_CASE("Fair Tree prints exactly the sshare lines of Slurm's test 24.4", "[runtime][fairshare][fair_tree]") {
  const Built built = build(kSlurmTest24_4);
  const auto values = fair_tree(built.tree, built.usage);
  const std::vector<std::pair<std::string, std::string>> expected = {
      {"u1", "root|u1|10|0.048077|0|0.000000|0.000000|1.000000|inf"},
      {"u2", "root|u2|10|0.048077|10|0.041667|0.041667|0.666667|1.153846"},
      {"aA", "aA||40|0.192308|45|0.187500|0.187500||1.025641"},
      {"aA/aAA", "aAA||30|0.750000|20|0.083333|0.444444||1.687500"},
      {"aA/aAA/uAA1", "aAA|uAA1|1|1.000000|20|0.083333|1.000000|0.619048|1.000000"},
      {"aA/aAB", "aAB||10|0.250000|25|0.104167|0.555556||0.450000"},
      {"aA/aAB/uAB1", "aAB|uAB1|1|0.500000|25|0.104167|1.000000|0.523810|0.500000"},
      {"aA/aAB/uAB2", "aAB|uAB2|1|0.500000|0|0.000000|0.000000|0.571429|inf"},
      {"aB", "aB||60|0.288462|25|0.104167|0.104167||2.769231"},
      {"aB/aBA", "aBA||25|0.416667|25|0.104167|1.000000||0.416667"},
      {"aB/aBA/uBA1", "aBA|uBA1|1|1.000000|25|0.104167|1.000000|0.714286|1.000000"},
      {"aB/aBB", "aBB||35|0.583333|0|0.000000|0.000000||inf"},
      {"aB/aBB/uBB1", "aBB|uBB1|1|1.000000|0|0.000000|0.000000|0.761905|inf"},
      {"aC", "aC||0|0.000000|30|0.125000|0.125000||0.000000"},
      {"aC/uC1", "aC|uC1|0|0.000000|30|0.125000|1.000000|0.047619|0.000000"},
      {"aD", "aD||50|0.240385|110|0.458333|0.458333||0.524476"},
      {"aD/uD1", "aD|uD1|parent|0.240385|20|0.083333|0.181818|0.476190|"},
      {"aD/uD2", "aD|uD2|40|0.235294|20|0.083333|0.181818|0.238095|1.294118"},
      {"aD/uD3", "aD|uD3|50|0.294118|25|0.104167|0.227273|0.333333|1.294118"},
      {"aD/aDA", "aDA||parent|0.240385|45|0.187500|0.409091||"},
      {"aD/aDA/uDA1", "aDA|uDA1|parent|0.240385|10|0.041667|0.090909|0.476190|"},
      {"aD/aDA/uDA2", "aDA|uDA2|30|0.176471|10|0.041667|0.090909|0.380952|1.941176"},
      {"aD/aDA/uDA3", "aDA|uDA3|50|0.294118|25|0.104167|0.227273|0.333333|1.294118"},
      {"aE", "aE||10|0.048077|0|0.000000|0.000000||inf"},
      {"aE/aE1", "aE|aE1|10|0.500000|0|0.000000|0.000000|1.000000|inf"},
      {"aE/aE2", "aE|aE2|10|0.500000|0|0.000000|0.000000|1.000000|inf"},
      {"aF", "aF||20|0.096154|0|0.000000|0.000000||inf"},
      {"aF/uF1", "aF|uF1|10|0.333333|0|0.000000|0.000000|1.000000|inf"},
      {"aF/uF2", "aF|uF2|20|0.666667|0|0.000000|0.000000|1.000000|inf"},
      {"aG", "aG||8|0.038462|20|0.083333|0.083333||0.461538"},
      {"aG/uG1", "aG|uG1|10|0.500000|10|0.041667|0.500000|0.190476|1.000000"},
      {"aG/aGA", "aGA||10|0.500000|10|0.041667|0.500000||1.000000"},
      {"aG/aGA/uGA1", "aGA|uGA1|20|0.500000|4|0.016667|0.400000|0.190476|1.250000"},
      {"aG/aGA/uGA2", "aGA|uGA2|20|0.500000|6|0.025000|0.600000|0.095238|0.833333"},
  };
  CHECK(values[0].usage_raw == 240);
  CHECK(built.tree.leaf_count() == 21);
  for (const auto& [path, line] : expected) {
    INFO(path);
    CHECK(sshare_line(built.tree, values, *built.tree.find(path)) == line);
  }
}

TEST_CASE("Fair Tree keeps Slurm's floating point: uD2 and uD3 differ below sshare's precision",
          "[runtime][fairshare][fair_tree]") {
  // (40/170) / (20/110) and (50/170) / (25/110) are both 22/17, but Slurm
  // computes S as a double and U as a long double, and the two round apart.
  const Built built = build(kSlurmTest24_4);
  const auto values = fair_tree(built.tree, built.usage);
  const auto& d2 = values[*built.tree.find("aD/uD2")];
  const auto& d3 = values[*built.tree.find("aD/uD3")];
  const auto& da3 = values[*built.tree.find("aD/aDA/uDA3")];
  CHECK(d2.level_fs < d3.level_fs);
  CHECK(d3.level_fs == da3.level_fs);
  CHECK(d2.rank == 5);
  CHECK(d3.rank == 7);
  CHECK(da3.rank == 7);
}

TEST_CASE("Fair Tree: every leaf of a higher Level FS account outranks every leaf of a lower sibling",
          "[runtime][fairshare][fair_tree]") {
  // The first property on slurm.schedmd.com/fair_tree.html, over random trees and usage.
  std::mt19937 random(20261201);
  std::uniform_int_distribution<int> shares(1, 50);
  std::uniform_int_distribution<int> usage(0, 1000);
  for (int round = 0; round < 50; ++round) {
    std::vector<Association> associations;
    for (int a = 0; a < 4; ++a) {
      associations.push_back({fmt::format("a{}", a), shares(random)});
      for (int u = 0; u < 3; ++u) {
        associations.push_back({fmt::format("a{}/u{}", a, u), shares(random), static_cast<double>(usage(random))});
      }
    }
    const Built built = build(associations);
    const auto values = fair_tree(built.tree, built.usage);
    for (int a = 0; a < 4; ++a) {
      for (int b = 0; b < 4; ++b) {
        const auto& account_a = values[*built.tree.find(fmt::format("a{}", a))];
        const auto& account_b = values[*built.tree.find(fmt::format("a{}", b))];
        if (!(account_a.level_fs > account_b.level_fs)) continue;
        for (int u = 0; u < 3; ++u) {
          for (int v = 0; v < 3; ++v) {
            INFO("round " << round << ": a" << a << "/u" << u << " vs a" << b << "/u" << v);
            CHECK(factor_of(built, values, fmt::format("a{}/u{}", a, u)) >
                  factor_of(built, values, fmt::format("a{}/u{}", b, v)));
          }
        }
      }
    }
  }
}

TEST_CASE("Fair Tree's documented example: compare the Level FS below the first common ancestor",
          "[runtime][fairshare][fair_tree]") {
  // root => Acct1 => Acct12 => UserA and root => Acct1 => Acct16 => UserB.
  const Built built = build({{"Acct1", 1},
                             {"Acct1/Acct12", 1},
                             {"Acct1/Acct12/UserA", 1, 300},
                             {"Acct1/Acct16", 1},
                             {"Acct1/Acct16/UserB", 1, 100},
                             {"Acct2", 1},
                             {"Acct2/UserC", 1, 50}});
  const auto values = fair_tree(built.tree, built.usage);
  CHECK(values[*built.tree.find("Acct1/Acct16")].level_fs > values[*built.tree.find("Acct1/Acct12")].level_fs);
  CHECK(factor_of(built, values, "Acct1/Acct16/UserB") > factor_of(built, values, "Acct1/Acct12/UserA"));
  // Acct2 used less than its half, so its user outranks both; the best user's factor is 1.0.
  CHECK(factor_of(built, values, "Acct2/UserC") == 1.0);
  CHECK(factor_of(built, values, "Acct1/Acct16/UserB") == Approx(2.0 / 3));
  CHECK(factor_of(built, values, "Acct1/Acct12/UserA") == Approx(1.0 / 3));
}

TEST_CASE("Fair Tree ties as Slurm's code handles them: tied sibling accounts are walked one after another",
          "[runtime][fairshare][fair_tree]") {
  // fair_tree.shtml says tied sibling accounts have their children merged;
  // Slurm 22.05's _count_tied_accounts never finds one (docs/FAIRSHARE.md).
  // aX and aY both used exactly their half (Level FS 1.0). aX is walked first
  // (name order): x1 (2.0) gets rank 4, x2 (0.67) rank 3. aY is tied with aX,
  // so its first user inherits the tie and shares rank 3, and y2 ties with y1.
  const Built built = build({{"aX", 1}, {"aX/x1", 1, 1}, {"aX/x2", 1, 3}, {"aY", 1}, {"aY/y1", 1, 2}, {"aY/y2", 1, 2}});
  const auto values = fair_tree(built.tree, built.usage);
  CHECK(factor_of(built, values, "aX/x1") == 1.0);
  CHECK(factor_of(built, values, "aX/x2") == 0.75);
  CHECK(factor_of(built, values, "aY/y1") == 0.75);
  CHECK(factor_of(built, values, "aY/y2") == 0.75);
}

TEST_CASE("Fair Tree ties: the example of issue 9, as real Slurm 22.05 prints it", "[runtime][fairshare][fair_tree]") {
  // p1 50% { a 50%  b 50% }, p2 50% { c 50%  d 50% }, usage a=0 b=1 c=0 d=1:
  // Slurm gives a 1.0, b 0.75, c 0.75, d 0.25 (checked with the harness of
  // tests/fairshare); merging the tied accounts would give a 1.0, c 1.0, b 0.5, d 0.5.
  const Built built =
      build({{"p1", 50}, {"p1/a", 50, 0}, {"p1/b", 50, 1}, {"p2", 50}, {"p2/c", 50, 0}, {"p2/d", 50, 1}});
  const auto values = fair_tree(built.tree, built.usage);
  CHECK(factor_of(built, values, "p1/a") == 1.0);
  CHECK(factor_of(built, values, "p1/b") == 0.75);
  CHECK(factor_of(built, values, "p2/c") == 0.75);
  CHECK(factor_of(built, values, "p2/d") == 0.25);
  // Which tied account goes first is Slurm's list order: users, then accounts, by name.
  const Built swapped =
      build({{"p2", 50}, {"p2/c", 50, 0}, {"p2/d", 50, 1}, {"p1", 50}, {"p1/a", 50, 0}, {"p1/b", 50, 1}});
  const auto swapped_values = fair_tree(swapped.tree, swapped.usage);
  CHECK(factor_of(swapped, swapped_values, "p1/b") == 0.75);
  CHECK(factor_of(swapped, swapped_values, "p2/d") == 0.25);
}

TEST_CASE("Fair Tree: a FairShare=parent account right below the root has NormShares 0, as in Slurm",
          "[runtime][fairshare][fair_tree]") {
  const Built built = build({{"lab", std::nullopt}, {"lab/u", 10, 5}, {"other", 10}, {"other/v", 10, 5}});
  const auto values = fair_tree(built.tree, built.usage);
  CHECK(values[*built.tree.find("lab")].shares_norm == 0.0);
  CHECK(values[*built.tree.find("lab/u")].shares_norm == 0.5);
}

TEST_CASE("Fair Tree: an account with no usage yet ranks its users first", "[runtime][fairshare][fair_tree]") {
  const Built built = build({{"product", 40},
                             {"platform", 35},
                             {"exploration", 25},
                             {"exploration/ana", 50, 30},
                             {"exploration/ben", 50, 10}});
  std::vector<double> usage = built.usage;
  usage[*built.tree.find("platform")] = 50;
  const auto values = fair_tree(built.tree, usage);
  CHECK(values[*built.tree.find("product")].level_fs == std::numeric_limits<long double>::infinity());
  CHECK(factor_of(built, values, "product") == 1.0);
  // platform: S 0.35 / U 50/90 = 0.63 beats exploration: S 0.25 / U 40/90 = 0.5625,
  // and inside exploration ben (0.5 / 0.25) beats ana (0.5 / 0.75).
  CHECK(factor_of(built, values, "platform") == 0.75);
  CHECK(factor_of(built, values, "exploration/ben") == 0.5);
  CHECK(factor_of(built, values, "exploration/ana") == 0.25);
}
