// The sentences the cycle's decisions carry for people (Decision::reason),
// all in one place: why a job starts where it starts, why it waits, why a
// running job is stopped. Times and durations in them are printed by support/
// (dates.h, duration.h). The planners (backfill.h, preemption.h) return
// choices; the cycle words them here. Two kinds of reason are worded where
// the knowledge is: why a shape does not fit the free capacity
// (NodePool::failure_reason, placement.h) and why a job breaks its class's
// limits (class_limit_problem, allot/contracts.h).
#pragma once

#include <string>
#include <vector>

#include "allot/cycle.h"
#include "backfill.h"

namespace allot::runtime::cycle {

// "`gpu-01`", "`gpu-01`, `gpu-02`", "`gpu-01`, `gpu-02`, `gpu-03` and 5 more".
std::string node_list(const Inventory& inventory, const std::vector<int>& nodes);

// "1st", "2nd", "23rd".
std::string ordinal(std::size_t position);

// --- starts ---

// "starts on `gpu-01`, 3rd in the queue", then `how` when it says more.
std::string starts_on(const Inventory& inventory, const std::vector<int>& nodes, std::size_t position,
                      const std::string& how);
// How a job starts on capacity freed for it by preemption in an earlier cycle.
std::string freed_capacity_free_now();
// How a job starts on held capacity (empty when it uses none).
std::string backfilled(const BackfillChoice& choice);

// --- waits ---

std::string beyond_placement_depth(std::size_t depth);
std::string no_node_of_type(const std::string& gpu_type);
// A job that may not start whatever the policy decides (PendingJob::cannot_start):
// it keeps its place in the queue and takes no one's capacity.
std::string cannot_start(const std::string& why);
std::string waits_on_reservation(const Inventory& inventory, const Reservation& reservation);
// Capacity freed for it by stopping jobs with a grace (`freed`: how, from
// freed_by_*), reserved until they stop at `release`.
std::string reserved_until_they_stop(const Inventory& inventory, const std::vector<int>& nodes,
                                     const std::string& freed, Seconds release);
// Capacity held for a blocked job (blocked_hold.h), from `when` when known.
std::string held_for_it(const Inventory& inventory, const Hold& hold, Seconds now);
std::string holds_its_share(const std::string& account);
std::string fast_lane_full(const ClassInfo& lane, const std::string& program, long long held);
std::string fast_lane_finds_no_room(const ClassInfo& lane);

// Why a waiting job is not ranked at all (PendingJob::problem).
std::string account_not_in_policy(const std::string& account, const std::string& policy);
std::string account_not_a_leaf(const std::string& account);
std::string class_not_in_policy(const std::string& job_class, const std::string& policy);

// --- stops (for a drain: drain.h) ---

std::string node_down(const Node& node);
std::string stalled_stop(Seconds stalled_since);
std::string node_draining_until_checkpoint(const Node& node);
std::string node_draining_until_deadline(const Node& node);

// --- stops (a running job preempted for a waiting one) ---

std::string preempted_by_share_rule(const JobRequest& requester, const RunningJob& victim);
std::string preempted_by_fast_lane(const JobRequest& requester, const ClassInfo& lane, const std::string& program);
// Take-back: the victim ran past its runtime limit or its yield time on capacity held for `requester`.
std::string taken_back(const JobRequest& requester, const RunningJob& victim, Seconds now);

// How the waiting job's capacity was freed, for its start or reservation.
std::string freed_by_share_rule(std::size_t victims);
std::string freed_by_fast_lane(const ClassInfo& lane, std::size_t victims);
std::string freed_by_take_back(std::size_t victims);

}  // namespace allot::runtime::cycle
