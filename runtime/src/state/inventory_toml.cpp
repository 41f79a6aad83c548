// Reads the inventory TOML format (docs/STATE.md): `[cluster]`, `[[node]]`
// tables for individual machines and `[[group]]` tables for many identical
// ones. toml++ exceptions stop here; callers get an InventoryError value.
#include <algorithm>
#include <unordered_map>
#include <unordered_set>

#include <fmt/format.h>

#include "allot/inventory.h"

#include "allot/files.h"
#include "state/inventory_tables.h"

namespace allot::runtime {
namespace {

// A group is at most the whole inventory (kMaxInventoryNodes, allot/inventory.h:
// with at most 1024 GPUs a node, every GPU count of an inventory fits an int).
constexpr std::int64_t kMaxGroupNodes = kMaxInventoryNodes;

// What [[node]] and [[group]] have in common: the hardware and the state.
struct NodeShape {
  std::string gpu_type;
  int gpus = 0;
  int cpus = 0;
  double memory_gib = 0;
  NodeState state = NodeState::up;
  std::optional<Seconds> drain_deadline;
  std::vector<std::string> features;
};

NodeState read_state(FieldReader& fields) {
  const std::optional<std::string> text = fields.optional_text("state");
  if (!text || *text == "up") return NodeState::up;
  if (*text == "drain") return NodeState::drain;
  if (*text == "down") return NodeState::down;
  fields.fail("state", fmt::format("unknown state `{}`; expected `up`, `drain` or `down`", *text));
  return NodeState::up;
}

NodeShape read_shape(FieldReader& fields) {
  NodeShape shape;
  shape.gpu_type = fields.text("gpu_type");
  shape.gpus = static_cast<int>(fields.integer("gpus", 1, 1024));
  shape.cpus = static_cast<int>(fields.integer("cpus", 1, 1'000'000));
  shape.memory_gib = fields.positive_number("memory_gib");
  shape.state = read_state(fields);
  shape.drain_deadline = fields.optional_timestamp("drain_deadline");
  if (fields.has("features")) shape.features = fields.text_list("features");
  if (shape.drain_deadline && shape.state != NodeState::drain) {
    fields.fail("drain_deadline", "`drain_deadline` applies only to a node with `state = \"drain\"`");
  }
  return shape;
}

int decimal_digits(std::int64_t number) { return static_cast<int>(std::to_string(number).size()); }

// How a group's nodes map to blocks: all into `single`, or `per_block`
// consecutive nodes into each of prefix + "1", prefix + "2", ...
struct GroupBlocks {
  std::string single;
  std::string prefix;
  std::int64_t per_block = 1;

  std::string block_of(std::int64_t node) const {
    return single.empty() ? fmt::format("{}{}", prefix, node / per_block + 1) : single;
  }
};

GroupBlocks read_group_blocks(FieldReader& fields, std::int64_t count) {
  if (fields.has("block") && fields.has("nodes_per_block")) {
    fields.fail("nodes_per_block", "set either `block` (one block for the group) or `nodes_per_block`, not both");
  }
  if (fields.has("nodes_per_block")) {
    return GroupBlocks{"", fields.text("block_prefix"), fields.integer("nodes_per_block", 1, kMaxGroupNodes)};
  }
  if (!fields.has("block")) {
    fields.fail("block",
                "missing field `block`; name the group's rack or switch, or set `nodes_per_block` and `block_prefix`");
  }
  return GroupBlocks{fields.text("block"), "", count};
}

// Accumulates nodes, interning GPU type and block names.
class InventoryBuilder {
 public:
  explicit InventoryBuilder(const std::string& file) : file_(file) {}

  std::optional<InventoryError> add_node(const toml::table& table, std::size_t index);
  std::optional<InventoryError> add_group(const toml::table& table, std::size_t index);
  Inventory& inventory() { return inventory_; }

 private:
  int intern(std::vector<std::string>& names, std::unordered_map<std::string, int>& lookup, const std::string& name);
  Node make_node(std::string name, const NodeShape& shape, const std::string& block);
  // Adds the node unless its name is taken; false when it is.
  bool append_unique(Node node);

