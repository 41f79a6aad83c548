// Diagnostics as values: what the front end reports about a policy and what a
// refused hot swap carries (allot/policy_slot.h). Header-only, part of
// allot_policy_abi; rendering them is the front end's (allot/frontend.h).
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace allot {

enum class Severity { error, warning };

// A region of a source file. Lines and columns are 1-based and count Unicode
// code points; the end is exclusive (the column after the last character).
struct SourceSpan {
  std::string file;
  int line = 0;
  int column = 0;
  int end_line = 0;
  int end_column = 0;
};

// A note attached to a diagnostic, optionally pointing at another place.
struct DiagnosticNote {
  std::string message;
  std::optional<SourceSpan> span;
};

// One problem found in a policy: a value, rendered later as text, JSON, SARIF
// or GitHub annotations. `code` is stable across releases (docs/DIAGNOSTICS.md).
struct Diagnostic {
  Severity severity = Severity::error;
  std::string code;
  std::string message;
  SourceSpan span;
  std::vector<DiagnosticNote> notes;
  std::string help;  // empty when there is no suggestion
};

// True when `diagnostic` says a file could not be read at all (`io_error`:
// missing, unreadable, not a regular file; `input_too_large`): commands exit 2
// for it, as for any input they cannot read (docs/SECURITY.md).
inline bool is_unreadable_input(const Diagnostic& diagnostic) {
  return diagnostic.code == "io_error" || diagnostic.code == "input_too_large";
}

// True when any of `diagnostics` is_unreadable_input.
inline bool has_unreadable_input(const std::vector<Diagnostic>& diagnostics) {
  for (const Diagnostic& diagnostic : diagnostics) {
    if (is_unreadable_input(diagnostic)) return true;
  }
  return false;
}

// The text of every file that was read, so renderers can quote source lines.
using SourceTexts = std::map<std::string, std::string>;

}  // namespace allot
