// Every diagnostic code in one table. The X-macro below produces the
// DiagnosticCode enum, code names, severities and the one-line rule catalogue
// (render/rule_catalog.cpp, used by SARIF); tests/compiler/backend/diagnostic_codes_test.cpp
// checks that docs/DIAGNOSTICS.md and tests/golden/check agree with it.
//
// Each entry is X(code, severity, summary). Codes are stable across releases:
// tools match on them. Adding one means a row and a `## code` section in
// docs/DIAGNOSTICS.md (the same summary and severity) and a golden case in
// tests/golden/check/<code>[-detail]. The order is the order of the docs' table.
#pragma once

#include <array>
#include <cstddef>
#include <optional>
#include <string_view>

#include "allot/frontend.h"

// clang-format off
#define ALLOT_DIAGNOSTIC_CODES(X) \
  X(syntax_error, error, "the text does not follow the Allot grammar") \
  X(invalid_date, error, "a date does not exist") \
  X(number_out_of_range, error, "a number literal is too large") \
  X(input_too_large, error, "a policy file is larger than the compiler accepts") \
  X(invalid_utf8, error, "a file is not valid UTF-8") \
  X(nesting_too_deep, error, "an expression nests deeper than the parser allows") \
  X(tree_too_deep, error, "the budget tree nests deeper than the compiler allows") \
  X(resource_limit, error, "a policy grows past what the compiler or the ledger allows") \
  X(io_error, error, "a file cannot be read") \
  X(import_not_found, error, "an imported file cannot be found") \
  X(import_refused, error, "an import names a file a policy may not read") \
  X(import_cycle, error, "files import each other in a cycle") \
  X(import_of_policy, error, "an import names a policy file instead of a library") \
  X(multiple_policies, error, "a file declares more than one policy") \
  X(missing_declaration, error, "a required declaration is missing") \
  X(duplicate_declaration, error, "something is declared twice where only one is allowed") \
  X(duplicate_name, error, "two declarations share one name") \
  X(unknown_name, error, "a name does not refer to anything declared") \
  X(ambiguous_name, error, "a bare node name matches more than one node in the tree") \
  X(invalid_weight, error, "a weight is out of range") \
  X(invalid_duration, error, "a duration is zero or malformed") \
  X(half_life_exceeds_window, warning, "the usage half-life is longer than the fair-share window") \
  X(invalid_tree_level, error, "a budget tree node is at a level where its kind is not allowed") \
  X(share_out_of_range, error, "a share is out of range (a percentage above 100%, raw shares outside 0 to 1000000)") \
  X(share_sum_mismatch, error, "the shares of one level do not sum to 100%") \
  X(mixed_share_forms, error, "one level mixes percentages and raw `shares N`") \
  X(share_sum_overflow, error, "the raw shares of one level sum above what Slurm can hold") \
  X(zero_share_level, warning, "every share of one level is zero") \
  X(invalid_share_parent, error, "a program without children has `share parent`") \
  X(missing_owner, error, "a program or exception has no owner") \
  X(missing_review, error, "a program has no review date") \
  X(missing_hypothesis, error, "a program has no hypothesis") \
  X(review_date_passed, error, "a review date has passed") \
  X(review_date_near, warning, "a review date is close") \
  X(exception_missing_expiry, error, "an exception has no expiry date") \
  X(exception_expired, error, "an exception has already expired") \
  X(exception_expiring, warning, "an exception expires soon") \
  X(exception_beyond_horizon, error, "an exception expires further ahead than the allowed horizon") \
  X(exception_ends_before_start, error, "an exception expires before it starts") \
  X(missing_reason, error, "an exception has no reason") \
  X(invalid_grant, error, "an exception grant moves nothing or moves a share to itself") \
  X(exception_share_negative, error, "exceptions drive a node's share below 0%") \
  X(exception_level_over_100, error, "exceptions push a level's shares above 100%") \
  X(grant_needs_percent, error, "an exception grants percentage points to or from a node whose share is not a percentage") \
  X(invalid_contract, error, "a class property has an impossible value") \
  X(checkpoint_exceeds_protection, error, "a class checkpoints less often than its jobs are protected") \
  X(preemptible_not_resumable, error, "a preemptible class cannot resume its jobs") \
  X(deadline_without_slo, error, "a class requires deadlines but promises no SLO") \
  X(slo_without_deadline, warning, "a class promises an SLO but does not require deadlines") \
  X(fast_lane_without_limit, error, "a fast-lane class sets no max_runtime") \
  X(fast_lane_unprotected, error, "a fast-lane class does not protect its jobs for their whole run") \
  X(stall_action_required, error, "a class that is not preemptible requires progress but says nothing of a stalled job") \
  X(progress_exceeds_runtime, error, "a class's jobs end before a missing progress report could be noticed") \
  X(progress_exceeds_protection, warning, "a class's protection ends before a missing progress report could be noticed") \
  X(type_mismatch, error, "an expression combines values of incompatible types or units") \
  X(unknown_field, error, "a record has no field of that name") \
  X(unknown_function, error, "a function of that name does not exist") \
  X(unknown_type, error, "a type name does not exist") \
  X(wrong_argument_count, error, "a function is called with the wrong number of arguments") \
  X(non_exhaustive_match, error, "a match does not cover every case") \
  X(unreachable_arm, warning, "a match arm can never be chosen") \
  X(recursive_function, error, "a function calls itself, directly or through others") \
  X(unknown_gate, error, "a gate names a metric that does not exist") \
  X(invalid_gate, error, "a gate is written in a form its metric does not take") \
  X(jit_unavailable, warning, "the JIT is unavailable, so the interpreter runs the policy") \
  X(codegen_failed, error, "LLVM could not produce the requested output")
// clang-format on

namespace allot {

enum class DiagnosticCode {
#define ALLOT_DIAGNOSTIC_ENUMERATOR(code, severity, summary) code,
  ALLOT_DIAGNOSTIC_CODES(ALLOT_DIAGNOSTIC_ENUMERATOR)
#undef ALLOT_DIAGNOSTIC_ENUMERATOR
};

// One row of the table.
struct DiagnosticCodeInfo {
  DiagnosticCode code;
  std::string_view name;  // as rendered: `error[name]`, SARIF's ruleId
  Severity severity;      // every code is always reported with this severity
  std::string_view summary;
};

// The table, in enum order.
inline constexpr std::array kDiagnosticCodes = {
#define ALLOT_DIAGNOSTIC_INFO(code, severity, summary) \
  DiagnosticCodeInfo{DiagnosticCode::code, #code, Severity::severity, summary},
    ALLOT_DIAGNOSTIC_CODES(ALLOT_DIAGNOSTIC_INFO)
#undef ALLOT_DIAGNOSTIC_INFO
};

constexpr const DiagnosticCodeInfo& code_info(DiagnosticCode code) {
  return kDiagnosticCodes[static_cast<std::size_t>(code)];
}

constexpr std::string_view code_name(DiagnosticCode code) { return code_info(code).name; }

// The code named `name`, or nullopt for a name that is not a diagnostic code.
constexpr std::optional<DiagnosticCode> find_code(std::string_view name) {
  for (const auto& info : kDiagnosticCodes) {
    if (info.name == name) return info.code;
  }
  return std::nullopt;
}

}  // namespace allot
