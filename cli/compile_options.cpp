// compile_options, read_cluster_facts and cluster_facts (commands.h): what the full binary
// adds to the lint binary's inputs (lint.h): how a policy is compiled, and the
// cluster `allot check --cluster` checks against.
#include <iostream>

#include "allot/inventory.h"
#include "commands.h"

namespace allot::cli {

CompileOptions compile_options(const std::string& engine) {
  CompileOptions options;
  options.engine = engine == "interp" ? Engine::interpreter : Engine::jit;
  options.check.import_path = import_path();
  return options;
}

std::optional<int> read_cluster_facts(const std::string& path, std::optional<ClusterFacts>& facts) {
  auto inventory = runtime::load_inventory(path);
  if (!inventory) {
    std::cerr << "allot: " << inventory.error().to_string() << '\n';
    return inventory.error().unreadable ? 2 : 1;
  }
  facts = cluster_facts(*inventory, path);
  return std::nullopt;
}

ClusterFacts cluster_facts(const runtime::Inventory& inventory, const std::string& file) {
  ClusterFacts cluster;
  cluster.file = file;
  cluster.gpu_types = inventory.gpu_types;
  cluster.nodes = static_cast<int>(inventory.nodes.size());
  cluster.total_gpus = inventory.total_gpus();
  return cluster;
}

}  // namespace allot::cli
