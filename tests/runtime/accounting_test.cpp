// The accounting every driver counts with (allot/accounting.h): units and
// rates over the up nodes, the ledger of a policy, and the entitlement book's
// debt per hour and window. The policy tables are written by hand, as the
// compiler would produce them for
//   window 2h; unit gpu_hours { H100: 2.0 }
//   account product 75%; account research 25% { account ana 50%; account ben 50% }
#include <catch2/catch.hpp>

#include <tuple>

#include "allot/accounting.h"

using namespace allot;
using namespace allot::runtime;

namespace {

constexpr Seconds kHour = 3600;
constexpr Seconds kNoon = 20788 * 86400 + 12 * kHour;  // 2026-12-01T12:00:00Z

AccountInfo account(std::string path, int parent, int depth, double share) {
  AccountInfo info;
  info.name = path.substr(path.rfind('/') == std::string::npos ? 0 : path.rfind('/') + 1);
  info.path = std::move(path);
  info.parent = parent;
  info.depth = depth;
  info.share = share;
  info.raw_shares = share * 100;
  return info;
}

PolicyTables company() {
  PolicyTables tables;
  tables.name = "company";
  tables.window = 2 * kHour;
  tables.unit.weights = {{"H100", 2.0}};
  tables.accounts = {account("", -1, 0, 1.0), account("product", 0, 1, 0.75), account("research", 0, 1, 0.25),
                     account("research/ana", 2, 2, 0.5), account("research/ben", 2, 2, 0.5)};
  tables.accounts[0].leaf = false;
  tables.accounts[2].leaf = false;
  return tables;
}

// Two H100 nodes of 4 GPUs and one A100 node of 8; the A100 node as `state`.
Inventory cluster(NodeState a100 = NodeState::up) {
  Inventory inventory;
  inventory.gpu_types = {"H100", "A100"};
  inventory.blocks = {"rack1"};
  for (const auto& [name, type, gpus] : {std::tuple{"h1", 0, 4}, std::tuple{"h2", 0, 4}, std::tuple{"a1", 1, 8}}) {
    Node node;
    node.name = name;
    node.gpu_type = type;
    node.gpus = gpus;
    node.cpus = 8 * gpus;
    node.memory_gib = 64.0 * gpus;
    inventory.nodes.push_back(node);
  }
  inventory.nodes[2].state = a100;
  return inventory;
}

JobRequest request(std::string account, int gpus, std::string gpu_type = "") {
  JobRequest job;
  job.id = account + std::to_string(gpus);
  job.account = std::move(account);
  job.gpus_per_node = gpus;
  job.gpu_type = std::move(gpu_type);
  return job;
}

}  // namespace

TEST_CASE("rates count GPUs by type and capacity counts only the nodes that are up", "[runtime][accounting]") {
  const PolicyTables tables = company();
  const UnitWeights unit = unit_weights(tables, cluster());
  CHECK(capacity_rate(unit, cluster()) == Approx(4 * 2 + 4 * 2 + 8));  // H100s weigh 2
  CHECK(capacity_rate(unit, cluster(NodeState::down)) == Approx(16));
  CHECK(capacity_rate(unit, cluster(NodeState::drain)) == Approx(16));
  CHECK(average_gpu_rate(unit, cluster()) == Approx(24.0 / 16));
  CHECK(schedulable_capacity(cluster(NodeState::down)).gpus == 8);

  RunningJob job;
  job.request = request("product", 2);
  job.nodes = {2};
  CHECK(running_rate(unit, cluster(), job) == Approx(2));  // on the A100 node
  job.nodes = {0, 1};
  CHECK(running_rate(unit, cluster(), job) == Approx(8));  // 2 GPUs on each of two H100 nodes
  job.nodes = {7};
  CHECK(running_rate(unit, cluster(), job) == 0);  // a node the inventory does not have costs nothing
  CHECK(request_rate(unit, request("product", 3, "H100"), "H100") == Approx(6));
}

