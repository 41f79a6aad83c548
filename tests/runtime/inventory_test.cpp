// The cluster inventory: nodes from TOML, one by one or in groups, and an
// error that names the file, line, column and field for every bad input.
#include <catch2/catch.hpp>

#include <string>

#include "allot/inventory.h"

using allot::runtime::Inventory;
using allot::runtime::load_inventory;
using allot::runtime::NodeState;
using allot::runtime::parse_inventory;

namespace {

const std::string kExamples = std::string(ALLOT_SOURCE_DIR) + "/examples/clusters/";

// The error an inventory text produces, as an operator reads it.
std::string error_of(const std::string& text) {
  auto inventory = parse_inventory(text, "cluster.toml");
  return inventory ? std::string("no error") : inventory.error().to_string();
}

const std::string kGoodNode = R"(
[[node]]
name = "gpu-01"
gpu_type = "h100"
gpus = 8
cpus = 96
memory_gib = 1024
block = "rack-1"
)";

}  // namespace

TEST_CASE("the seed's eight-GPU company is one node of eight H100s", "[runtime][inventory]") {
  auto inventory = load_inventory(kExamples + "saas-8gpu.toml");
  REQUIRE(inventory);
  CHECK(inventory->name == "saas");
  REQUIRE(inventory->nodes.size() == 1);
  const auto& node = inventory->nodes[0];
  CHECK(node.name == "gpu-01");
  CHECK(inventory->gpu_types[static_cast<std::size_t>(node.gpu_type)] == "h100");
  CHECK(node.gpus == 8);
  CHECK(node.cpus == 96);
  CHECK(node.memory_gib == 1024);
  CHECK(inventory->blocks[static_cast<std::size_t>(node.block)] == "rack-1");
  CHECK(node.state == NodeState::up);
  CHECK(inventory->total_gpus() == 8);
}

TEST_CASE("the research cluster has 1,000 GPUs of four types in nine blocks", "[runtime][inventory]") {
  auto inventory = load_inventory(kExamples + "research-1000gpu.toml");
  REQUIRE(inventory);
  CHECK(inventory->nodes.size() == 125);
  CHECK(inventory->total_gpus() == 1000);
  CHECK(inventory->gpu_types == std::vector<std::string>{"h100", "a100", "l40s", "b300"});
  CHECK(inventory->gpus_of_type("h100") == 512);
  CHECK(inventory->gpus_of_type("a100") == 384);
  CHECK(inventory->gpus_of_type("l40s") == 96);
  CHECK(inventory->gpus_of_type("b300") == 8);
  CHECK(inventory->gpus_of_type("mi300") == 0);
  CHECK(inventory->blocks == std::vector<std::string>{"rack-h100-1", "rack-h100-2", "rack-h100-3", "rack-h100-4",
                                                      "rack-a100-1", "rack-a100-2", "rack-a100-3", "switch-l40s",
                                                      "rack-b300"});
  SECTION("group nodes are numbered and fill racks in order") {
    const auto& last_of_first_rack = inventory->nodes[*inventory->find_node("h100-16")];
    const auto& first_of_second_rack = inventory->nodes[*inventory->find_node("h100-17")];
    CHECK(inventory->blocks[static_cast<std::size_t>(last_of_first_rack.block)] == "rack-h100-1");
    CHECK(inventory->blocks[static_cast<std::size_t>(first_of_second_rack.block)] == "rack-h100-2");
  }
  SECTION("the draining node keeps its deadline and leaves schedulable capacity") {
    const auto& b300 = inventory->nodes[*inventory->find_node("b300-01")];
    CHECK(b300.state == NodeState::drain);
    CHECK(b300.drain_deadline.value_or(0) == 1796277600);  // 2026-12-03T06:00:00Z
    CHECK(inventory->schedulable_gpus() == 992);
  }
}

