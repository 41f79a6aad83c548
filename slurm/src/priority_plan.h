// Turning the ranked queue into Slurm priorities with as few writes as
// possible. Only the order matters to Slurm (a higher priority starts first),
// so jobs whose current priorities are already in rank order keep them, and
// the others are slotted into the gaps between them. A pass whose order did
// not change therefore writes nothing.
#pragma once

#include <cstdint>
#include <vector>

namespace allot::slurm {

// `current` holds each job's priority now, best-ranked job first. Returns the
// priorities to hold: strictly decreasing, within [floor, ceiling], equal to
// `current` for the longest run of jobs already in order, spread evenly in the
// gaps otherwise (everything spread evenly when a gap is too narrow).
std::vector<std::uint32_t> plan_priorities(const std::vector<std::uint32_t>& current, std::uint32_t floor,
                                           std::uint32_t ceiling);

}  // namespace allot::slurm
