// "Did you mean ...?" for misspelt names.
#pragma once

#include <string>
#include <vector>

namespace allot {

// The candidate closest to `name` by edit distance, if it is close enough to
// be a plausible typo (at most a third of the name's length); else empty.
std::string closest_name(const std::string& name, const std::vector<std::string>& candidates);

// `help` text for an unknown name: "did you mean `x`?" or "expected one of ...".
std::string suggest(const std::string& name, const std::vector<std::string>& candidates);

}  // namespace allot
