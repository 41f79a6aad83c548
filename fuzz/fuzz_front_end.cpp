// libFuzzer harness for the policy front end: whatever the bytes, checking and
// formatting must return values (never crash, hang or throw), every diagnostic
// must point at a real line with a UTF-8 message, and formatting must be idempotent.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>

#include "allot/frontend.h"
#include "parse/parse_tree.h"

namespace {

[[noreturn]] void fail(const char* what, const std::string& detail) {
  std::fprintf(stderr, "fuzz_front_end: %s\n%s\n", what, detail.c_str());
  std::abort();
}

void check_diagnostics(const std::vector<allot::Diagnostic>& diagnostics) {
  for (const auto& d : diagnostics) {
    if (d.span.line < 0 || d.span.column < 0) fail("diagnostic with a negative line or column", d.code);
    if (allot::find_invalid_utf8(d.message) != std::string::npos) fail("message is not UTF-8", d.message);
    for (const auto& note : d.notes) {
      if (note.span && note.span->line < 0) fail("note with a negative line", d.code);
    }
  }
}

void check_formatting(const std::string& text) {
  const allot::FormatResult first = allot::format_source("fuzz.allot", text);
  check_diagnostics(first.diagnostics);
  if (!first.formatted) return;
  const allot::FormatResult second = allot::format_source("fuzz.allot", *first.formatted);
  if (!second.formatted) fail("formatted output does not parse", *first.formatted);
  if (*second.formatted != *first.formatted) fail("formatting is not idempotent", *first.formatted);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    allot::CheckOptions options;
    options.today = allot::parse_date("2026-12-01");  // fixed, so a crash reproduces on any day
    check_diagnostics(allot::check_source("fuzz.allot", text, options).diagnostics);
    check_formatting(text);
  } catch (const std::exception& error) {
    fail("exception escaped the front end", error.what());
  } catch (...) {
    fail("unknown exception escaped the front end", "");
  }
  return 0;
}
