#include "priority_plan.h"

#include <algorithm>

namespace allot::slurm {
namespace {

// Positions of a longest strictly decreasing subsequence of `values` among
// the positions where `usable` holds (patience sorting, O(n log n)).
std::vector<std::size_t> longest_decreasing(const std::vector<std::uint32_t>& values, const std::vector<bool>& usable) {
  std::vector<std::size_t> tails;                            // tails[k]: position ending the best run of length k+1
  std::vector<std::size_t> before(values.size(), SIZE_MAX);  // the previous position in that run
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (!usable[i]) continue;
    // Runs decrease, so compare negated: the first tail whose value is <= values[i] is replaced.
    const auto at =
        std::partition_point(tails.begin(), tails.end(), [&](std::size_t t) { return values[t] > values[i]; });
    if (at != tails.begin()) before[i] = *(at - 1);
    if (at == tails.end()) {
      tails.push_back(i);
    } else {
      *at = i;
    }
  }
  std::vector<std::size_t> run;
  for (std::size_t i = tails.empty() ? SIZE_MAX : tails.back(); i != SIZE_MAX; i = before[i]) run.push_back(i);
  std::reverse(run.begin(), run.end());
  return run;
}

// Fills positions [begin, end) with evenly spread values strictly between
// `above` and `below`; false when there is no room.
bool spread(std::vector<std::uint32_t>& out, std::size_t begin, std::size_t end, std::uint64_t above,
            std::uint64_t below) {
  const std::uint64_t count = end - begin;
  if (count == 0) return true;
  if (above <= below || above - below < count + 1) return false;
  const std::uint64_t width = above - below;
  for (std::uint64_t j = 0; j < count; ++j)
    out[begin + j] = static_cast<std::uint32_t>(above - (j + 1) * width / (count + 1));
  return true;
}

}  // namespace

std::vector<std::uint32_t> plan_priorities(const std::vector<std::uint32_t>& current, std::uint32_t floor,
                                           std::uint32_t ceiling) {
  std::vector<bool> usable(current.size());
  for (std::size_t i = 0; i < current.size(); ++i) usable[i] = current[i] >= floor && current[i] <= ceiling;
  std::vector<std::uint32_t> planned(current.size());
  std::uint64_t above = std::uint64_t{ceiling} + 1;
  std::size_t next = 0;
  bool fits = true;
  for (std::size_t kept : longest_decreasing(current, usable)) {
    fits = fits && spread(planned, next, kept, above, current[kept]);
    planned[kept] = current[kept];
    above = current[kept];
    next = kept + 1;
  }
  fits = fits && spread(planned, next, current.size(), above, std::uint64_t{floor} - 1);
  if (fits) return planned;
  // No room between the kept jobs: spread everything over the whole band.
  if (!spread(planned, 0, current.size(), std::uint64_t{ceiling} + 1, std::uint64_t{floor} - 1)) {
    for (std::size_t i = 0; i < current.size(); ++i) {
      planned[i] =
          static_cast<std::uint32_t>(std::max<std::uint64_t>(floor, ceiling - std::min<std::uint64_t>(i, ceiling)));
    }
  }
  return planned;
}

}  // namespace allot::slurm