  const std::string& file_;
  Inventory inventory_;
  std::unordered_map<std::string, int> gpu_type_lookup_;
  std::unordered_map<std::string, int> block_lookup_;
  std::unordered_set<std::string> names_;
};

int InventoryBuilder::intern(std::vector<std::string>& names, std::unordered_map<std::string, int>& lookup,
                             const std::string& name) {
  const auto [it, inserted] = lookup.try_emplace(name, static_cast<int>(names.size()));
  if (inserted) names.push_back(name);
  return it->second;
}

bool InventoryBuilder::append_unique(Node node) {
  if (!names_.insert(node.name).second) return false;
  inventory_.nodes.push_back(std::move(node));
  return true;
}

Node InventoryBuilder::make_node(std::string name, const NodeShape& shape, const std::string& block) {
  Node node;
  node.name = std::move(name);
  node.gpu_type = intern(inventory_.gpu_types, gpu_type_lookup_, shape.gpu_type);
  node.gpus = shape.gpus;
  node.cpus = shape.cpus;
  node.memory_gib = shape.memory_gib;
  node.block = intern(inventory_.blocks, block_lookup_, block);
  node.state = shape.state;
  node.drain_deadline = shape.drain_deadline;
  node.features = shape.features;
  return node;
}

std::optional<InventoryError> InventoryBuilder::add_node(const toml::table& table, std::size_t index) {
  FieldReader fields(table, file_, fmt::format("node[{}]", index));
  fields.reject_unknown_keys(
      {"name", "gpu_type", "gpus", "cpus", "memory_gib", "block", "state", "drain_deadline", "features"});
  const std::string name = fields.text("name");
  const NodeShape shape = read_shape(fields);
  if (!fields.has("block")) {
    fields.fail("block",
                "missing field `block`; name the rack or switch the node hangs off, e.g. `block = \"rack-1\"`");
  }
  const std::string block = fields.text("block");
  if (fields.error()) return fields.error();
  if (!append_unique(make_node(name, shape, block))) {
    fields.fail("name", fmt::format("duplicate node name `{}`; node names must be unique", name));
  }
  return fields.error();
}

std::optional<InventoryError> InventoryBuilder::add_group(const toml::table& table, std::size_t index) {
  FieldReader fields(table, file_, fmt::format("group[{}]", index));
  fields.reject_unknown_keys({"prefix", "count", "first", "digits", "gpu_type", "gpus", "cpus", "memory_gib", "block",
                              "nodes_per_block", "block_prefix", "state", "drain_deadline", "features"});
  const std::string prefix = fields.text("prefix");
  const std::int64_t count = fields.integer("count", 1, kMaxGroupNodes);
  const std::int64_t first = fields.optional_integer("first", 0, kMaxGroupNodes).value_or(1);
  const int digits =
      static_cast<int>(fields.optional_integer("digits", 1, 9).value_or(decimal_digits(first + count - 1)));
  const NodeShape shape = read_shape(fields);
  const GroupBlocks blocks = read_group_blocks(fields, count);
  if (fields.error()) return fields.error();
  if (count > kMaxInventoryNodes - static_cast<std::int64_t>(inventory_.nodes.size())) {
    fields.fail("count", fmt::format("the group would make the inventory more than {} nodes", kMaxInventoryNodes));
    return fields.error();
  }
  for (std::int64_t i = 0; i < count; ++i) {
    const std::string name = fmt::format("{}{:0{}}", prefix, first + i, digits);
    if (!append_unique(make_node(name, shape, blocks.block_of(i)))) {
      fields.fail("prefix",
                  fmt::format("group makes node `{}`, which already exists; node names must be unique", name));
      return fields.error();
    }
  }
  return std::nullopt;
}

// The `key` entry of the document as an array of tables (`[[key]]`), or null.
const toml::array* tables_of(const toml::table& root, std::string_view key, FieldReader& top) {
  const toml::node* node = root.get(key);
  if (node == nullptr) return nullptr;
  if (!node->is_array_of_tables()) {
    top.fail(key, fmt::format("`{}` must be a list of tables: write `[[{}]]`", key, key));
    return nullptr;
  }
  return node->as_array();
}

std::string cluster_name(const toml::table& root, const std::string& file, FieldReader& top) {
  const toml::node* node = root.get("cluster");
  if (node == nullptr) return "cluster";
  if (!node->is_table()) {
    top.fail("cluster", "`cluster` must be a table: write `[cluster]`");
    return "cluster";
  }
  FieldReader fields(*node->as_table(), file, "cluster");
  fields.reject_unknown_keys({"name"});
  const std::string name = fields.optional_text("name").value_or("cluster");
  if (fields.error()) top.fail("cluster", fields.error()->message);
  return name;
}

// A `[[node]]` or `[[group]]` table and its position among its kind.
struct Entry {
  const toml::table* table;
  bool group;
  std::size_t index;
};

// Nodes and groups interleaved as the file lists them, so the inventory keeps the file's order.
std::vector<Entry> in_file_order(const toml::array* nodes, const toml::array* groups) {
  std::vector<Entry> entries;
  for (std::size_t i = 0; nodes && i < nodes->size(); ++i) entries.push_back({nodes->get(i)->as_table(), false, i});
  for (std::size_t i = 0; groups && i < groups->size(); ++i) entries.push_back({groups->get(i)->as_table(), true, i});
  std::stable_sort(entries.begin(), entries.end(),
                   [](const Entry& a, const Entry& b) { return a.table->source().begin < b.table->source().begin; });
  return entries;
}

using Failure = Unexpected<InventoryError>;

// `[[partition]]` or `[[advance_reservation]]` tables (`key`): a name and the
// nodes by name, each in the inventory, no name twice.
std::optional<InventoryError> read_node_sets(const toml::array* tables, std::string_view key, const std::string& file,
                                             Inventory& inventory, std::vector<NodeSet>& sets) {
  for (std::size_t i = 0; tables != nullptr && i < tables->size(); ++i) {
    FieldReader fields(*tables->get(i)->as_table(), file, fmt::format("{}[{}]", key, i));
    fields.reject_unknown_keys({"name", "nodes"});
    NodeSet set;
    set.name = fields.text("name");
    const std::vector<std::string> names = fields.text_list("nodes");
    if (fields.error()) return fields.error();
    if (std::any_of(sets.begin(), sets.end(), [&](const NodeSet& other) { return other.name == set.name; })) {
      fields.fail("name", fmt::format("duplicate {} name `{}`", key, set.name));
      return fields.error();
    }
    for (const std::string& name : names) {
      const auto node = inventory.find_node(name);
      if (!node) {
        fields.fail("nodes", fmt::format("node `{}` is not in the inventory", name));
        return fields.error();
      }
      set.nodes.push_back(static_cast<int>(*node));
    }
    std::sort(set.nodes.begin(), set.nodes.end());
    set.nodes.erase(std::unique(set.nodes.begin(), set.nodes.end()), set.nodes.end());
    sets.push_back(std::move(set));
  }
  return std::nullopt;
}

}  // namespace

Expected<Inventory, InventoryError> read_inventory_tables(const toml::table& root, const std::string& file) {
  FieldReader top(root, file, "");
  InventoryBuilder builder(file);
  builder.inventory().name = cluster_name(root, file, top);
  const toml::array* nodes = tables_of(root, "node", top);
  const toml::array* groups = tables_of(root, "group", top);
  const toml::array* partitions = tables_of(root, "partition", top);
  const toml::array* advance_reservations = tables_of(root, "advance_reservation", top);
  if (top.error()) return Failure{*top.error()};
  for (const Entry& entry : in_file_order(nodes, groups)) {
    auto error =
        entry.group ? builder.add_group(*entry.table, entry.index) : builder.add_node(*entry.table, entry.index);
    if (error) return Failure{*error};
  }
  if (builder.inventory().nodes.empty()) {
    return Failure{InventoryError{file, 1, "", "the inventory has no nodes; add a `[[node]]` or `[[group]]` table", 1}};
  }
  Inventory& inventory = builder.inventory();
  if (auto error = read_node_sets(partitions, "partition", file, inventory, inventory.partitions)) {
    return Failure{*error};
  }
  if (auto error = read_node_sets(advance_reservations, "advance_reservation", file, inventory,
                                  inventory.advance_reservations)) {
    return Failure{*error};
  }
  return std::move(inventory);
}

namespace {

Expected<Inventory, InventoryError> read_document(const toml::table& root, const std::string& file) {
  FieldReader top(root, file, "");
  top.reject_unknown_keys({"cluster", "node", "group", "partition", "advance_reservation"});
  if (top.error()) return Failure{*top.error()};
  return read_inventory_tables(root, file);
}

}  // namespace

Expected<Inventory, InventoryError> parse_inventory(std::string_view text, const std::string& source_name) {
  try {
    const toml::table root = toml::parse(text, source_name);
    return read_document(root, source_name);
  } catch (const toml::parse_error& error) {
    return Failure{located_error(error.source(), source_name, "", std::string(error.description()))};
  }
}

Expected<Inventory, InventoryError> load_inventory(const std::string& path) {
  // Bounded: a folder, FIFO or device is refused, a file over the limit is not read.
  auto contents = support::read_file(path, support::kMaxInventoryBytes);
  if (!contents) return Failure{InventoryError::cannot_read(path, contents.error().reason)};
  return parse_inventory(*contents, path);
}

}  // namespace allot::runtime
