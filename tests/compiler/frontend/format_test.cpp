// `allot fmt`: golden cases (tests/golden/fmt/<case>/input.allot formats to
// expected.allot), properties that hold for every policy in the repository
// (idempotent, same code tokens, same comments), targeted layout rules, and
// the command line's --check and --write.
//
// Set ALLOT_UPDATE_GOLDEN=1 to rewrite expected.allot after an intended change,
// then read the diff: it must be the layout a person would want.
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>

#include "allot/frontend.h"
#include "allot/grammar/AllotLexer.h"

namespace fs = std::filesystem;

namespace {

std::string read_all(const fs::path& path) {
  std::ifstream stream(path, std::ios::binary);
  std::ostringstream contents;
  contents << stream.rdbuf();
  return contents.str();
}

std::string format(const std::string& text) {
  allot::FormatResult result = allot::format_source("case.allot", text);
  REQUIRE(result.formatted.has_value());
  return *result.formatted;
}

// --- what "meaning preserved" and "nothing lost" compare ---------------------

struct Lexed {
  std::vector<std::pair<std::size_t, std::string>> code;  // type and text
  std::vector<std::string> comments;                      // sorted
};

// How the formatter may change a comment: CRLF becomes LF and no line keeps
// trailing whitespace (spaces, tabs, carriage returns: "a\r \n" is a line end
// too, and keeping its CR would make formatting not idempotent; found by fuzzing).
std::string normalized_comment(const std::string& comment) {
  std::string result;
  std::istringstream lines(comment);
  std::string line;
  for (bool first = true; std::getline(lines, line); first = false) {
    line.erase(line.find_last_not_of(" \t\r") + 1);
    result += (first ? "" : "\n") + line;
  }
  return result;
}

Lexed lex(const std::string& text) {
  antlr4::ANTLRInputStream input(text);
  allot::grammar::AllotLexer lexer(&input);
  lexer.removeErrorListeners();
  antlr4::CommonTokenStream stream(&lexer);
  stream.fill();
  Lexed lexed;
  for (antlr4::Token* token : stream.getTokens()) {
    if (token->getChannel() == antlr4::Token::HIDDEN_CHANNEL) {
      lexed.comments.push_back(normalized_comment(token->getText()));
    } else {
      lexed.code.emplace_back(token->getType(), token->getText());
    }
  }
  // The one token the formatter adds or drops: a match's trailing comma (it
  // has one exactly when the arms are on their own lines).
  for (std::size_t i = 0; i + 1 < lexed.code.size(); ++i) {
    if (lexed.code[i].second == "," && lexed.code[i + 1].second == "}") lexed.code.erase(lexed.code.begin() + i);
  }
  std::sort(lexed.comments.begin(), lexed.comments.end());
  return lexed;
}

// Every *.allot file a person might format: the policies, the standard
// library, examples and all test inputs. Globbed at run time.
std::vector<fs::path> repository_policies() {
  const fs::path root(ALLOT_SOURCE_DIR);
  std::vector<fs::path> files;
  for (const char* folder : {"policies", "stdlib", "examples", "tests/golden"}) {
    if (!fs::is_directory(root / folder)) continue;
    for (const auto& entry : fs::recursive_directory_iterator(root / folder)) {
      if (entry.is_regular_file() && entry.path().extension() == ".allot") files.push_back(entry.path());
    }
  }
  std::sort(files.begin(), files.end());
  return files;
}

// `text` rebuilt token by token with a comment in every gap between two
// tokens, written by `comment_in_gap(i)` (whitespace and a comment).
std::string with_comment_everywhere(const std::string& text,
                                    const std::function<std::string(std::size_t)>& comment_in_gap) {
  antlr4::ANTLRInputStream input(text);
  allot::grammar::AllotLexer lexer(&input);
  lexer.removeErrorListeners();
  antlr4::CommonTokenStream stream(&lexer);
  stream.fill();
  std::string result;
  std::size_t gap = 0;
  for (antlr4::Token* token : stream.getTokens()) {
    if (token->getType() == antlr4::Token::EOF) break;
    result += token->getText();
    if (token->getText().starts_with("//")) result += "\n";
    result += comment_in_gap(gap++);
  }
  return result;
}

// The properties every formatted file has, given the text before formatting.
void check_format_properties(const std::string& input, const std::string& once) {
  CHECK(allot::format_source("again.allot", once).formatted == once);
  const Lexed before = lex(input);
  const Lexed after = lex(once);
  CHECK(after.code == before.code);
  CHECK(after.comments == before.comments);
  CHECK(once.find(" \n") == std::string::npos);
  CHECK(once.find('\r') == std::string::npos);
  if (!once.empty()) CHECK((once.back() == '\n' && !once.ends_with("\n\n")));
}

std::vector<fs::path> golden_cases() {
  std::vector<fs::path> folders;
  for (const auto& entry : fs::directory_iterator(fs::path(ALLOT_SOURCE_DIR) / "tests/golden/fmt")) {
    if (entry.is_directory()) folders.push_back(entry.path());
  }
  std::sort(folders.begin(), folders.end());
  return folders;
}

// --- the command line -------------------------------------------------------

struct Run {
  int exit_code = -1;
  std::string out;
};

Run run_allot(const std::string& arguments) {
  const std::string command = std::string("'") + ALLOT_BINARY + "' " + arguments + " 2>/dev/null";
  Run run;
  FILE* pipe = popen(command.c_str(), "r");
  REQUIRE(pipe != nullptr);
  char buffer[4096];
  for (std::size_t n; (n = std::fread(buffer, 1, sizeof buffer, pipe)) > 0;) run.out.append(buffer, n);
  const int status = pclose(pipe);
  run.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return run;
}

// A scratch folder for one test, removed afterwards.
class ScratchFolder {
 public:
  ScratchFolder() : path_(fs::temp_directory_path() / ("allot-fmt-test-" + std::to_string(getpid()))) {
    fs::create_directories(path_);
  }
  ~ScratchFolder() {
    std::error_code ignored;
    fs::remove_all(path_, ignored);
  }
  ScratchFolder(const ScratchFolder&) = delete;
  ScratchFolder& operator=(const ScratchFolder&) = delete;
  fs::path write(const std::string& name, const std::string& text) const {
    std::ofstream(path_ / name, std::ios::binary) << text;
    return path_ / name;
  }

