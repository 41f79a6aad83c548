#include "parse_tree.h"

#include <fmt/format.h>

#include <algorithm>
#include <optional>
#include <set>

#include "allot/nearest_name.h"

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

// The byte length of the first `count` code points of valid UTF-8 `text`.
std::size_t code_point_prefix(const std::string& text, std::size_t count) {
  std::size_t bytes = 0;
  for (std::size_t seen = 0; bytes < text.size() && seen < count; ++seen) {
    ++bytes;
    while (bytes < text.size() && (static_cast<unsigned char>(text[bytes]) & 0xC0) == 0x80) ++bytes;
  }
  return bytes;
}

std::string describe_found(const antlr4::Token* token) {
  if (token == nullptr || token->getType() == antlr4::Token::EOF) return "end of file";
  std::string text = token->getText();
  // Shortened at a character boundary, so the message stays valid UTF-8.
  if (const std::size_t shown = code_point_prefix(text, 40); shown < text.size()) text = text.substr(0, shown) + "...";
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

// The code point that valid UTF-8 `character` encodes.
std::uint32_t decode_code_point(const std::string& character) {
  const auto lead = static_cast<unsigned char>(character[0]);
  std::uint32_t code = character.size() == 1 ? lead : lead & (0x7F >> character.size());
  for (std::size_t i = 1; i < character.size(); ++i)
    code = (code << 6) | (static_cast<unsigned char>(character[i]) & 0x3F);
  return code;
}

// Controls, unusual spaces and zero-width characters look like nothing (or
// like a space) when printed, so messages name them by code point instead.
bool is_invisible(std::uint32_t code) {
  return code < 0x20 || (code >= 0x7F && code <= 0xA0) || code == 0xAD || (code >= 0x2000 && code <= 0x200F) ||
         (code >= 0x2028 && code <= 0x202F) || (code >= 0x205F && code <= 0x2064) || code == 0x3000 || code == 0xFEFF;
}

void report_unexpected_character(DiagnosticSink& diagnostics, Span span, const std::string& character) {
  const std::uint32_t code = character.empty() ? 0 : decode_code_point(character);
  if (character.empty() || !is_invisible(code)) {
    diagnostics.error(DiagnosticCode::syntax_error, span, fmt::format("unexpected character `{}`", character));
    return;
  }
  diagnostics.error(DiagnosticCode::syntax_error, span, fmt::format("unexpected invisible character U+{:04X}", code))
      .help("delete it; only spaces, tabs and line breaks may separate words");
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
      diagnostics_.error(DiagnosticCode::syntax_error, span, "unterminated string")
          .help("a string ends with `\"` on the same line");
    } else {
      report_unexpected_character(diagnostics_, span, first_code_point(found));
    }
    throw StopParsing{};
  }

 private:
  FileId file_;
  DiagnosticSink& diagnostics_;
};

bool is_word(const antlr4::Token* token, const char* word) {
  return token->getType() == AllotLexer::IDENT && token->getText() == word;
}

// The token after `token` on the parser's channel (comments are skipped); the
// end of file is followed by itself.
antlr4::Token* next_code_token(antlr4::TokenStream& tokens, antlr4::Token* token) {
  for (std::size_t i = token->getTokenIndex() + 1; token->getType() != antlr4::Token::EOF && i < tokens.size(); ++i) {
    if (tokens.get(i)->getChannel() == antlr4::Token::DEFAULT_CHANNEL) return tokens.get(i);
  }
  return token;
}

// A tree node's share that is none of `40%`, `shares N`, `share parent`. The
// words are names to the lexer, so the parser's own expected set ("a name")
// would mislead; the two tokens where the share starts say what was meant.
void report_share_error(DiagnosticSink& diagnostics, FileId file, antlr4::Parser* parser,
                        antlr4::ParserRuleContext* share) {
  antlr4::Token* first = share->getStart();
  antlr4::Token* second = next_code_token(*parser->getTokenStream(), first);
  const bool second_is_number = second->getType() == AllotLexer::NUMBER;
  antlr4::Token* found = first;
  std::string expected = "a share: `40%`, `shares 50` or `share parent`";
  std::string help;
  if (is_word(first, "shares") && !second_is_number) {
    found = second;
    expected = "a whole number of shares, as in `shares 50`";
    if (second->getType() == AllotLexer::PERCENT) {
      help = fmt::format("write `{}` alone for a percentage of the parent, or `shares N` for raw shares",
                         second->getText());
    } else if (is_word(second, "parent")) {
      help = "write `share parent` to pass the share through (Slurm's FairShare=parent)";
    }
  } else if (is_word(first, "share") && second_is_number) {
    help = fmt::format("write `shares {}` for raw shares", second->getText());
  } else if (is_word(first, "share")) {
    found = second;
    expected = "`parent`, as in `share parent`";
  } else if (first->getType() == AllotLexer::NUMBER) {
    help = fmt::format("write `{0}%` for a percentage of the parent, or `shares {0}` for raw shares", first->getText());
  } else if (is_word(first, "parent")) {
    help = "write `share parent` to pass the share through (Slurm's FairShare=parent)";
  }
  auto diagnostic = diagnostics.error(DiagnosticCode::syntax_error, token_span(file, found),
                                      fmt::format("unexpected {}, expected {}", describe_found(found), expected));
  if (!help.empty()) diagnostic.help(help);
}

