// What each diagnostic code means, in one line, for machine-readable output
// (SARIF rule descriptions). The full text lives in docs/DIAGNOSTICS.md.
#pragma once

#include <string>

namespace allot {

// A one-line description of the problem `code` reports; for a code missing
// from the catalogue, the code itself in words ("unknown_gate" -> "unknown gate").
std::string rule_summary(const std::string& code);

// The code as a friendly rule name in PascalCase ("share_sum_mismatch" -> "ShareSumMismatch").
std::string rule_name(const std::string& code);

}  // namespace allot
