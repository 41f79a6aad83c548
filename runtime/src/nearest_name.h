// "Did you mean" for misspelt keys in runtime input files.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace allot::runtime {

// The candidate closest to `typo` by edit distance, or "" when none is close
// enough to be a plausible typo (more than a third of the word differs).
std::string nearest_name(std::string_view typo, const std::vector<std::string_view>& candidates);

}  // namespace allot::runtime