// `7days`, `15mins`, `2hrs`: the lexer reads a duration (`7d`) and then a name
// (`ays`). Reported as the one word it is, with the duration it meant; false
// when `offending` is not the rest of such a word.
bool report_glued_duration(DiagnosticSink& diagnostics, FileId file, antlr4::TokenStream& tokens,
                           antlr4::Token* offending) {
  if (offending == nullptr || offending->getType() != AllotLexer::IDENT || offending->getTokenIndex() == 0) {
    return false;
  }
  antlr4::Token* previous = tokens.get(offending->getTokenIndex() - 1);
  if (previous->getType() != AllotLexer::DURATION || previous->getStopIndex() + 1 != offending->getStartIndex()) {
    return false;
  }
  const std::string word = previous->getText() + offending->getText();
  const std::size_t digits = word.find_first_not_of("0123456789.");
  const std::string number = word.substr(0, digits), unit = word.substr(digits);
  static const std::pair<const char*, std::vector<std::string>> kUnits[] = {{"s", {"sec", "secs", "second", "seconds"}},
                                                                            {"m", {"min", "mins", "minute", "minutes"}},
                                                                            {"h", {"hr", "hrs", "hour", "hours"}},
                                                                            {"d", {"day", "days"}},
                                                                            {"w", {"wk", "wks", "week", "weeks"}}};
  std::string meant;
  for (const auto& [letter, words] : kUnits) {
    if (std::find(words.begin(), words.end(), unit) != words.end()) meant = number + letter;
  }
  Span span = token_span(file, previous);
  span.end = token_span(file, offending).end;
  diagnostics.error(DiagnosticCode::syntax_error, span, fmt::format("`{}` is not a duration", word))
      .help(meant.empty() ? "a duration is a number and one unit: `s`, `m`, `h`, `d` or `w`, as in `15m` or `7d`"
                          : fmt::format("write `{}`: a number and one unit (`s`, `m`, `h`, `d` or `w`)", meant));
  return true;
}

// Syntax errors. The first stops the parse (StopParsing); parse_tree() then
// parses each later declaration on its own (report_later_errors), so a
// mistake in one `class` does not hide one in `rank`: at most kMaxLaterErrors
// more, one per declaration, each on a later line than the one before.
class ParserErrors : public antlr4::BaseErrorListener {
 public:
  static constexpr int kMaxLaterErrors = 9;

  ParserErrors(FileId file, DiagnosticSink& diagnostics) : file_(file), diagnostics_(diagnostics) {}

  // Where the first error was, when later declarations may be parsed for more
  // (not after an unterminated comment, which ends the file).
  std::optional<std::size_t> first_error() const { return first_index_; }
  void start_collecting() { collecting_ = true; }
  bool may_report_more() const { return later_errors_ < kMaxLaterErrors; }

