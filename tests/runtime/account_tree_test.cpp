// The account tree: paths, shares, parents summing their children, and a clear
// error for every malformed declaration.
#include <catch2/catch.hpp>

#include "allot/account_tree.h"

using allot::runtime::AccountSpec;
using allot::runtime::AccountTree;

namespace {

// The seed's company: programs with shares in percent, two users under exploration.
AccountTree seed_tree() {
  auto tree = AccountTree::build(
      {{"product", 40}, {"platform", 35}, {"exploration", 25}, {"exploration/ana", 50}, {"exploration/ben", 50}});
  REQUIRE(tree);
  return std::move(*tree);
}

std::string build_error(const std::vector<AccountSpec>& specs) {
  auto tree = AccountTree::build(specs);
  return tree ? "no error" : tree.error();
}

}  // namespace

TEST_CASE("an account tree is built from paths, parents before children", "[runtime][accounts]") {
  const AccountTree tree = seed_tree();
  REQUIRE(tree.size() == 6);
  const auto& ana = tree.node(*tree.find("exploration/ana"));
  CHECK(ana.name == "ana");
  CHECK(ana.depth == 2);
  CHECK(tree.node(static_cast<std::size_t>(ana.parent)).path == "exploration");
  CHECK(tree.node(0).children.size() == 3);
  CHECK(tree.leaf_count() == 4);
  CHECK_FALSE(tree.find("exploration/carl"));
}

TEST_CASE("children may be declared before their parents", "[runtime][accounts]") {
  auto tree = AccountTree::build({{"a/b/c", 1}, {"a/b", 1}, {"a", 1}});
  REQUIRE(tree);
  CHECK(tree->node(*tree->find("a/b/c")).depth == 3);
}

TEST_CASE("a parent's total is its own value plus its descendants'", "[runtime][accounts]") {
  const AccountTree tree = seed_tree();
  std::vector<double> usage(tree.size(), 0.0);
  usage[*tree.find("exploration/ana")] = 30;
  usage[*tree.find("exploration/ben")] = 12;
  usage[*tree.find("product")] = 8;
  const auto sums = tree.subtree_sums(usage);
  CHECK(sums[*tree.find("exploration")] == 42);
  CHECK(sums[0] == 50);
}

TEST_CASE("normalised shares multiply the share ratios down the path", "[runtime][accounts]") {
  const AccountTree tree = seed_tree();
  const auto shares = tree.normalized_shares();
  CHECK(shares[0] == 1.0);
  CHECK(shares[*tree.find("product")] == Approx(0.40));
  CHECK(shares[*tree.find("exploration/ana")] == Approx(0.125));
}

TEST_CASE("every malformed account declaration is refused with the reason", "[runtime][accounts]") {
  CHECK(build_error({{"a", 1}, {"a", 2}}) == "account `a` is declared twice");
  CHECK(build_error({{"a/b", 1}}) == "account `a/b` has no parent: declare `a` too");
  CHECK(build_error({{"a//b", 1}}) == "account path `a//b` has an empty segment");
  CHECK(build_error({{"", 1}}) == "an account path is empty");
  CHECK(build_error({{"a", -5}}) == "account `a` has shares -5; shares must be 0 or more");
}
