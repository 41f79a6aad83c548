#include "tree_index.h"

#include <fmt/format.h>

#include <algorithm>

#include "suggest.h"

namespace allot {

// Depth first without recursion, so a hostile tree cannot exhaust the stack
// (the parser already stops at kMaxTreeLevels; an AST built otherwise may not).
TreeIndex::TreeIndex(const ast::TreeDecl& tree) {
  struct Pending {
    const ast::TreeNode* node;
    int parent;
  };
  std::vector<Pending> stack;
  for (auto program = tree.programs.rbegin(); program != tree.programs.rend(); ++program) {
    stack.push_back({&*program, kTreeRoot});
  }
  while (!stack.empty()) {
    const auto [node, parent] = stack.back();
    stack.pop_back();
    const int index = static_cast<int>(nodes_.size());
    IndexedNode entry{node, node->name, parent, 0, {}};
    if (parent != kTreeRoot) {
      entry.path = nodes_[parent].path + "/" + node->name;
      entry.depth = nodes_[parent].depth + 1;
    }
    (parent == kTreeRoot ? programs_ : nodes_[parent].children).push_back(index);
    by_path_.emplace(entry.path, index);
    by_name_[node->name].push_back(index);
    nodes_.push_back(std::move(entry));
    for (auto child = node->children.rbegin(); child != node->children.rend(); ++child) {
      stack.push_back({&*child, index});
    }
  }
}

const std::vector<int>& TreeIndex::children_of(int parent) const {
  return parent == kTreeRoot ? programs_ : nodes_[parent].children;
}

NodeLookup TreeIndex::lookup(const ast::NodePath& path) const {
  if (path.parts.size() > 1) {
    auto found = by_path_.find(path.joined());
    if (found == by_path_.end()) return {};
    return {NodeLookup::Status::found, found->second, {}};
  }
  auto named = by_name_.find(path.parts.empty() ? "" : path.parts.front());
  if (named == by_name_.end()) return {};
  if (named->second.size() > 1) return {NodeLookup::Status::ambiguous, kTreeRoot, named->second};
  return {NodeLookup::Status::found, named->second.front(), {}};
}

std::vector<std::string> TreeIndex::paths() const {
  std::vector<std::string> result;
  for (const auto& node : nodes_) result.push_back(node.path);
  return result;
}

namespace {

std::vector<std::string> bare_names(const TreeIndex& index) {
  std::vector<std::string> names;
  for (const auto& node : index.nodes()) {
    if (std::find(names.begin(), names.end(), node.node->name) == names.end()) names.push_back(node.node->name);
  }
  return names;
}

// "did you mean", or where a node of the same last name really is.
std::string unknown_help(const TreeIndex& index, const ast::NodePath& path) {
  const std::string written = path.joined();
  if (path.parts.size() == 1) return suggest(written, bare_names(index));
  if (std::string close = closest_name(written, index.paths()); !close.empty()) {
    return fmt::format("did you mean `{}`?", close);
  }
  const ast::NodePath last{{path.parts.back()}, path.span};
  if (NodeLookup lookup = index.lookup(last); lookup.status == NodeLookup::Status::found) {
    return fmt::format("`{}` is at `{}`", path.parts.back(), index.nodes()[lookup.node].path);
  }
  if (std::string help = suggest(written, index.paths()); !help.empty()) return help;
  return "write the node's path from its program, such as `exploration/ana`";
}

std::string quoted_paths(const TreeIndex& index, const std::vector<int>& nodes) {
  std::string text;
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    if (i > 0) text += i + 1 == nodes.size() ? " or " : ", ";
    text += "`" + index.nodes()[nodes[i]].path + "`";
  }
  return text;
}

}  // namespace

std::optional<int> resolve_node(const TreeIndex& index, const ast::NodePath& path, const CheckContext& context) {
  const NodeLookup lookup = index.lookup(path);
  const std::string written = path.joined();
  switch (lookup.status) {
    case NodeLookup::Status::found:
      return lookup.node;
    case NodeLookup::Status::ambiguous: {
      auto diagnostic =
          context.diagnostics.error(DiagnosticCode::ambiguous_name, path.span,
                                    fmt::format("`{}` names {} nodes of the tree", written, lookup.candidates.size()));
      for (int candidate : lookup.candidates) {
        diagnostic.note(fmt::format("`{}` is here", index.nodes()[candidate].path),
                        index.nodes()[candidate].node->name_span);
      }
      diagnostic.help(fmt::format("write the full path: {}", quoted_paths(index, lookup.candidates)));
      return std::nullopt;
    }
    case NodeLookup::Status::unknown:
      context.diagnostics
          .error(DiagnosticCode::unknown_name, path.span, fmt::format("no node `{}` in the budget tree", written))
          .help(unknown_help(index, path));
      return std::nullopt;
  }
  return std::nullopt;
}

}  // namespace allot