  void syntaxError(antlr4::Recognizer* recognizer, antlr4::Token* offending, std::size_t, std::size_t,
                   const std::string&, std::exception_ptr) override {
    if (collecting_) {
      if (offending == nullptr || static_cast<int>(offending->getLine()) <= last_line_ ||
          later_errors_ == kMaxLaterErrors || offending->getType() == AllotLexer::UNTERMINATED_COMMENT) {
        throw StopParsing{};  // this declaration's error is not reported; the next declaration is tried
      }
      ++later_errors_;
    }
    if (offending != nullptr && offending->getType() == AllotLexer::UNTERMINATED_COMMENT) {
      diagnostics_.error(DiagnosticCode::syntax_error, token_span(file_, offending), "unterminated block comment")
          .help("close the comment with `*/`");
      throw StopParsing{};
    }
    auto* parser = static_cast<antlr4::Parser*>(recognizer);
    if (report_glued_duration(diagnostics_, file_, *parser->getTokenStream(), offending)) return stop(offending);
    if (auto* share = dynamic_cast<AllotParser::TreeShareContext*>(parser->getContext())) {
      report_share_error(diagnostics_, file_, parser, share);
      return stop(offending);
    }
    const antlr4::misc::IntervalSet expected_tokens = parser->getExpectedTokens();
    std::string expected = describe_expected(parser->getVocabulary(), expected_tokens);
    std::string message = fmt::format("unexpected {}", describe_found(offending));
    if (!expected.empty()) message += fmt::format(", expected {}", expected);
    auto diagnostic = diagnostics_.error(DiagnosticCode::syntax_error, token_span(file_, offending), message);
    // `max_gpu 1`, `preemt when`: a misspelt keyword the parser expected here.
    if (offending != nullptr && offending->getType() == AllotLexer::IDENT) {
      std::vector<std::string> keywords;
      for (std::size_t type : expected_tokens.toList()) {
        const std::string literal = parser->getVocabulary().getLiteralName(type);
        if (literal.size() > 2 && literal.front() == '\'') keywords.push_back(literal.substr(1, literal.size() - 2));
      }
      const std::string near = support::nearest_name(offending->getText(), keywords);
      if (!near.empty()) diagnostic.help(fmt::format("did you mean `{}`?", near));
    }
    stop(offending);
  }

 private:
  // After a report: the parse (of the file, or of one later declaration) stops.
  void stop(antlr4::Token* offending) {
    if (offending != nullptr) last_line_ = static_cast<int>(offending->getLine());
    if (!collecting_) first_index_ = offending != nullptr ? offending->getTokenIndex() : 0;
    throw StopParsing{};
  }

  FileId file_;
  DiagnosticSink& diagnostics_;
  bool collecting_ = false;
  std::optional<std::size_t> first_index_;
  int last_line_ = 0;
  int later_errors_ = 0;
};

// Stops the parse when rules nest deeper than kMaxRuleDepth, which bounds the
// parser's stack use (ANTLR parsers are recursive descent), or when the budget
// tree nests deeper than kMaxTreeLevels, which bounds every later walk of it.
class DepthLimit : public antlr4::tree::ParseTreeListener {
 public:
  DepthLimit(FileId file, DiagnosticSink& diagnostics, antlr4::TokenStream& tokens)
      : file_(file), diagnostics_(diagnostics), tokens_(tokens) {}
  void enterEveryRule(antlr4::ParserRuleContext* context) override {
    if (dynamic_cast<AllotParser::TreeNodeContext*>(context) != nullptr && ++tree_levels_ > kMaxTreeLevels) {
      report_deep_tree();
    }
    if (++depth_ <= kMaxRuleDepth) return;
    diagnostics_
        .error(DiagnosticCode::nesting_too_deep, token_span(file_, context->getStart()), "expression nests too deeply")
        .note(fmt::format("the parser accepts at most {} nested rules", kMaxRuleDepth))
        .help("split the expression into functions or `let` bindings");
    throw StopParsing{};
  }
  void exitEveryRule(antlr4::ParserRuleContext* context) override {
    --depth_;
    if (dynamic_cast<AllotParser::TreeNodeContext*>(context) != nullptr) --tree_levels_;
  }
  void visitTerminal(antlr4::tree::TerminalNode*) override {}
  void visitErrorNode(antlr4::tree::ErrorNode*) override {}

 private:
  // At the node one level too deep: its name follows its `project` / `user` keyword.
  [[noreturn]] void report_deep_tree() {
    antlr4::Token* name = tokens_.LT(1)->getType() == AllotLexer::IDENT ? tokens_.LT(1) : tokens_.LT(2);
    diagnostics_
        .error(DiagnosticCode::tree_too_deep, token_span(file_, name),
               fmt::format("the budget tree nests deeper than {} levels", kMaxTreeLevels))
        .note(fmt::format("`{}` would be level {}; programs are level 1", name->getText(), tree_levels_))
        .help("merge levels that only pass their share down, or hang a deep branch higher up");
    throw StopParsing{};
  }

  FileId file_;
  DiagnosticSink& diagnostics_;
  antlr4::TokenStream& tokens_;
  std::size_t depth_ = 0;
  std::size_t tree_levels_ = 0;
};

int code_point_length(const std::string& text) {
  return static_cast<int>(std::count_if(text.begin(), text.end(), [](char c) { return (c & 0xC0) != 0x80; }));
}

