// Control bytes from input never reach a terminal raw (support/text.h).
#include <catch2/catch.hpp>

#include "allot/inventory.h"
#include "allot/text.h"

using allot::support::printable;

TEST_CASE("printable shows each control character as one visible code point", "[support][text]") {
  CHECK(printable("plain text, tabs\tand\nnewlines") == "plain text, tabs\tand\nnewlines");
  CHECK(printable("a\x1b[31mred\x1b[0m") == "a\u241b[31mred\u241b[0m");
  CHECK(printable(std::string("nul\0bell\a", 9)) == "nul\u2400bell\u2407");
  CHECK(printable("del\x7f") == "del\u2421");
  CHECK(printable("csi\xc2\x9b"
                  "2J") == "csi\ufffd2J");                                     // C1 CSI in UTF-8
  CHECK(printable("caf\xc3\xa9 \xe2\x9c\x93") == "caf\xc3\xa9 \xe2\x9c\x93");  // other UTF-8 stays
}

TEST_CASE("printable shows bidi controls, which reorder what a reader sees (Trojan Source)", "[support][text]") {
  CHECK(printable("admin\u202e\u2066txt.allot") == "admin\ufffd\ufffdtxt.allot");  // RLO, LRI
  for (const char* control :
       {"\u202a", "\u202b", "\u202c", "\u202d", "\u202e", "\u2066", "\u2067", "\u2068", "\u2069"}) {
    CHECK(printable(std::string("a") + control + "b") == "a\ufffdb");
  }
  CHECK(printable("\u2014 \u2065 \u206a \u2029") == "\u2014 \u2065 \u206a \u2029");  // neighbours stay
  CHECK(printable("cut \xe2\x80") == "cut \xe2\x80");                                // a cut sequence stays
}

TEST_CASE("input errors escape what they quote", "[support][text]") {
  const auto error = allot::runtime::parse_inventory("[cluster]\nname = \"x\"\n[[node]]\n\"gpu\x1b[2J\" = 1\n",
                                                     "cluster\x1b]0;owned\x07.toml");
  REQUIRE_FALSE(error);
  const std::string text = error.error().to_string();
  CHECK(text.find('\x1b') == std::string::npos);
  CHECK(text.find('\x07') == std::string::npos);
  CHECK_THAT(text, Catch::StartsWith("cluster\u241b]0;owned\u2407.toml:"));
}
