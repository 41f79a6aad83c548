// "Did you mean": the one rule every reader of Allot's inputs (policies,
// inventories, snapshots, replay and Slurm maps, the command line) uses to
// suggest a known name for a misspelt one.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace allot::support {

// Optimal-string-alignment distance: the fewest single-character insertions,
// deletions, substitutions and swaps of two adjacent characters ("pirority" is
// one from "priority") that turn `a` into `b`; no substring is edited twice.
std::size_t edit_distance(std::string_view a, std::string_view b);

// The threshold: a candidate is a plausible typo of `name` when at most a third
// of `name`'s length differs, and at least one character may always differ.
constexpr std::size_t max_typo_distance(std::size_t name_length) { return name_length / 3 > 1 ? name_length / 3 : 1; }

// The candidate closest to `name` within max_typo_distance (the first one on
// ties), or "" when none is close enough.
std::string nearest_name(std::string_view name, const std::vector<std::string>& candidates);
std::string nearest_name(std::string_view name, const std::vector<std::string_view>& candidates);

}  // namespace allot::support
