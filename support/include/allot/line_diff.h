// A unified line diff of two texts: the dashboard's "diff of the last swap", and `allot fmt --diff`.
#pragma once

#include <optional>
#include <string>

namespace allot::support {

// Lines of `before` and `after` with "-", "+" or " " in front, each change
// with up to `context` unchanged lines around it and "@@ -a,b +c,d @@" heads.
// nullopt when the texts are too long to compare (more than 20,000 lines)
// or too different (more than 2,000 lines changed).
std::optional<std::string> unified_diff(const std::string& before, const std::string& after, int context = 3);

}  // namespace allot::support
