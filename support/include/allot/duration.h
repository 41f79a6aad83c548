// Durations as every reader of Allot's inputs accepts them (snapshots,
// inventories, replay and Slurm maps, the command line): one grammar and one
// range, so no stated duration can overflow the time arithmetic it enters.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace allot::support {

// The latest time any input may state, 9999-12-31T23:59:59Z in seconds since
// 1970: snapshots, ledger rows and replay maps all take times up to it.
inline constexpr std::int64_t kLatestEpochSeconds = 253'402'300'799;

// The longest duration any input may state: 100 years. A time before year
// 10000 plus a duration of this stays far inside std::int64_t seconds.
inline constexpr std::int64_t kMaxDurationSeconds = std::int64_t{100} * 366 * 86400;

// The one duration grammar of every input (policies, snapshots, inventories,
// replay and Slurm maps, the command line): whole numbers with the units w, d,
// h, m, s, largest first, each at most once ("90s", "7d", "1h30m", "2w3d"); or
// one number with a decimal part and one unit ("1.5h"). In seconds; nullopt for
// anything else, and for durations longer than kMaxDurationSeconds.
std::optional<double> parse_duration_seconds(std::string_view text);

// The same grammar without the limit: a duration however long (infinity past
// what a double holds), so the policy checker can say in context where one is
// too long. nullopt only for text outside the grammar.
std::optional<double> parse_duration_unbounded(std::string_view text);

// parse_duration_seconds, for inputs counted in whole seconds: "1.5h" is 5400,
// "0.5s" is nullopt.
std::optional<std::int64_t> parse_duration(std::string_view text);

// 5400 -> "1h30m": days, hours, minutes and seconds, largest first, zero parts
// left out; "0s" for 0 or less. The exact form: snapshots and maps write it
// (parse_duration reads it back), and messages quote contracts with it.
std::string format_duration(std::int64_t seconds);

// 5400 -> "1.5h": one unit, rounded (seconds and minutes whole, hours and days
// to a tenth). For reports, where waits are compared at a glance.
std::string format_duration_rounded(double seconds);

// True when `seconds` is a duration an input may state: 0 to kMaxDurationSeconds.
constexpr bool duration_in_range(std::int64_t seconds) { return seconds >= 0 && seconds <= kMaxDurationSeconds; }

}  // namespace allot::support
