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

TEST_CASE("JSON text carries DEL, C1 and bidi controls as \\u escapes, the same document to a parser",
          "[support][text]") {
  using allot::support::json_without_controls;
  CHECK(json_without_controls(R"({"id":"a\u001b[31m"})") == R"({"id":"a\u001b[31m"})");  // C0: the writer's own
  CHECK(json_without_controls("{\"id\":\"del\x7f\"}") == R"({"id":"del\u007f"})");
  CHECK(json_without_controls("{\"id\":\"csi\xc2\x9b\xc2\x80\"}") == R"({"id":"csi\u009b\u0080"})");
  CHECK(json_without_controls("{\"id\":\"rlo\u202e lri\u2066 pdi\u2069\"}") ==
        R"({"id":"rlo\u202e lri\u2066 pdi\u2069"})");
  CHECK(json_without_controls("{\"id\":\"caf\xc3\xa9 \u2014 \u2065\"}") == "{\"id\":\"caf\xc3\xa9 \u2014 \u2065\"}");
  const std::string escaped = json_without_controls("[\"\xc2\x85\u202a\x7f\"]");
  CHECK(allot::support::printable(escaped) == escaped);  // nothing left for the guard
}

TEST_CASE("display_width counts the columns a terminal shows, so tables align on any UTF-8", "[support][text]") {
  using allot::support::display_width;
  CHECK(display_width("gpu-01") == 6);
  CHECK(display_width("M\xc3\xbcnchen") == 7);            // two bytes, one column
  CHECK(display_width("\xe7\xa0\x94\xe7\xa9\xb6") == 4);  // two CJK ideographs, two columns each
  CHECK(display_width("e\xcc\x81") == 1);                 // e + combining acute
  CHECK(display_width("\x1b[32mpassed\x1b[0m") == 6);     // colour counts nothing
  CHECK(display_width("a\x1b]0;t\x07") == 7);             // other controls: one symbol each
  CHECK(display_width("\xff\xfe") == 2);                  // invalid UTF-8: one per byte
  CHECK(display_width("cut \xe2\x80") == 6);
  CHECK(display_width(allot::support::printable("a\xe2\x80\xae"
                                                "b")) == 3);  // as printed
  CHECK(allot::support::pad_right("M\xc3\xbc", 4) == "M\xc3\xbc  ");
  CHECK(allot::support::pad_left("\xe7\xa0\x94", 4) == "  \xe7\xa0\x94");
  CHECK(allot::support::pad_left("wider", 2) == "wider");
}