 private:
  fs::path path_;
};

const char* const kMessy = "policy p{window   7d rank=1+job.wait/1h}\n";
const char* const kTidy = "policy p {\n  window 7d\n  rank = 1 + job.wait / 1h\n}\n";

}  // namespace

TEST_CASE("every fmt golden case formats to exactly its expected text", "[fmt][golden]") {
  const bool update = std::getenv("ALLOT_UPDATE_GOLDEN") != nullptr;
  const auto folders = golden_cases();
  REQUIRE(folders.size() >= 10);
  for (const auto& folder : folders) {
    DYNAMIC_SECTION(folder.filename().string()) {
      const std::string input = read_all(folder / "input.allot");
      REQUIRE_FALSE(input.empty());
      const std::string actual = format(input);
      if (update) std::ofstream(folder / "expected.allot", std::ios::binary) << actual;
      CHECK(actual == read_all(folder / "expected.allot"));
      // A case named `already-...` is in the canonical layout: fmt leaves it alone.
      if (folder.filename().string().starts_with("already-")) CHECK(actual == input);
    }
  }
}

TEST_CASE("formatting any policy in the repository is idempotent and keeps every token and comment", "[fmt]") {
  const auto files = repository_policies();
  REQUIRE(files.size() >= 10);
  int formatted_files = 0;
  for (const auto& path : files) {
    const std::string input = read_all(path);
    const allot::FormatResult result = allot::format_source(path.string(), input);
    if (!result.formatted) {
      // Only diagnostic test inputs about syntax errors may fail to parse.
      REQUIRE_FALSE(result.diagnostics.empty());
      INFO(path.string());
      CHECK(path.string().find("tests/golden/check/" + result.diagnostics[0].code) != std::string::npos);
      continue;
    }
    ++formatted_files;
    INFO(path.string());
    check_format_properties(input, *result.formatted);
  }
  CHECK(formatted_files >= 10);
}

