// "Did you mean ...?" for misspelt names.
#pragma once

#include <string>
#include <vector>

namespace allot {

// The candidate closest to `name` if it is a plausible typo of it, else empty
// (support::nearest_name: one rule for every input Allot reads).
std::string closest_name(const std::string& name, const std::vector<std::string>& candidates);

// `help` text for an unknown name: "did you mean `x`?" or "expected one of ...".
std::string suggest(const std::string& name, const std::vector<std::string>& candidates);

// For a name too far from every candidate to be a typo (`gpu_count`), the
// candidates that share a word with it (`gpus`, `gpus_per_node`): words are the
// parts between underscores, and one matches another when either starts with the
// other and both have at least three letters. "did you mean `gpus` or
// `gpus_per_node`?", or "" when none shares a word.
std::string suggest_by_words(const std::string& name, const std::vector<std::string>& candidates);

}  // namespace allot
