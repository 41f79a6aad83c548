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

}  // namespace allot
