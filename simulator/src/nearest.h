// "Did you mean": the candidate closest to a misspelt name.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace allot::simulator {

// The candidate within a small edit distance of `name` (the closest, the first on ties).
std::optional<std::string> nearest_name(std::string_view name, const std::vector<std::string>& candidates);

// "; did you mean `x`?" or "".
std::string did_you_mean(std::string_view name, const std::vector<std::string>& candidates);

}  // namespace allot::simulator
