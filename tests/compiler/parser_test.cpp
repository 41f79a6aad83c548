// Table-driven parser cases: what parses, and what the first syntax error says.
#include <catch2/catch.hpp>

#include "allot/compiler.h"

namespace {

const allot::CheckOptions kOptions{allot::parse_date("2026-12-01"), 14, 90};

std::vector<std::string> codes(const std::string& text) {
  std::vector<std::string> result;
  for (const auto& d : allot::check_source("case.allot", text, kOptions).diagnostics) result.push_back(d.code);
  return result;
}

std::string first_message(const std::string& text) {
  auto result = allot::check_source("case.allot", text, kOptions);
  return result.diagnostics.empty() ? "" : result.diagnostics.front().message;
}

}  // namespace

TEST_CASE("syntax errors name what was found and what was expected", "[parser]") {
  struct Case {
    const char* source;
    const char* message;
  };
  const Case cases[] = {
      {"policy {", "unexpected `{`, expected a name"},
      {"policy p { window 7 }", "unexpected `7`, expected a duration like `15m`"},
      {"policy p { rank = }", "unexpected `}`, expected an expression or a declaration"},
      {"policy p { tree { a 40 } }", "unexpected `40`, expected a percentage like `40%`"},
      {"policy p { class c { protect } }", "unexpected `}`, expected `up` or a duration like `15m`"},
      {"policy p { unit gpu_hours { h100 = 1.0 }",
       "unexpected end of file, expected `}`, `unit`, `window`, `fairshare`, "
       "`tree`, `class`, `exception`, `fn`, `rank`, `preempt` or `gates`"},
      {"policy p { rank = \"open", "unterminated string"},
      {"/* never closed", "unterminated block comment"},
      {"policy p { rank = 1 $ 2 }", "unexpected character `$`"},
  };
  for (const auto& c : cases) {
    INFO(c.source);
    CHECK(codes(c.source) == std::vector<std::string>{"syntax_error"});
    CHECK(first_message(c.source) == c.message);
  }
}

TEST_CASE("a file with a syntax error gets exactly one diagnostic", "[parser]") {
  CHECK(codes("policy p { tree { a 40% { owner } b 60% } rank = ( }").size() == 1);
}

TEST_CASE("hostile input is rejected with a diagnostic, not a crash", "[parser][limits]") {
  SECTION("deep nesting") {
    std::string deep = "policy p { rank = " + std::string(5000, '(') + "1" + std::string(5000, ')') + " }";
    CHECK(codes(deep) == std::vector<std::string>{"nesting_too_deep"});
  }
  SECTION("long prefix chains") {
    std::string chain = "policy p { rank = ";
    for (int i = 0; i < 5000; ++i) chain += "- ";
    CHECK(codes(chain + "1 }") == std::vector<std::string>{"nesting_too_deep"});
  }
  SECTION("long operator chains") {
    std::string chain = "policy p { rank = 1";
    for (int i = 0; i < 20000; ++i) chain += " + 1";
    CHECK(codes(chain + " }") == std::vector<std::string>{"nesting_too_deep"});
  }
  SECTION("malformed UTF-8") {
    CHECK(codes("policy p { // caf\xc3\n }") == std::vector<std::string>{"invalid_utf8"});
    CHECK(codes("\xed\xa0\x80") == std::vector<std::string>{"invalid_utf8"});  // a UTF-16 surrogate
    CHECK(codes("\xc0\xaf") == std::vector<std::string>{"invalid_utf8"});      // overlong
  }
  SECTION("oversized input") { CHECK(codes(std::string(2 << 20, ' ')) == std::vector<std::string>{"input_too_large"}); }
  SECTION("NUL bytes") { CHECK(codes(std::string("policy\0p", 8)) == std::vector<std::string>{"syntax_error"}); }
}

TEST_CASE("dates are validated as calendar days", "[parser][dates]") {
  CHECK(allot::parse_date("2026-02-28"));
  CHECK_FALSE(allot::parse_date("2026-02-29"));
  CHECK(allot::parse_date("2028-02-29"));
  CHECK_FALSE(allot::parse_date("2026-13-01"));
  CHECK_FALSE(allot::parse_date("2026-1-01"));
  CHECK(allot::format_date(*allot::parse_date("1999-12-31")) == "1999-12-31");
  CHECK(allot::parse_date("1970-01-02")->days_since_epoch == 1);
}
