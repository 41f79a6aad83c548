// Runs the ANTLR lexer and parser defensively: input size, UTF-8 validity and
// nesting depth are checked before or during the parse, and the parse stops at
// the first syntax error (one root cause, one diagnostic; bounded recovery).
#pragma once

#include <memory>
#include <string>

#include "../diagnostics.h"
#include "allot/files.h"
#include "allot/grammar/AllotLexer.h"
#include "allot/grammar/AllotParser.h"
#include "allot/policy.h"

namespace allot {

// Limits that keep any input, however hostile, cheap to reject.
inline constexpr std::size_t kMaxSourceBytes = support::kMaxPolicyBytes;
inline constexpr std::size_t kMaxRuleDepth = 200;
// Left-associative chains (`a + b + c ...`) nest in the tree without nesting in
// the parser; every later pass recurses over the tree, so its depth is bounded too.
inline constexpr std::size_t kMaxTreeDepth = 400;
// Levels of the budget tree: allot::kMaxTreeLevels (allot/policy.h). Checked
// while parsing, so no later pass over the tree (checker, lowering, formatter)
// nests deeper.

// Owns everything ANTLR allocated for one file. `root` is null when the file
// has a syntax error (already reported).
struct ParsedTree {
  FileId file = 0;
  std::unique_ptr<antlr4::ANTLRInputStream> input;
  std::unique_ptr<grammar::AllotLexer> lexer;
  std::unique_ptr<antlr4::CommonTokenStream> tokens;
  std::unique_ptr<grammar::AllotParser> parser;
  grammar::AllotParser::FileContext* root = nullptr;
};

// Parses one file's text, reporting at most one syntax diagnostic.
std::unique_ptr<ParsedTree> parse_tree(FileId file, const std::string& text, DiagnosticSink& diagnostics);

// The span of a token / a rule context in `file`.
Span token_span(FileId file, const antlr4::Token* token);
Span context_span(FileId file, antlr4::ParserRuleContext* context);

// Returns the byte offset of the first malformed UTF-8 sequence, or npos.
std::size_t find_invalid_utf8(const std::string& text);

}  // namespace allot
