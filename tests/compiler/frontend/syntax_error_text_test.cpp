// Syntax errors quote what was found; the quote must stay readable and valid
// UTF-8 whatever the input holds (found by fuzzing the front end).
#include <catch2/catch.hpp>

#include "allot/frontend.h"
#include "parse/parse_tree.h"

namespace {

const allot::CheckOptions kOptions{allot::parse_date("2026-12-01"), 14, 90};

allot::Diagnostic only_diagnostic(const std::string& text) {
  const auto result = allot::check_source("case.allot", text, kOptions);
  REQUIRE(result.diagnostics.size() == 1);
  return result.diagnostics.front();
}

std::string repeat(const std::string& text, int times) {
  std::string result;
  for (int i = 0; i < times; ++i) result += text;
  return result;
}

}  // namespace

TEST_CASE("a long unexpected token is shortened at a character boundary", "[parser][utf8]") {
  // 1 + 39 characters are shown; cutting at 40 bytes would split an `ä`.
  const allot::Diagnostic d = only_diagnostic("policy p { \"" + repeat("ä", 60) + "\" }");
  CHECK(d.code == "syntax_error");
  CHECK(d.message.starts_with("unexpected `\"" + repeat("ä", 39) + "...`, expected `}`"));
  CHECK(allot::find_invalid_utf8(d.message) == std::string::npos);
}

TEST_CASE("invisible characters are named by code point", "[parser][utf8]") {
  struct Case {
    std::string character;
    const char* message;
  };
  const Case cases[] = {
      {std::string(1, '\0'), "unexpected invisible character U+0000"},
      {"\x01", "unexpected invisible character U+0001"},
      {"\x7f", "unexpected invisible character U+007F"},
      {"\xc2\xa0", "unexpected invisible character U+00A0"},      // no-break space
      {"\xe2\x80\x8b", "unexpected invisible character U+200B"},  // zero-width space
      {"\xef\xbb\xbf", "unexpected invisible character U+FEFF"},  // a byte-order mark mid-file
  };
  for (const auto& c : cases) {
    INFO(c.message);
    const allot::Diagnostic d = only_diagnostic("policy p {" + c.character + "}");
    CHECK(d.code == "syntax_error");
    CHECK(d.message == c.message);
    CHECK(d.help == "delete it; only spaces, tabs and line breaks may separate words");
    CHECK(d.span.line == 1);
    CHECK(d.span.column == 11);
  }
}

TEST_CASE("visible unexpected characters are quoted as written", "[parser][utf8]") {
  CHECK(only_diagnostic("policy p { rank = 1 \xe2\x86\x92 2 }").message == "unexpected character `\xe2\x86\x92`");
  CHECK(only_diagnostic("policy p { rank = 1 $ 2 }").message == "unexpected character `$`");
}