TEST_CASE("comments between any two tokens are kept and formatting stays idempotent", "[fmt]") {
  const std::vector<std::pair<const char*, std::function<std::string(std::size_t)>>> styles = {
      {"inline block comments", [](std::size_t i) { return " /* c" + std::to_string(i) + " */ "; }},
      {"trailing line comments", [](std::size_t i) { return " // c" + std::to_string(i) + "\n"; }},
      {"own-line line comments", [](std::size_t i) { return "\n// c" + std::to_string(i) + "\n"; }},
      {"own-line block comments then code", [](std::size_t i) { return "\n\n/* c" + std::to_string(i) + " */ "; }},
      {"a mix, with multi-line block comments",
       [](std::size_t i) {
         const std::string id = std::to_string(i);
         const std::string choices[] = {" ",
                                        "\n",
                                        " /* a" + id + " */ ",
                                        " // b" + id + "\n",
                                        "\n/* c\n " + id + " */\n",
                                        "\n\n// d" + id + "\n\n",
                                        " /* e" + id + " */ /* f */ // g\n"};
         return choices[(i * 7919) % 7];
       }},
      {"multi-line block comments after code, then a line comment",
       [](std::size_t i) { return " /* m\n" + std::to_string(i) + " */ // n\n"; }},
      {"CRLF, tabs and runs of blank lines",
       [](std::size_t i) {
         const std::string choices[] = {"\r\n", "\t", "\r\n\r\n\r\n", "  //k\r\n", " /*j*/"};
         return choices[(i * 31) % 5];
       }},
  };
  for (const auto& path : repository_policies()) {
    const std::string original = read_all(path);
    if (!allot::format_source(path.string(), original).formatted) continue;
    for (const auto& [style, comment_in_gap] : styles) {
      INFO(path.string() << ", " << style);
      const std::string input = with_comment_everywhere(original, comment_in_gap);
      const allot::FormatResult result = allot::format_source(path.string(), input);
      REQUIRE(result.formatted.has_value());
      check_format_properties(input, *result.formatted);
    }
  }
}

TEST_CASE("a file with a syntax error is not formatted; the diagnostic says why", "[fmt]") {
  const allot::FormatResult result = allot::format_source("bad.allot", "policy p { rank = ( }\n");
  CHECK_FALSE(result.formatted.has_value());
  REQUIRE(result.diagnostics.size() == 1);
  CHECK(result.diagnostics[0].code == "syntax_error");
  CHECK(result.diagnostics[0].span.file == "bad.allot");
  CHECK(result.diagnostics[0].span.line == 1);
  CHECK(result.diagnostics[0].span.column == 21);
}

