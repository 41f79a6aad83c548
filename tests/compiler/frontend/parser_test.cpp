// Table-driven parser cases: what parses, and what the first syntax error says.
#include <catch2/catch.hpp>

#include "allot/frontend.h"

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
      {"policy p { tree { a 40 } }", "unexpected `40`, expected a share: `40%`, `shares 50` or `share parent`"},
      {"policy p { class c { protect } }", "unexpected `}`, expected `up` or a duration like `15m`"},
      {"policy p { unit gpu_hours { h100 = 1.0 }",
       "unexpected end of file, expected `}`, `unit`, `window`, `fairshare`, "
       "`tree`, `class`, `preempt`, `exception`, `fn`, `rank` or `gates`"},
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

TEST_CASE("a tree node's share is one of three forms, each named when it is wrong", "[parser][tree]") {
  struct Case {
    const char* share;
    const char* message;
    const char* help;
  };
  const Case cases[] = {
      {"40", "unexpected `40`, expected a share: `40%`, `shares 50` or `share parent`",
       "write `40%` for a percentage of the parent, or `shares 40` for raw shares"},
      {"{}", "unexpected `{`, expected a share: `40%`, `shares 50` or `share parent`", ""},
      {"shares 40%", "unexpected `40%`, expected a whole number of shares, as in `shares 50`",
       "write `40%` alone for a percentage of the parent, or `shares N` for raw shares"},
      {"shares", "unexpected `}`, expected a whole number of shares, as in `shares 50`", ""},
      {"shares parent", "unexpected `parent`, expected a whole number of shares, as in `shares 50`",
       "write `share parent` to pass the share through (Slurm's FairShare=parent)"},
      {"share 40", "unexpected `share`, expected a share: `40%`, `shares 50` or `share parent`",
       "write `shares 40` for raw shares"},
      {"share parents", "unexpected `parents`, expected `parent`, as in `share parent`", ""},
      {"share", "unexpected `}`, expected `parent`, as in `share parent`", ""},
      {"parent", "unexpected `parent`, expected a share: `40%`, `shares 50` or `share parent`",
       "write `share parent` to pass the share through (Slurm's FairShare=parent)"},
      {"portion 40", "unexpected `portion`, expected a share: `40%`, `shares 50` or `share parent`", ""},
  };
  for (const auto& c : cases) {
    const std::string source = std::string("policy p { tree { a ") + c.share + " } }";
    INFO(source);
    const auto result = allot::check_source("case.allot", source, kOptions);
    REQUIRE(result.diagnostics.size() == 1);
    CHECK(result.diagnostics.front().code == "syntax_error");
    CHECK(result.diagnostics.front().message == c.message);
    CHECK(result.diagnostics.front().help == c.help);
  }
  for (const char* share : {"40%", "0%", "shares 50", "shares 0", "share parent"}) {
    const std::string source = std::string("policy p { tree { a ") + share + " { user share shares 1 } } }";
    INFO(source);
    for (const auto& code : codes(source)) CHECK(code != "syntax_error");
  }
}

TEST_CASE("share, shares and parent stay names outside a tree node's share", "[parser][tree]") {
  const std::string source = R"(policy p {
  unit gpu_hours { h100 = 1.0 }
  window 7d
  tree {
    parent 100% {
      owner "a@example.com"  review 2027-01-31  hypothesis "h"
      user share 50%  user shares 50%
    }
  }
  class debug { max_gpus 1  max_runtime 15m  protect 15m  resumable }
  fn boost(share: number, shares: number): number = share + shares
  exception push {
    grant parent/share +5% from parent/shares
    owner "c@example.com"  reason "r"  expires 2026-12-20
  }
  rank = let parent = account.share / 1% in boost(parent, 2)
}
)";
  INFO(source);
  CHECK(codes(source).empty());
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