TEST_CASE("a policy's ledger counts its unit over whole hours of its window", "[runtime][accounting]") {
  PolicyTables tables = company();
  tables.window = 2.4 * kHour;
  tables.half_life = 3600.0;
  const LedgerConfig config = ledger_config(tables, cluster());
  CHECK(config.window == 2 * kHour);
  CHECK(config.bucket_width == kHour);
  CHECK(config.half_life_seconds == 3600.0);
  CHECK(config.unit.gpu_type_weights.at("H100") == 2.0);
  tables.window = 60;
  CHECK(ledger_config(tables, cluster()).window == kHour);  // never less than one bucket
  CHECK(ledger_config(tables, cluster()) == ledger_config(tables, cluster()));
  CHECK_FALSE(ledger_config(tables, cluster()) == ledger_config(tables, cluster(NodeState::down)));
}

TEST_CASE("a policy's tree maps accounts to nodes both ways", "[runtime][accounting]") {
  const PolicyTables tables = company();
  auto tree = policy_tree(tables);
  REQUIRE(tree);
  for (std::size_t i = 0; i < tables.accounts.size(); ++i) {
    CHECK(tree->tree.node(tree->node_of[i]).path == tables.accounts[i].path);
    CHECK(tree->account_of[tree->node_of[i]] == static_cast<int>(i));
  }
  PolicyTables broken = tables;
  broken.accounts[3].path = "nowhere/ana";  // a parent the tree does not have
  CHECK_FALSE(policy_tree(broken));
}

TEST_CASE("the entitlement book keeps each leaf's debt per hour and lets it leave the window",
          "[runtime][accounting]") {
  const PolicyTables tables = company();
  auto created = EntitlementBook::create(tables);
  REQUIRE(created);
  EntitlementBook& book = *created;
  const std::size_t ana = *book.node_of("research/ana");
  const std::size_t product = *book.node_of("product");
  // Capacity 16 per hour: ana (12.5%) wants 4 and gets 1; product uses the rest.
  book.add_load(ana, 4, 1);
  book.add_load(product, 15, 15);
  const EntitlementReport& report = book.step(kNoon, kNoon + kHour, 16);
  CHECK(report.accounts[ana].owed == Approx(2));
  CHECK(report.accounts[ana].debt == Approx(1));
  const DebtHours added = book.last_step_debt();
  REQUIRE(added.size() == 1);
  CHECK(added.begin()->first == std::pair<std::string, Seconds>{"research/ana", kNoon / kHour});
  CHECK(added.begin()->second == Approx(1));
  CHECK(book.debt_in_window(kNoon + kHour - 1, 2 * kHour).at("research/ana") == Approx(1));

  // The next hour the same; then she is served and her debt ages out hour by hour.
  book.step(kNoon + kHour, kNoon + 2 * kHour, 16);
  book.add_load(ana, -4, -1);
  book.step(kNoon + 2 * kHour, kNoon + 3 * kHour, 16);
  CHECK(book.debt_in_window(kNoon + 2 * kHour - 1, 2 * kHour).at("research/ana") == Approx(2));
  CHECK(book.debt_in_window(kNoon + 2 * kHour + 60, 2 * kHour).at("research/ana") == Approx(1));
  CHECK(book.debt_in_window(kNoon + 3 * kHour, 2 * kHour).empty());
}

TEST_CASE("debt stored by an earlier process counts again, for the accounts the policy still has",
          "[runtime][accounting]") {
  const PolicyTables tables = company();
  auto book = EntitlementBook::create(tables);
  REQUIRE(book);
  const Seconds hour = kNoon / kHour;
  book->add_debt({{{"research/ana", hour - 1}, 0.5},
                  {{"research/ana", hour}, 0.25},
                  {{"research/ben", hour - 5}, 3.0},  // outside a two-hour window at noon
                  {{"gone/team", hour}, 7.0},         // an account the policy no longer has
                  {{"research", hour}, 1.0}});        // not a leaf: debt is kept per leaf
  const auto debt = book->debt_in_window(kNoon, 2 * kHour);
  REQUIRE(debt.size() == 1);
  CHECK(debt.at("research/ana") == Approx(0.75));
}