TEST_CASE("layout rules the formatter applies", "[fmt]") {
  struct Case {
    const char* rule;
    const char* input;
    const char* expected;
  };
  const Case cases[] = {
      {"empty input stays empty", "", ""},
      {"whitespace only becomes empty", "\n\n  \n", ""},
      {"a file of comments keeps them", "// a\n\n\n/* b */  // c\n", "// a\n\n/* b */  // c\n"},
      {"output ends with exactly one newline", "policy p {}\n\n\n", "policy p {}\n"},
      {"an empty block prints `{}`", "policy p {\n\n}", "policy p {}\n"},
      {"literals are kept byte for byte", "policy p { window 7.50d class c { slo 099.0% } }",
       "policy p {\n  window 7.50d\n  class c {\n    slo 099.0%\n  }\n}\n"},
      {"parentheses are kept exactly as written", "fn f(x: number) = ((x)) + (1 * 2)",
       "fn f(x: number) = ((x)) + (1 * 2)\n"},
      {"unary operators hug their operand", "fn f(x: number) = - x + not  ( x > 1 ) . y",
       "fn f(x: number) = -x + not (x > 1).y\n"},
      {"tree paths and signed percentages are tight", "policy p { exception e { grant a / b + 5% from c/d } }",
       "policy p {\n  exception e {\n    grant a/b +5% from c/d\n  }\n}\n"},
      {"a block comment inside a line keeps one space each side", "fn f(x: number) = x /* why */ + 1",
       "fn f(x: number) = x /* why */ + 1\n"},
      {"a trailing comment is preceded by two spaces", "policy p { window 7d // seven days\n}",
       "policy p {\n  window 7d  // seven days\n}\n"},
      {"a line comment inside an expression breaks the line after it", "fn f(x: number) = x + // why\n 1",
       "fn f(x: number) = x\n    +  // why\n    1\n"},
      {"an own-line comment inside an expression keeps its own line", "fn f(x: number) = x\n// why\n+ 1",
       "fn f(x: number) = x\n    // why\n    + 1\n"},
      {"a comment before `}` is indented like the block's contents", "policy p { window 7d\n// end\n}",
       "policy p {\n  window 7d\n  // end\n}\n"},
      {"a comment after a match arm's comma stays after it", "fn f(c: class) = match c { a => 1, // one\n _ => 0 }",
       "fn f(c: class) = match c {\n  a => 1,  // one\n  _ => 0,\n}\n"},
      {"a trailing comment on a match's last arm follows the added comma",
       "fn f(c: class) = match c { a => 1, _ => 0 // zero\n }",
       "fn f(c: class) = match c {\n  a => 1,\n  _ => 0,  // zero\n}\n"},
      {"a comment on a parameter stays before its comma when it is a block comment",
       "fn f(a: number /* x */, b: number) = a", "fn f(a: number /* x */, b: number) = a\n"},
      {"top-level declarations are one blank line apart",
       "fn a(x: number) = x\nfn b(x: number) = x\n\n\n\nfn c(x: number) = x",
       "fn a(x: number) = x\n\nfn b(x: number) = x\n\nfn c(x: number) = x\n"},
      {"imports keep their grouping and end with a blank line",
       "import \"a.allot\"\n\n\nimport \"b.allot\"\nfn a(x: number) = x",
       "import \"a.allot\"\n\nimport \"b.allot\"\n\nfn a(x: number) = x\n"},
      {"CRLF becomes LF, also inside block comments", "policy p {\r\n  /* a\r\n  b */\r\n  window 7d\r\n}\r\n",
       "policy p {\n  /* a\n  b */\n  window 7d\n}\n"},
  };
  for (const auto& c : cases) {
    INFO(c.rule);
    CHECK(format(c.input) == c.expected);
  }
}

TEST_CASE("a match stays on one line exactly when the whole line fits in 100 columns", "[fmt]") {
  // `fn f(c: class) = match c { a => ` is 32 columns and ` }` 2 more.
  const auto source = [](std::size_t digits) {
    return "fn f(c: class) = match c { a => " + std::string(digits, '1') + " }\n";
  };
  CHECK(format(source(66)) == source(66));  // exactly 100 columns
  CHECK(format(source(67)) == "fn f(c: class) = match c {\n  a => " + std::string(67, '1') + ",\n}\n");
}

TEST_CASE("long rank expressions break before their loosest operators", "[fmt]") {
  const std::string term = "min(job.wait / 1h, 48)";
  std::string rank = "policy p { rank = " + term;
  for (int i = 0; i < 5; ++i) rank += " + " + term;
  rank += " }";
  std::string expected = "policy p {\n  rank = " + term + "\n";
  for (int i = 0; i < 5; ++i) expected += "      + " + term + "\n";
  expected += "}\n";
  CHECK(format(rank) == expected);
  SECTION("an `and` chain inside a broken `or` chain is indented deeper") {
    const std::string condition = "victim.account.usage_ratio > 1.0";
    const std::string preempt =
        "policy p { preempt when " + condition + " and " + condition + " and " + condition + " or " + condition + " }";
    CHECK(format(preempt) == "policy p {\n  preempt when " + condition + "\n          and " + condition +
                                 "\n          and " + condition + "\n      or " + condition + "\n}\n");
  }
  SECTION("a `let` that does not fit puts each binding and the body on its own line") {
    const std::string body = "1000 * fair_tree(account) + min(job.wait / 1h, 48) + w * job.gpus";
    CHECK(format("policy p { rank = let w = job.restarts * 10 in let v = 2 in " + body + " }") ==
          "policy p {\n  rank =\n      let w = job.restarts * 10 in\n      let v = 2 in\n      " + body + "\n}\n");
  }
  SECTION("an `if` that does not fit starts on the next line, then breaks before `then` and `else`") {
    const std::string branch = "some_long_function_name(job.wait / 1h, 48, job.restarts, job.gpus)";
    CHECK(format("fn f(x: number) = if x > 1 then " + branch + " else 0") ==
          "fn f(x: number) =\n    if x > 1 then " + branch + " else 0\n");
    CHECK(format("fn f(x: number) = if x > 1 then " + branch + " else " + branch) ==
          "fn f(x: number) =\n    if x > 1\n        then " + branch + "\n        else " + branch + "\n");
  }
}

