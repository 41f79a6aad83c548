#include "allot/inventory.h"
#include "allot/text.h"

#include <algorithm>

#include <fmt/format.h>

namespace allot::runtime {

const char* node_state_name(NodeState state) {
  switch (state) {
    case NodeState::up:
      return "up";
    case NodeState::drain:
      return "drain";
    case NodeState::down:
      return "down";
  }
  return "up";
}

int Inventory::total_gpus() const {
  int total = 0;
  for (const Node& node : nodes) total += node.gpus;
  return total;
}

int Inventory::schedulable_gpus() const {
  int total = 0;
  for (const Node& node : nodes) total += node.state == NodeState::up ? node.gpus : 0;
  return total;
}

int Inventory::gpus_of_type(std::string_view gpu_type) const {
  const auto it = std::find(gpu_types.begin(), gpu_types.end(), gpu_type);
  if (it == gpu_types.end()) return 0;
  const int type = static_cast<int>(it - gpu_types.begin());
  int total = 0;
  for (const Node& node : nodes) total += node.gpu_type == type ? node.gpus : 0;
  return total;
}

std::optional<std::size_t> Inventory::find_node(std::string_view name) const {
  const auto it = std::find_if(nodes.begin(), nodes.end(), [&](const Node& node) { return node.name == name; });
  if (it == nodes.end()) return std::nullopt;
  return static_cast<std::size_t>(it - nodes.begin());
}

}  // namespace allot::runtime
