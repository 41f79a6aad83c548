// Dominant Resource Fairness: an account's dominant share is the largest
// weighted fraction of any resource it holds.
#include <catch2/catch.hpp>

#include <limits>

#include "allot/account_tree.h"
#include "allot/fair_share.h"

using allot::runtime::AccountTree;
using allot::runtime::dominant_resource_shares;
using allot::runtime::DrfWeights;
using allot::runtime::Resource;
using allot::runtime::ResourceAmounts;

TEST_CASE("DRF reproduces the example of Ghodsi et al. (NSDI 2011)", "[runtime][fairshare][drf]") {
  // 9 CPUs and 18 GB. A runs three tasks of <1 CPU, 4 GB>, B two tasks of
  // <3 CPUs, 1 GB>: both end with a dominant share of 2/3, A on memory, B on CPU.
  auto tree = AccountTree::build({{"A", 1}, {"B", 1}});
  REQUIRE(tree);
  std::vector<ResourceAmounts> held(tree->size());
  held[*tree->find("A")] = {0, 3, 12};
  held[*tree->find("B")] = {0, 6, 2};
  const auto values = dominant_resource_shares(*tree, held, {0, 9, 18}, DrfWeights{});
  const auto& a = values[*tree->find("A")];
  const auto& b = values[*tree->find("B")];
  CHECK(a.dominant_share == Approx(2.0 / 3));
  CHECK(a.dominant == Resource::memory);
  CHECK(b.dominant_share == Approx(2.0 / 3));
  CHECK(b.dominant == Resource::cpu);
}

TEST_CASE("DRF weights make a resource dearer, and parents hold their children's resources",
          "[runtime][fairshare][drf]") {
  auto tree = AccountTree::build({{"research", 60}, {"research/vision", 1}, {"research/nlp", 1}, {"ops", 40}});
  REQUIRE(tree);
  std::vector<ResourceAmounts> held(tree->size());
  held[*tree->find("research/vision")] = {2, 48, 128};  // 1/4 of the GPUs, 1/2 of the CPUs
  held[*tree->find("research/nlp")] = {2, 8, 128};
  const ResourceAmounts capacity{8, 96, 1024};
  SECTION("unweighted, vision is dominated by CPU") {
    const auto values = dominant_resource_shares(*tree, held, capacity, DrfWeights{});
    CHECK(values[*tree->find("research/vision")].dominant == Resource::cpu);
    CHECK(values[*tree->find("research/vision")].dominant_share == Approx(0.5));
    const auto& research = values[*tree->find("research")];
    CHECK(research.held.gpus == 4);
    CHECK(research.dominant == Resource::cpu);  // GPUs 4/8, CPUs 56/96, memory 256/1024
    CHECK(research.dominant_share == Approx(56.0 / 96));
  }
  SECTION("GPUs weighted 3x dominate") {
    const auto values = dominant_resource_shares(*tree, held, capacity, DrfWeights{3.0, 1.0, 1.0});
    CHECK(values[*tree->find("research/vision")].dominant == Resource::gpu);
    CHECK(values[*tree->find("research/vision")].dominant_share == Approx(0.75));
  }
  SECTION("the share ratio compares dominant share with the account's share of the cluster") {
    const auto values = dominant_resource_shares(*tree, held, capacity, DrfWeights{});
    CHECK(values[*tree->find("research/vision")].share_ratio == Approx(0.5 / 0.3));
    CHECK(values[*tree->find("ops")].share_ratio == 0.0);
  }
}