// The deepest rule context of the tree (found without recursion), or null when
// no context is deeper than kMaxTreeDepth.
antlr4::ParserRuleContext* too_deep_context(antlr4::ParserRuleContext* root) {
  std::vector<std::pair<antlr4::tree::ParseTree*, std::size_t>> stack{{root, 1}};
  while (!stack.empty()) {
    auto [node, depth] = stack.back();
    stack.pop_back();
    if (depth > kMaxTreeDepth) return dynamic_cast<antlr4::ParserRuleContext*>(node);
    for (auto* child : node->children) {
      if (dynamic_cast<antlr4::ParserRuleContext*>(child)) stack.push_back({child, depth + 1});
    }
  }
  return nullptr;
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

namespace {

// Whether `index` starts a declaration of a policy or a library (`class`,
// `rank`, `fn`, ...): its keyword, first on its line (so `job.class` is not one).
bool starts_declaration(antlr4::CommonTokenStream& tokens, std::size_t index) {
  antlr4::Token* token = tokens.get(index);
  if (token->getChannel() != antlr4::Token::DEFAULT_CHANNEL) return false;
  static const std::set<std::string> kKeywords = {"unit",      "window", "fairshare", "tree",    "class",
                                                  "exception", "fn",     "rank",      "preempt", "gates"};
  if (token->getType() == AllotLexer::IDENT || !kKeywords.count(token->getText())) return false;
  for (std::size_t i = index; i-- > 0;) {
    antlr4::Token* before = tokens.get(i);
    if (before->getChannel() != antlr4::Token::DEFAULT_CHANNEL) continue;
    return before->getLine() < token->getLine();
  }
  return true;
}

// After the first syntax error stopped the parse: each later declaration
// (from its keyword) parsed on its own, its first error reported through
// `errors`. Their trees are dropped; the file has errors either way.
void report_later_errors(FileId file, DiagnosticSink& diagnostics, antlr4::CommonTokenStream& tokens,
                         ParserErrors& errors) {
  errors.start_collecting();
  std::size_t index = *errors.first_error() + 1;
  const std::size_t size = tokens.size();
  while (index < size && errors.may_report_more()) {
    while (index < size && !starts_declaration(tokens, index)) ++index;
    if (index >= size) break;
    tokens.seek(index);
    grammar::AllotParser again(&tokens);
    DepthLimit depth_limit(file, diagnostics, tokens);
    again.removeErrorListeners();
    again.addErrorListener(&errors);
    again.addParseListener(&depth_limit);
    std::size_t next = index + 1;
    try {
      again.policyItem();
      next = std::max(next, again.getCurrentToken()->getTokenIndex());
    } catch (const StopParsing&) {  // reported (or not, when on the line of the last report)
      next = std::max(next, again.getCurrentToken()->getTokenIndex());
    }
    again.removeParseListeners();
    again.removeErrorListeners();
    index = next;
  }
}

}  // namespace

std::unique_ptr<ParsedTree> parse_tree(FileId file, const std::string& text, DiagnosticSink& diagnostics) {
  auto tree = std::make_unique<ParsedTree>();
  tree->file = file;
  if (text.size() > kMaxSourceBytes) {
    diagnostics
        .error(DiagnosticCode::input_too_large, {file, {1, 1}, {1, 1}},
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
        .error(DiagnosticCode::invalid_utf8, {file, {line, column}, {line, column + 1}},
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
  DepthLimit depth_limit(file, diagnostics, *tree->tokens);
  tree->lexer->removeErrorListeners();
  tree->lexer->addErrorListener(&lexer_errors);
  tree->parser->removeErrorListeners();
  tree->parser->addErrorListener(&parser_errors);
  tree->parser->addParseListener(&depth_limit);
  try {
    tree->tokens->fill();
    tree->root = tree->parser->file();
    if (auto* deep = too_deep_context(tree->root)) {
      diagnostics
          .error(DiagnosticCode::nesting_too_deep, token_span(file, deep->getStart()), "expression nests too deeply")
          .note(fmt::format("an expression may nest at most {} levels; every operator of a chain counts as one",
                            kMaxTreeDepth))
          .help("split the expression into functions or `let` bindings");
      tree->root = nullptr;
    }
  } catch (const StopParsing&) {
    tree->root = nullptr;
    if (parser_errors.first_error()) report_later_errors(file, diagnostics, *tree->tokens, parser_errors);
  }
  // The listeners live on this stack frame only.
  tree->parser->removeParseListeners();
  tree->parser->removeErrorListeners();
  tree->lexer->removeErrorListeners();
  return tree;
}

}  // namespace allot
