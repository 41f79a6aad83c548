// find_declaration (allot/frontend.h): a name's declaration for an editor,
// from the loaded program (the policy and its imports), not from text search.
#include "../load/loader.h"
#include "allot/frontend.h"

namespace allot {
namespace {

std::optional<Span> in_tree(const std::vector<ast::TreeNode>& nodes, const std::string& name) {
  for (const auto& node : nodes) {
    if (node.name == name) return node.name_span;
    if (auto found = in_tree(node.children, name)) return found;
  }
  return std::nullopt;
}

std::optional<Span> in_module(const ast::Module& module, const std::string& name) {
  for (const auto& policy : module.policies) {
    for (const auto& decl : policy.functions) {
      if (decl.name == name) return decl.name_span;
    }
    for (const auto& decl : policy.classes) {
      if (decl.name == name) return decl.name_span;
    }
    for (const auto& decl : policy.exceptions) {
      if (decl.name == name) return decl.name_span;
    }
    for (const auto& tree : policy.trees) {
      if (auto found = in_tree(tree.programs, name)) return found;
    }
  }
  for (const auto& decl : module.functions) {
    if (decl.name == name) return decl.name_span;
  }
  for (const auto& decl : module.classes) {
    if (decl.name == name) return decl.name_span;
  }
  return std::nullopt;
}

}  // namespace

std::optional<SourceSpan> find_declaration(const std::string& path, const std::string& text, const std::string& name,
                                           const CheckOptions& options) {
  SourceManager sources;
  DiagnosticSink ignored(sources);
  const Program program = load_program(path, &text, sources, ignored, options);
  for (const auto& module : program.modules) {
    if (auto found = in_module(module, name)) return sources.resolve(*found);
  }
  return std::nullopt;
}

}  // namespace allot
