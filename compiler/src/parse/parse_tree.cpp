#include "parse_tree.h"

#include <fmt/format.h>

#include <algorithm>

namespace allot {
namespace {

using grammar::AllotLexer;
using grammar::AllotParser;

// Thrown by the listeners below to stop ANTLR at the first problem; it never
// leaves parse_tree().
struct StopParsing {};

// Words for the token kinds people see in "expected ..." messages.
std::string describe_token_type(const antlr4::dfa::Vocabulary& vocabulary, std::size_t type) {
  switch (type) {
    case antlr4::Token::EOF:
      return "end of file";
    case AllotLexer::IDENT:
      return "a name";
    case AllotLexer::NUMBER:
      return "a number";
    case AllotLexer::DURATION:
      return "a duration like `15m`";
    case AllotLexer::PERCENT:
      return "a percentage like `40%`";
    case AllotLexer::DATE:
      return "a date like `2026-12-31`";
    case AllotLexer::STRING:
      return "a string";
    default:
      break;
  }
  std::string literal = vocabulary.getLiteralName(type);
  if (literal.size() >= 2 && literal.front() == '\'') literal = literal.substr(1, literal.size() - 2);
  return "`" + literal + "`";
}

std::string describe_found(const antlr4::Token* token) {
  if (token == nullptr || token->getType() == antlr4::Token::EOF) return "end of file";
  std::string text = token->getText();
  if (text.size() > 40) text = text.substr(0, 40) + "...";
  return "`" + text + "`";
}

// Which token kinds would have been accepted, as one short phrase.
std::string describe_expected(const antlr4::dfa::Vocabulary& vocabulary, const antlr4::misc::IntervalSet& expected) {
  std::vector<std::string> words;
  for (std::size_t type : expected.toList()) words.push_back(describe_token_type(vocabulary, type));
  if (words.empty()) return "";
  if (words.size() > 12) return "an expression or a declaration";
  std::string phrase = words[0];
  for (std::size_t i = 1; i < words.size(); ++i) phrase += (i + 1 == words.size() ? " or " : ", ") + words[i];
  return phrase;
}

std::string first_code_point(const std::string& text) {
  std::size_t length = text.empty() ? 0 : 1;
  while (length < text.size() && (static_cast<unsigned char>(text[length]) & 0xC0) == 0x80) ++length;
  return text.substr(0, length);
}

class LexerErrors : public antlr4::BaseErrorListener {
 public:
  LexerErrors(FileId file, DiagnosticSink& diagnostics) : file_(file), diagnostics_(diagnostics) {}
  void syntaxError(antlr4::Recognizer*, antlr4::Token*, std::size_t line, std::size_t column,
                   const std::string& message, std::exception_ptr) override {
    Position begin{static_cast<int>(line), static_cast<int>(column) + 1};
    std::string found = message.substr(std::min(message.size(), message.find("at: ") + 4));
    if (found.size() >= 2 && found.front() == '\'' && found.back() == '\'') found = found.substr(1, found.size() - 2);
    const Span span{file_, begin, {begin.line, begin.column + 1}};
    if (found.starts_with("\"")) {
      diagnostics_.error("syntax_error", span, "unterminated string").help("a string ends with `\"` on the same line");
    } else {
      diagnostics_.error("syntax_error", span, fmt::format("unexpected character `{}`", first_code_point(found)));
    }
    throw StopParsing{};
  }

 private:
  FileId file_;
  DiagnosticSink& diagnostics_;
};

class ParserErrors : public antlr4::BaseErrorListener {
 public:
  ParserErrors(FileId file, DiagnosticSink& diagnostics) : file_(file), diagnostics_(diagnostics) {}
  void syntaxError(antlr4::Recognizer* recognizer, antlr4::Token* offending, std::size_t, std::size_t,
                   const std::string&, std::exception_ptr) override {
    if (offending != nullptr && offending->getType() == AllotLexer::UNTERMINATED_COMMENT) {
      diagnostics_.error("syntax_error", token_span(file_, offending), "unterminated block comment")
          .help("close the comment with `*/`");
      throw StopParsing{};
    }
    auto* parser = static_cast<antlr4::Parser*>(recognizer);
    std::string expected = describe_expected(parser->getVocabulary(), parser->getExpectedTokens());
    std::string message = fmt::format("unexpected {}", describe_found(offending));
    if (!expected.empty()) message += fmt::format(", expected {}", expected);
    diagnostics_.error("syntax_error", token_span(file_, offending), message);
    throw StopParsing{};
  }

 private:
  FileId file_;
  DiagnosticSink& diagnostics_;
};

// Stops the parse when rules nest deeper than kMaxRuleDepth, which bounds the
// parser's stack use (ANTLR parsers are recursive descent).
class DepthLimit : public antlr4::tree::ParseTreeListener {
 public:
  DepthLimit(FileId file, DiagnosticSink& diagnostics) : file_(file), diagnostics_(diagnostics) {}
  void enterEveryRule(antlr4::ParserRuleContext* context) override {
    if (++depth_ <= kMaxRuleDepth) return;
    diagnostics_.error("nesting_too_deep", token_span(file_, context->getStart()), "expression nests too deeply")
        .note(fmt::format("the parser accepts at most {} nested rules", kMaxRuleDepth))
        .help("split the expression into functions or `let` bindings");
    throw StopParsing{};
  }
  void exitEveryRule(antlr4::ParserRuleContext*) override { --depth_; }
  void visitTerminal(antlr4::tree::TerminalNode*) override {}
  void visitErrorNode(antlr4::tree::ErrorNode*) override {}

