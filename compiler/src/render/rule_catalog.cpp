#include "rule_catalog.h"

#include <map>

namespace allot {
namespace {

// Invariant: every code the checker reports has an entry (docs/DIAGNOSTICS.md
// lists the same codes); a missing one still renders, from the code's words.
const std::map<std::string, std::string>& catalogue() {
  static const std::map<std::string, std::string> summaries = {
      {"ambiguous_name", "a bare node name matches more than one node in the tree"},
      {"checkpoint_exceeds_protection", "a class checkpoints less often than its jobs are protected"},
      {"deadline_without_slo", "a class requires deadlines but promises no SLO"},
      {"duplicate_declaration", "something is declared twice where only one is allowed"},
      {"duplicate_name", "two declarations share one name"},
      {"exception_beyond_horizon", "an exception expires further ahead than the allowed horizon"},
      {"exception_ends_before_start", "an exception expires before it starts"},
      {"exception_expired", "an exception has already expired"},
      {"exception_level_over_100", "exceptions push a level's shares above 100%"},
      {"exception_missing_expiry", "an exception has no expiry date"},
      {"exception_share_negative", "exceptions drive a node's share below 0%"},
      {"grant_needs_percent",
       "an exception grants percentage points to or from a node whose share is not a percentage"},
      {"import_cycle", "files import each other in a cycle"},
      {"import_not_found", "an imported file cannot be found"},
      {"import_of_policy", "an import names a policy file instead of a library"},
      {"import_refused", "an import names a file a policy may not read"},
      {"input_too_large", "a policy file is larger than the compiler accepts"},
      {"invalid_contract", "a class property has an impossible value"},
      {"invalid_date", "a date does not exist"},
      {"invalid_duration", "a duration is zero or malformed"},
      {"invalid_gate", "a gate is written in a form its metric does not take"},
      {"invalid_grant", "an exception grant moves nothing or moves a share to itself"},
      {"invalid_share_parent", "a program without children has `share parent`"},
      {"invalid_tree_level", "a budget tree node is at a level where its kind is not allowed"},
      {"invalid_utf8", "a file is not valid UTF-8"},
      {"invalid_weight", "a weight is out of range"},
      {"io_error", "a file cannot be read"},
      {"missing_declaration", "a required declaration is missing"},
      {"missing_hypothesis", "a program has no hypothesis"},
      {"missing_owner", "a program or exception has no owner"},
      {"missing_reason", "an exception has no reason"},
      {"missing_review", "a program has no review date"},
      {"mixed_share_forms", "one level mixes percentages and raw `shares N`"},
      {"multiple_policies", "a file declares more than one policy"},
      {"nesting_too_deep", "an expression nests deeper than the parser allows"},
      {"non_exhaustive_match", "a match does not cover every case"},
      {"number_out_of_range", "a number literal is too large"},
      {"preemptible_not_resumable", "a preemptible class cannot resume its jobs"},
      {"recursive_function", "a function calls itself, directly or through others"},
      {"resource_limit", "a policy grows past what the compiler or the ledger allows"},
      {"review_date_near", "a review date is close"},
      {"review_date_passed", "a review date has passed"},
      {"share_out_of_range", "a share is out of range (a percentage above 100%, raw shares outside 0 to 1000000)"},
      {"share_sum_mismatch", "the shares of one level do not sum to 100%"},
      {"share_sum_overflow", "the raw shares of one level sum above what Slurm can hold"},
      {"slo_without_deadline", "a class promises an SLO but does not require deadlines"},
      {"syntax_error", "the text does not follow the Allot grammar"},
      {"tree_too_deep", "the budget tree nests deeper than the compiler allows"},
      {"type_mismatch", "an expression combines values of incompatible types or units"},
      {"unknown_field", "a record has no field of that name"},
      {"unknown_function", "a function of that name does not exist"},
      {"unknown_gate", "a gate names a metric that does not exist"},
      {"unknown_name", "a name does not refer to anything declared"},
      {"unknown_type", "a type name does not exist"},
      {"unreachable_arm", "a match arm can never be chosen"},
      {"wrong_argument_count", "a function is called with the wrong number of arguments"},
      {"zero_share_level", "every share of one level is zero"},
  };
  return summaries;
}

}  // namespace

std::string rule_summary(const std::string& code) {
  const auto& summaries = catalogue();
  if (auto found = summaries.find(code); found != summaries.end()) return found->second;
  std::string words = code;
  for (char& c : words) {
    if (c == '_') c = ' ';
  }
  return words;
}

std::string rule_name(const std::string& code) {
  std::string name;
  bool word_start = true;
  for (const char c : code) {
    if (c == '_') {
      word_start = true;
      continue;
    }
    name += word_start && c >= 'a' && c <= 'z' ? static_cast<char>(c - 'a' + 'A') : c;
    word_start = false;
  }
  return name;
}

}  // namespace allot