TEST_CASE("long operator chains are formatted; absurdly long ones are refused, not crashed on", "[fmt][limits]") {
  auto chain_of = [](int terms) {
    std::string chain = "policy p { rank = 1";
    for (int i = 0; i < terms; ++i) chain += " + 1 * 2 and x.y.z";
    return chain + " }\n";
  };
  const std::string chain = chain_of(150);
  const std::string once = format(chain);
  CHECK(format(once) == once);
  CHECK(lex(once).code == lex(chain).code);
  const auto refused = allot::format_source("long.allot", chain_of(20000));
  CHECK_FALSE(refused.formatted);
  REQUIRE(refused.diagnostics.size() == 1);
  CHECK(refused.diagnostics[0].code == "nesting_too_deep");
}

TEST_CASE("allot fmt --check names the files that would change and exits 1", "[fmt][cli]") {
  ScratchFolder folder;
  const fs::path messy = folder.write("messy.allot", kMessy);
  const fs::path tidy = folder.write("tidy.allot", kTidy);
  const Run on_messy = run_allot("fmt --check '" + messy.string() + "'");
  CHECK(on_messy.exit_code == 1);
  CHECK(on_messy.out == "would reformat " + messy.string() + "\n");
  CHECK(read_all(messy) == kMessy);  // --check never writes
  const Run on_tidy = run_allot("fmt --check '" + tidy.string() + "'");
  CHECK(on_tidy.exit_code == 0);
  CHECK(on_tidy.out.empty());
}

TEST_CASE("allot fmt --write rewrites only the files that change", "[fmt][cli]") {
  ScratchFolder folder;
  const fs::path messy = folder.write("messy.allot", kMessy);
  const fs::path tidy = folder.write("tidy.allot", kTidy);
  const auto tidy_written = fs::last_write_time(tidy);
  const Run run = run_allot("fmt --write '" + messy.string() + "' '" + tidy.string() + "'");
  CHECK(run.exit_code == 0);
  CHECK(read_all(messy) == kTidy);
  CHECK(fs::last_write_time(tidy) == tidy_written);
  CHECK(run_allot("fmt --check '" + messy.string() + "'").exit_code == 0);
  CHECK_FALSE(fs::exists(messy.string() + ".allot-fmt.tmp"));
}

TEST_CASE("allot fmt prints the layout, reads `-` from standard input, and exits 1 on a syntax error", "[fmt][cli]") {
  ScratchFolder folder;
  const fs::path messy = folder.write("messy.allot", kMessy);
  const Run printed = run_allot("fmt '" + messy.string() + "'");
  CHECK(printed.exit_code == 0);
  CHECK(printed.out == kTidy);
  const Run piped = run_allot("fmt - < '" + messy.string() + "'");
  CHECK(piped.exit_code == 0);
  CHECK(piped.out == kTidy);
  const fs::path broken = folder.write("broken.allot", "policy p {\n");
  const Run on_broken = run_allot("fmt --write '" + broken.string() + "'");
  CHECK(on_broken.exit_code == 1);
  CHECK(read_all(broken) == "policy p {\n");
}