TEST_CASE("a group describes 10,000 identical nodes in a few lines", "[runtime][inventory]") {
  auto inventory = parse_inventory(R"(
[[group]]
prefix = "gpu-"
count = 10000
gpu_type = "h100"
gpus = 8
cpus = 112
memory_gib = 2048
nodes_per_block = 32
block_prefix = "rack-"
)",
                                   "big.toml");
  REQUIRE(inventory);
  CHECK(inventory->nodes.size() == 10000);
  CHECK(inventory->total_gpus() == 80000);
  CHECK(inventory->nodes.front().name == "gpu-00001");
  CHECK(inventory->nodes.back().name == "gpu-10000");
  CHECK(inventory->blocks.size() == 313);
  CHECK(inventory->blocks.back() == "rack-313");
}

TEST_CASE("a group can start numbering elsewhere and pad to a chosen width", "[runtime][inventory]") {
  auto inventory = parse_inventory(R"(
[[group]]
prefix = "node"
count = 3
first = 0
digits = 4
gpu_type = "a100"
gpus = 4
cpus = 32
memory_gib = 256.5
block = "switch-7"
state = "down"
)",
                                   "small.toml");
  REQUIRE(inventory);
  REQUIRE(inventory->nodes.size() == 3);
  CHECK(inventory->nodes[0].name == "node0000");
  CHECK(inventory->nodes[2].name == "node0002");
  CHECK(inventory->nodes[2].memory_gib == 256.5);
  CHECK(inventory->nodes[1].state == NodeState::down);
  CHECK(inventory->schedulable_gpus() == 0);
}