TEST_CASE("the book loads a cluster state: running jobs where they run, pending jobs as demand",
          "[runtime][accounting]") {
  const PolicyTables tables = company();
  auto book = EntitlementBook::create(tables);
  REQUIRE(book);
  ClusterState state;
  state.now = kNoon;
  state.inventory = cluster();
  RunningJob running;
  running.request = request("product", 8);
  running.nodes = {2};
  state.running = {running};
  state.pending = {request("research/ana", 4, "H100"), request("nobody/else", 8)};
  const UnitWeights unit = unit_weights(tables, state.inventory);
  book->load(state, unit);
  const EntitlementReport& report = book->step(kNoon - kHour, kNoon, capacity_rate(unit, state.inventory));
  const std::size_t ana = *book->node_of("research/ana");
  CHECK(report.accounts[ana].owed == Approx(0.125 * 24));  // her share of 24 unit-hours; she wanted 8
  CHECK(report.accounts[ana].debt == Approx(3));           // and got nothing
  CHECK(report.accounts[*book->node_of("product")].delivered == Approx(8));
}

TEST_CASE("governance notices: the dates that passed while a policy runs", "[accounting][governance]") {
  PolicyTables tables = company();
  const int december_1 = static_cast<int>(kNoon / 86400);
  tables.accounts[1].review = Date{december_1};      // product: due today
  tables.accounts[2].review = Date{december_1 - 1};  // research: due yesterday
  ExceptionInfo crunch;
  crunch.name = "crunch";
  crunch.to = 1;
  crunch.expires = static_cast<double>(kNoon - 12 * kHour);  // expires 2026-12-01: no longer applies today
  ExceptionInfo later;
  later.name = "later";
  later.to = 2;
  later.expires = static_cast<double>(kNoon + 12 * kHour);
  tables.exceptions = {crunch, later};

  const std::vector<GovernanceNotice> notices = governance_notices(tables, kNoon);
  REQUIRE(notices.size() == 2);
  CHECK(notices[0] == GovernanceNotice{"review_date_passed", "research", december_1 - 1,
                                       "review of `research` was due on 2026-11-30"});
  CHECK(notices[1] == GovernanceNotice{"exception_expired", "crunch", december_1,
                                       "exception `crunch` expired on 2026-12-01 and no longer applies"});
  // The notice and the runtime agree: what is said to have expired no longer applies.
  CHECK_FALSE(exception_in_force(crunch, kNoon));
  CHECK(exception_in_force(later, kNoon));
  // The next day the review due today has passed too, and `later` has expired.
  CHECK(governance_notices(tables, kNoon + 24 * kHour).size() == 4);
  // Before anything fell due, nothing is said.
  CHECK(governance_notices(tables, kNoon - 3 * 24 * kHour).empty());
}

TEST_CASE("a unit weight for a GPU type the cluster lacks is said only when it leaves a type of the cluster at 1.0",
          "[accounting]") {
  allot::runtime::Inventory inventory;
  inventory.gpu_types = {"h100", "a100"};
  allot::UnitInfo unit;
  unit.weights = {{"h100", 1.0}, {"a10O", 0.6}};  // misspelt: every A100 counts 1.0
  CHECK(allot::runtime::unit_types_missing(unit, inventory) ==
        std::vector<std::string>{"the unit weighs GPU type `a10O`, which the cluster does not have; did you mean "
                                 "`a100`? `a100` GPUs now count 1.0 per GPU-hour"});
  unit.weights = {{"h100", 1.0}, {"a100", 0.6}, {"b300", 2.0}};  // a fleet's policy on a cluster without B300s
  CHECK(allot::runtime::unit_types_missing(unit, inventory).empty());
  unit.weights = {{"h100", 1.0}, {"zzzz", 0.6}};  // nothing near: the type left at 1.0 is named
  CHECK(allot::runtime::unit_types_missing(unit, inventory) ==
        std::vector<std::string>{"the unit weighs GPU type `zzzz`, which the cluster does not have (its `a100` GPUs "
                                 "have no weight and count 1.0 per GPU-hour)"});
}