 private:
  FileId file_;
  DiagnosticSink& diagnostics_;
  std::size_t depth_ = 0;
};

int code_point_length(const std::string& text) {
  return static_cast<int>(std::count_if(text.begin(), text.end(), [](char c) { return (c & 0xC0) != 0x80; }));
}

}  // namespace

std::size_t find_invalid_utf8(const std::string& text) {
  const auto* bytes = reinterpret_cast<const unsigned char*>(text.data());
  const std::size_t size = text.size();
  std::size_t i = 0;
  while (i < size) {
    const unsigned char lead = bytes[i];
    std::size_t length = 0;
    std::uint32_t code = 0;
    if (lead < 0x80) {
      ++i;
      continue;
    }
    if ((lead & 0xE0) == 0xC0) {
      length = 2;
      code = lead & 0x1F;
    } else if ((lead & 0xF0) == 0xE0) {
      length = 3;
      code = lead & 0x0F;
    } else if ((lead & 0xF8) == 0xF0) {
      length = 4;
      code = lead & 0x07;
    } else
      return i;
    if (i + length > size) return i;
    for (std::size_t k = 1; k < length; ++k) {
      if ((bytes[i + k] & 0xC0) != 0x80) return i;
      code = (code << 6) | (bytes[i + k] & 0x3F);
    }
    static constexpr std::uint32_t smallest[] = {0, 0, 0x80, 0x800, 0x10000};
    if (code < smallest[length] || code > 0x10FFFF || (code >= 0xD800 && code <= 0xDFFF)) return i;
    i += length;
  }
  return std::string::npos;
}

Span token_span(FileId file, const antlr4::Token* token) {
  if (token == nullptr) return {file, {1, 1}, {1, 1}};
  const int line = static_cast<int>(token->getLine());
  const int column = static_cast<int>(token->getCharPositionInLine()) + 1;
  const int length = token->getType() == antlr4::Token::EOF ? 1 : std::max(1, code_point_length(token->getText()));
  return {file, {line, column}, {line, column + length}};
}

Span context_span(FileId file, antlr4::ParserRuleContext* context) {
  Span begin = token_span(file, context->getStart());
  const antlr4::Token* stop = context->getStop();
  // An empty rule (stop before start) has no extent of its own.
  if (stop == nullptr || stop->getTokenIndex() < context->getStart()->getTokenIndex()) return begin;
  return {file, begin.begin, token_span(file, stop).end};
}

std::unique_ptr<ParsedTree> parse_tree(FileId file, const std::string& text, DiagnosticSink& diagnostics) {
  auto tree = std::make_unique<ParsedTree>();
  tree->file = file;
  if (text.size() > kMaxSourceBytes) {
    diagnostics
        .error("input_too_large", {file, {1, 1}, {1, 1}},
               fmt::format("file is {} bytes, more than the {} a policy may have", text.size(), kMaxSourceBytes))
        .help("split the policy into library files and `import` them");
    return tree;
  }
  if (std::size_t offset = find_invalid_utf8(text); offset != std::string::npos) {
    const int line = 1 + static_cast<int>(std::count(text.begin(), text.begin() + static_cast<long>(offset), '\n'));
    const std::size_t line_start = text.rfind('\n', offset == 0 ? 0 : offset - 1);
    const std::string before = text.substr(line_start == std::string::npos ? 0 : line_start + 1);
    const int column =
        1 + code_point_length(before.substr(0, offset - (line_start == std::string::npos ? 0 : line_start + 1)));
    diagnostics
        .error("invalid_utf8", {file, {line, column}, {line, column + 1}},
               fmt::format("file is not valid UTF-8 (byte offset {})", offset))
        .help("save the file as UTF-8");
    return tree;
  }
  tree->input = std::make_unique<antlr4::ANTLRInputStream>(text);
  tree->lexer = std::make_unique<grammar::AllotLexer>(tree->input.get());
  tree->tokens = std::make_unique<antlr4::CommonTokenStream>(tree->lexer.get());
  tree->parser = std::make_unique<grammar::AllotParser>(tree->tokens.get());
  LexerErrors lexer_errors(file, diagnostics);
  ParserErrors parser_errors(file, diagnostics);
  DepthLimit depth_limit(file, diagnostics);
  tree->lexer->removeErrorListeners();
  tree->lexer->addErrorListener(&lexer_errors);
  tree->parser->removeErrorListeners();
  tree->parser->addErrorListener(&parser_errors);
  tree->parser->addParseListener(&depth_limit);
  try {
    tree->tokens->fill();
    tree->root = tree->parser->file();
  } catch (const StopParsing&) {
    tree->root = nullptr;
  }
  // The listeners live on this stack frame only.
  tree->parser->removeParseListeners();
  tree->parser->removeErrorListeners();
  tree->lexer->removeErrorListeners();
  return tree;
}

}  // namespace allot