TEST_CASE("every bad inventory is an error naming the file, line, column and field", "[runtime][inventory]") {
  struct Case {
    const char* what;
    std::string text;
    std::string error;
  };
  const std::vector<Case> cases = {
      {"a field is missing", "[[node]]\nname = \"a\"\ngpu_type = \"h100\"\ncpus = 8\nmemory_gib = 64\nblock = \"r\"\n",
       "cluster.toml:1:1: node[0].gpus: missing field `gpus`"},
      {"a number is written as a string",
       "[[node]]\nname = \"a\"\ngpu_type = \"h100\"\ngpus = \"8\"\ncpus = 8\nmemory_gib = 64\nblock = \"r\"\n",
       "cluster.toml:4:8: node[0].gpus: `gpus` must be an integer, not a string"},
      {"a count is out of range",
       "[[node]]\nname = \"a\"\ngpu_type = \"h100\"\ngpus = 0\ncpus = 8\nmemory_gib = 64\nblock = \"r\"\n",
       "cluster.toml:4:8: node[0].gpus: `gpus` must be between 1 and 1024, not 0"},
      {"memory is not positive",
       "[[node]]\nname = \"a\"\ngpu_type = \"h100\"\ngpus = 8\ncpus = 8\nmemory_gib = -1\nblock = \"r\"\n",
       "cluster.toml:6:14: node[0].memory_gib: `memory_gib` must be greater than 0, not -1"},
      {"memory is infinite",
       "[[node]]\nname = \"a\"\ngpu_type = \"h100\"\ngpus = 8\ncpus = 8\nmemory_gib = inf\nblock = \"r\"\n",
       "cluster.toml:6:14: node[0].memory_gib: `memory_gib` must be a finite number, not inf"},
      {"a field name is misspelt", kGoodNode + "gpu_typ = \"h100\"\n",
       "cluster.toml:9:11: node[0].gpu_typ: unknown field `gpu_typ`; did you mean `gpu_type`?"},
      {"a state is unknown", kGoodNode + "state = \"drained\"\n",
       "cluster.toml:9:9: node[0].state: unknown state `drained`; expected `up`, `drain` or `down`"},
      {"a drain deadline is given to a node that is up", kGoodNode + "drain_deadline = 2026-12-03T06:00:00Z\n",
       "cluster.toml:9:18: node[0].drain_deadline: `drain_deadline` applies only to a node with `state = \"drain\"`"},
      {"a drain deadline has no time zone", kGoodNode + "state = \"drain\"\ndrain_deadline = 2026-12-03T06:00:00\n",
       "cluster.toml:10:18: node[0].drain_deadline: `drain_deadline` needs a UTC offset, e.g. 2026-12-02T06:00:00Z"},
      {"a node name is used twice", kGoodNode + kGoodNode,
       "cluster.toml:11:8: node[1].name: duplicate node name `gpu-01`; node names must be unique"},
      {"a node has no block", "[[node]]\nname = \"a\"\ngpu_type = \"h100\"\ngpus = 8\ncpus = 8\nmemory_gib = 64\n",
       "cluster.toml:1:1: node[0].block: missing field `block`; name the rack or switch the node hangs off, e.g. "
       "`block = \"rack-1\"`"},
      {"a group sets one block and blocks of n nodes",
       "[[group]]\nprefix = \"g\"\ncount = 4\ngpu_type = \"h100\"\ngpus = 8\ncpus = 8\nmemory_gib = 64\n"
       "block = \"r\"\nnodes_per_block = 2\nblock_prefix = \"r\"\n",
       "cluster.toml:9:19: group[0].nodes_per_block: set either `block` (one block for the group) or "
       "`nodes_per_block`, not both"},
      {"a group's count is negative",
       "[[group]]\nprefix = \"g\"\ncount = -4\ngpu_type = \"h100\"\ngpus = 8\ncpus = 8\nmemory_gib = 64\n"
       "block = \"r\"\n",
       "cluster.toml:3:9: group[0].count: `count` must be between 1 and 100000, not -4"},
      {"a group makes a name a node already has",
       kGoodNode + "[[group]]\nprefix = \"gpu-\"\ncount = 2\ndigits = 2\ngpu_type = \"h100\"\ngpus = 8\ncpus = 8\n"
                   "memory_gib = 64\nblock = \"r\"\n",
       "cluster.toml:10:10: group[0].prefix: group makes node `gpu-01`, which already exists; node names must be "
       "unique"},
      {"nodes are written as a single table", "[node]\nname = \"a\"\n",
       "cluster.toml:1:1: node: `node` must be a list of tables: write `[[node]]`"},
      {"a top-level table is unknown", "[cluster]\nname = \"x\"\n[[nodes]]\nname = \"a\"\n",
       "cluster.toml:3:1: nodes: unknown field `nodes`; did you mean `node`?"},
      {"a partition names a node the inventory lacks",
       kGoodNode + "[[partition]]\nname = \"p\"\nnodes = [\"gpu-02\"]\n",
       "cluster.toml:11:9: partition[0].nodes: node `gpu-02` is not in the inventory"},
      {"two partitions have one name",
       kGoodNode + "[[partition]]\nname = \"p\"\nnodes = []\n[[partition]]\nname = \"p\"\nnodes = []\n",
       "cluster.toml:13:8: partition[1].name: duplicate partition name `p`"},
      {"an advance reservation lists no nodes", kGoodNode + "[[advance_reservation]]\nname = \"maint\"\n",
       "cluster.toml:9:1: advance_reservation[0].nodes: missing field `nodes`"},
      {"there are no nodes", "[cluster]\nname = \"empty\"\n",
       "cluster.toml:1:1: the inventory has no nodes; add a `[[node]]` or `[[group]]` table"},
  };
  for (const Case& c : cases) {
    INFO(c.what);
    CHECK(error_of(c.text) == c.error);
  }
}

TEST_CASE("a TOML syntax error is reported with toml++'s reason and location", "[runtime][inventory]") {
  const std::string error = error_of("[[node]]\nname = \"a\ngpus = 8\n");
  CHECK(error.rfind("cluster.toml:2:", 0) == 0);
  CHECK(error.find("string") != std::string::npos);
}

TEST_CASE("a file that cannot be read is an error, not a crash", "[runtime][inventory]") {
  auto inventory = load_inventory("/nonexistent/cluster.toml");
  REQUIRE_FALSE(inventory);
  CHECK(inventory.error().to_string() == "/nonexistent/cluster.toml: cannot read the file: No such file or directory");
}
