// Lowering of the budget tree into AccountInfo rows (the runtime's contract,
// compiler/abi/include/allot/policy.h): each row's share of its direct parent,
// raw_shares, use_parent, percent_shares, depth and leaf, for every share form
// and for `share parent` at one and at two levels. Table-driven: each case is
// a tree and the exact row expected for every node, in depth-first order.
#include <string>
#include <vector>

#include "ir_test_support.h"

namespace allot::ir_test {
namespace {

// A program that answers for its share, so the policy checks clean.
std::string program(const std::string& head, const std::string& body) {
  return head + " {\n  owner \"lead@example.com\"  review 2027-01-31  hypothesis \"h\"\n  " + body + "\n}\n";
}

std::string policy_around(const std::string& tree) {
  return "policy t {\n unit gpu_hours { h100 = 1.0 }\n window 7d\n tree {\n" + tree +
         "\n }\n class debug { max_gpus 1  max_runtime 15m  protect 15m  resumable }\n rank = account.share / 1%\n}\n";
}

struct Row {
  std::string path;
  double share;
  double raw_shares;
  bool use_parent;
  bool percent_shares;
  int depth;
  bool leaf;
};

struct Case {
  const char* name;
  std::string tree;
  std::vector<Row> rows;  // every account after the root, in order
};

// A chain of `levels` nodes, each `project lN 100%` inside the one before,
// ending in a user: programs are level 1.
std::string chain(int levels) {
  std::string text = "l1 100% {\n  owner \"lead@example.com\"  review 2027-01-31  hypothesis \"h\"\n";
  for (int level = 2; level < levels; ++level) text += "project l" + std::to_string(level) + " 100% {\n";
  text += "user l" + std::to_string(levels) + " 100%\n";
  for (int level = 1; level < levels; ++level) text += "}\n";
  return text;
}

std::vector<Row> chain_rows(int levels) {
  std::vector<Row> rows;
  std::string path;
  for (int level = 1; level <= levels; ++level) {
    path += (level == 1 ? "l" : "/l") + std::to_string(level);
    rows.push_back({path, 1.0, 100, false, true, level, level == levels});
  }
  return rows;
}

void run(const std::vector<Case>& cases) {
  for (const auto& c : cases) {
    DYNAMIC_SECTION(c.name) {
      const std::string text = policy_around(c.tree);
      INFO(text);
      const auto policy = lower_source(text);
      INFO(ir::print(policy));
      const auto& accounts = policy.tables.accounts;
      REQUIRE(accounts.size() == c.rows.size() + 1);
      CHECK(accounts[0].path.empty());
      CHECK(accounts[0].depth == 0);
      for (std::size_t i = 0; i < c.rows.size(); ++i) {
        const Row& row = c.rows[i];
        const AccountInfo& account = accounts[i + 1];
        INFO(row.path);
        CHECK(account.path == row.path);
        CHECK(account.share == Approx(row.share).margin(1e-12));
        CHECK(account.raw_shares == row.raw_shares);
        CHECK(account.use_parent == row.use_parent);
        CHECK(account.percent_shares == row.percent_shares);
        CHECK(account.depth == row.depth);
        CHECK(account.leaf == row.leaf);
      }
    }
  }
}

}  // namespace

TEST_CASE("percentages and raw shares lower to fractions of the direct parent", "[ir][lower][tree]") {
  run({
      {"percentages, as before",
       program("a 60%", "user x 25%  user y 75%") + program("b 40%", ""),
       {{"a", 0.6, 60, false, true, 1, false},
        {"a/x", 0.25, 25, false, true, 2, true},
        {"a/y", 0.75, 75, false, true, 2, true},
        {"b", 0.4, 40, false, true, 1, true}}},
      {"0% is a share of nothing",
       program("a 100%", "user x 100%  user y 0%") + program("b 0%", ""),
       {{"a", 1.0, 100, false, true, 1, false},
        {"a/x", 1.0, 100, false, true, 2, true},
        {"a/y", 0.0, 0, false, true, 2, true},
        {"b", 0.0, 0, false, true, 1, true}}},
      {"raw shares are normalised among their siblings",
       program("org 100%", "project div1 shares 30 { user u1 shares 1  user u2 shares 3 }  project div2 shares 10"),
       {{"org", 1.0, 100, false, true, 1, false},
        {"org/div1", 0.75, 30, false, false, 2, false},
        {"org/div1/u1", 0.25, 1, false, false, 3, true},
        {"org/div1/u2", 0.75, 3, false, false, 3, true},
        {"org/div2", 0.25, 10, false, false, 2, true}}},
      {"raw programs",
       program("a shares 1", "") + program("b shares 3", ""),
       {{"a", 0.25, 1, false, false, 1, true}, {"b", 0.75, 3, false, false, 1, true}}},
      {"a raw set whose shares are all 0",
       program("org 100%", "user a shares 0  user b shares 0"),
       {{"org", 1.0, 100, false, true, 1, false},
        {"org/a", 0.0, 0, false, false, 2, true},
        {"org/b", 0.0, 0, false, false, 2, true}}},
      {"projects and users mixed under one node, three deep",
       program("g 100%", "user a 50%  project b 50% { project c 40% { user d 100% }  user e 60% }"),
       {{"g", 1.0, 100, false, true, 1, false},
        {"g/a", 0.5, 50, false, true, 2, true},
        {"g/b", 0.5, 50, false, true, 2, false},
        {"g/b/c", 0.4, 40, false, true, 3, false},
        {"g/b/c/d", 1.0, 100, false, true, 4, true},
        {"g/b/e", 0.6, 60, false, true, 3, true}}},
      {"ten levels", chain(10), chain_rows(10)},
      {"sixty-four levels, the limit", chain(64), chain_rows(64)},
  });
}

TEST_CASE("share parent: children compete at the fair-share parent's level", "[ir][lower][tree]") {
  run({
      // levelsum(org) = 60 + 50 + 50 = 160: p holds (50 + 50) / 160, each child half of p.
      // levelsum(org) = a 60 + c1 50 + c2 30 = 140: `a` holds 60 / 140, as Slurm's NormShares,
      // so the level holds exactly its parent.
      {"one level of share parent in a raw set",
       program("org 100%", "project a shares 60  project p share parent { user c1 shares 50  user c2 shares 30 }"),
       {{"org", 1.0, 100, false, true, 1, false},
        {"org/a", 60.0 / 140.0, 60, false, false, 2, true},
        {"org/p", 80.0 / 140.0, 0, true, false, 2, false},
        {"org/p/c1", 50.0 / 80.0, 50, false, false, 3, true},
        {"org/p/c2", 30.0 / 80.0, 30, false, false, 3, true}}},
      // Percentage points count as raw shares at the level: levelsum(g) = 60 + 50 + 50.
      {"one level of share parent in a percentage set",
       program("g 100%", "project a 60%  project p share parent { user c1 50%  user c2 50% }  unallocated 40%"),
       {{"g", 1.0, 100, false, true, 1, false},
        {"g/a", 60.0 / 160.0, 60, false, true, 2, true},
        {"g/p", 100.0 / 160.0, 0, true, true, 2, false},
        {"g/p/c1", 0.5, 50, false, true, 3, true},
        {"g/p/c2", 0.5, 50, false, true, 3, true}}},
      // levelsum(g) = d 2 + e 6 + f 8 = 16. F(q) = 2/16, F(p) = 2/16 + 6/16 = 8/16.
      {"share parent inside share parent",
       program("g 100%",
               "project p share parent { project q share parent { user d shares 2 }  user e shares 6 }  "
               "user f shares 8"),
       {{"g", 1.0, 100, false, true, 1, false},
        {"g/p", 0.5, 0, true, false, 2, false},
        {"g/p/q", 0.25, 0, true, false, 3, false},
        {"g/p/q/d", 1.0, 2, false, false, 4, true},
        {"g/p/e", 0.75, 6, false, false, 3, true},
        {"g/f", 0.5, 8, false, false, 2, true}}},
      // levelsum(root) = q 100 + c1 50 + c2 50 = 200.
      {"a share parent program",
       program("q 100%", "") + program("p share parent", "user c1 50%  user c2 50%"),
       {{"q", 0.5, 100, false, true, 1, true},
        {"p", 0.5, 0, true, true, 1, false},
        {"p/c1", 0.5, 50, false, true, 2, true},
        {"p/c2", 0.5, 50, false, true, 2, true}}},
      {"share parent whose children have no shares",
       program("g 100%", "user a shares 5  project p share parent { user c shares 0 }"),
       {{"g", 1.0, 100, false, true, 1, false},
        {"g/a", 1.0, 5, false, false, 2, true},
        {"g/p", 0.0, 0, true, false, 2, false},
        {"g/p/c", 0.0, 0, false, false, 3, true}}},
      {"a share parent user holds nothing of its own",
       program("g 100%", "user a shares 10  user b share parent"),
       {{"g", 1.0, 100, false, true, 1, false},
        {"g/a", 1.0, 10, false, false, 2, true},
        {"g/b", 0.0, 0, true, false, 2, true}}},
  });
}

TEST_CASE("the product of shares down a share parent path is the member's level fraction", "[ir][lower][tree]") {
  const std::string text =
      policy_around(program("g 100%",
                            "project p share parent { project q share parent { user d shares 2  user x shares 4 }  "
                            "user e shares 6 }  user f shares 8"));
  const auto accounts = lower_source(text).tables.accounts;
  // levelsum(g) = 2 + 4 + 6 + 8 = 20: each member's product is its raw / 20.
  const auto of_cluster = [&](std::size_t i) {
    double product = 1;
    for (int node = static_cast<int>(i); node > 0; node = accounts[node].parent) product *= accounts[node].share;
    return product;
  };
  for (std::size_t i = 0; i < accounts.size(); ++i) {
    INFO(accounts[i].path);
    if (accounts[i].path == "g/p/q/d") CHECK(of_cluster(i) == Approx(2.0 / 20));
    if (accounts[i].path == "g/p/q/x") CHECK(of_cluster(i) == Approx(4.0 / 20));
    if (accounts[i].path == "g/p/e") CHECK(of_cluster(i) == Approx(6.0 / 20));
    if (accounts[i].path == "g/p") CHECK(of_cluster(i) == Approx(12.0 / 20));
    if (accounts[i].path == "g/f") CHECK(of_cluster(i) == Approx(8.0 / 20));
  }
}

}  // namespace allot::ir_test
