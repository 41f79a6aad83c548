// Where each pending job may run: the nodes of its partitions that have its
// features, within its node list, outside its exclusions, inside its advance
// reservation or outside every one (JobRequest, docs/STATE.md "Where a job may
// run"). One mask per distinct set of constraints, shared by the jobs that ask
// the same; a job without constraints on an inventory without advance
// reservations needs none (kEveryNode).
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "allot/cluster_state.h"
#include "placement.h"

namespace allot::runtime::cycle {

// Where one job may run.
struct Eligibility {
  int node_set = kEveryNode;
  const std::vector<char>* mask = nullptr;  // one flag per node; null for every node
  std::string problem;                      // why it may run nowhere (an unknown partition...); empty otherwise
};

class NodeSets {
 public:
  explicit NodeSets(const Inventory& inventory);

  // The nodes `job` may run on; masks live as long as this object.
  Eligibility resolve(const JobRequest& job);

 private:
  struct Known {
    int id = kEveryNode;
    std::string problem;
  };
  Known build(const JobRequest& job);

  const Inventory& inventory_;
  std::vector<char> reserved_;  // nodes some advance reservation holds
  bool any_reserved_ = false;
  std::vector<std::unique_ptr<std::vector<char>>> masks_;
  std::map<std::string, Known> by_constraints_;
};

}  // namespace allot::runtime::cycle
