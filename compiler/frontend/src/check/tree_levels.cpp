#include "tree_levels.h"

namespace allot {

std::optional<ast::ShareForm> set_form(const TreeIndex& index, int parent) {
  for (int child : index.children_of(parent)) {
    if (!uses_parent(index.nodes()[child])) return index.nodes()[child].node->share_form;
  }
  return std::nullopt;
}

int fairshare_parent(const TreeIndex& index, int node) {
  int parent = index.nodes()[node].parent;
  while (parent != kTreeRoot && uses_parent(index.nodes()[parent])) parent = index.nodes()[parent].parent;
  return parent;
}

std::vector<int> level_members(const TreeIndex& index, int owner) {
  std::vector<int> members;
  const auto& top = index.children_of(owner);
  std::vector<int> stack(top.rbegin(), top.rend());
  while (!stack.empty()) {
    const int node = stack.back();
    stack.pop_back();
    if (!uses_parent(index.nodes()[node])) {
      members.push_back(node);
      continue;
    }
    const auto& children = index.children_of(node);
    stack.insert(stack.end(), children.rbegin(), children.rend());
  }
  return members;
}

double raw_share(const ast::TreeNode& node) {
  switch (node.share_form) {
    case ast::ShareForm::percent:
      return node.percent;
    case ast::ShareForm::raw:
      return node.raw_shares;
    case ast::ShareForm::parent:
      return 0;
  }
  return 0;
}

}  // namespace allot
