#include "decisions.h"

#include <fmt/format.h>

#include "allot/dates.h"
#include "allot/duration.h"

namespace allot::runtime::cycle {
namespace {

const char* plural(std::size_t count) { return count == 1 ? "" : "s"; }

}  // namespace

std::string node_list(const Inventory& inventory, const std::vector<int>& nodes) {
  constexpr std::size_t kShown = 3;
  std::string text;
  for (std::size_t i = 0; i < nodes.size() && i < kShown; ++i) {
    if (i > 0) text += ", ";
    text += fmt::format("`{}`", inventory.nodes[static_cast<std::size_t>(nodes[i])].name);
  }
  if (nodes.size() > kShown) text += fmt::format(" and {} more", nodes.size() - kShown);
  return text;
}

std::string ordinal(std::size_t position) {
  const std::size_t n = position % 100;
  const char* suffix = (n >= 11 && n <= 13) ? "th"
                       : n % 10 == 1        ? "st"
                       : n % 10 == 2        ? "nd"
                       : n % 10 == 3        ? "rd"
                                            : "th";
  return fmt::format("{}{}", position, suffix);
}

std::string starts_on(const Inventory& inventory, const std::vector<int>& nodes, std::size_t position,
                      const std::string& how) {
  std::string text = fmt::format("starts on {}, {} in the queue", node_list(inventory, nodes), ordinal(position + 1));
  if (!how.empty()) text += ", " + how;
  return text;
}

std::string freed_capacity_free_now() { return "the capacity freed for it is free now"; }

std::string backfilled(const BackfillChoice& choice) {
  if (choice.held_for.empty()) return "";
  std::string for_jobs;
  for (const std::string& id : choice.held_for) for_jobs += fmt::format("{}`{}`", for_jobs.empty() ? "" : ", ", id);
  if (!choice.yields_at) {
    return fmt::format(
        "backfilled: its runtime limit ({}) ends by {}, when the capacity held there for {} is needed; it must end "
        "by then",
        support::format_duration(choice.limit), support::format_timestamp(choice.until), for_jobs);
  }
  const std::string runs = choice.bounded
                               ? fmt::format("its runtime limit ({}) runs past", support::format_duration(choice.limit))
                               : std::string("it has no runtime limit, so it may run past");
  return fmt::format(
      "backfilled until {}: {} then, when the capacity held there for {} is needed; it is preemptible and resumable, "
      "so it yields then (preempted after its grace, it resumes from its last checkpoint)",
      support::format_timestamp(*choice.yields_at), runs, for_jobs);
}

std::string beyond_placement_depth(std::size_t depth) {
  return fmt::format("beyond this cycle's placement depth ({} jobs)", depth);
}

std::string no_node_of_type(const std::string& gpu_type) { return fmt::format("no node has GPU type `{}`", gpu_type); }

std::string cannot_start(const std::string& why) {
  return fmt::format("it cannot start: {}; it keeps its place in the queue and takes no capacity from other jobs", why);
}

std::string waits_on_reservation(const Inventory& inventory, const Reservation& reservation) {
  return fmt::format("capacity on {} is reserved for it until {}; it starts once the preempted jobs there stop",
                     node_list(inventory, reservation.nodes), support::format_timestamp(reservation.until));
}

std::string reserved_until_they_stop(const Inventory& inventory, const std::vector<int>& nodes,
                                     const std::string& freed, Seconds release) {
  return fmt::format("capacity on {} is reserved for it {}; they stop by {} (their grace)", node_list(inventory, nodes),
                     freed, support::format_timestamp(release));
}

std::string held_for_it(const Inventory& inventory, const Hold& hold, Seconds now) {
  const std::string nodes = node_list(inventory, hold.claim.nodes);
  const char* verb = hold.claim.nodes.size() == 1 ? "is" : "are";
  if (!hold.when) {
    return fmt::format("{} {} held for it, so no job ranked below it starts there, until the jobs there end", nodes,
                       verb);
  }
  if (*hold.when <= now) {
    return fmt::format(
        "{} {} held for it; it should fit by now, but jobs there ran past their runtime limit and may not be stopped, "
        "so it waits for them to end",
        nodes, verb);
  }
  return fmt::format(
      "{} {} held for it from {} (when it is expected to fit); until then a job ranked below it may start there only "
      "if its runtime limit ends by then{} (backfill)",
      nodes, verb, support::format_timestamp(*hold.when),
      hold.lends_to_yielders ? ", or if it may yield the capacity back then" : "");
}

std::string holds_its_share(const std::string& account) {
  return fmt::format("`{}` holds its share already, so it waits for free capacity", account);
}

std::string fast_lane_full(const ClassInfo& lane, const std::string& program, long long held) {
  return fmt::format("the fast lane of class `{}` is full for `{}`: its jobs of the class hold {} of its {} GPU{}",
                     lane.name, program, held, lane.fast_lane_gpus, lane.fast_lane_gpus == 1 ? "" : "s");
}

std::string fast_lane_finds_no_room(const ClassInfo& lane) {
  return fmt::format("its fast lane (class `{}`) finds no running job past its protection that could make room",
                     lane.name);
}

std::string account_not_in_policy(const std::string& account, const std::string& policy) {
  return fmt::format("account `{}` is not in policy `{}`'s tree", account, policy);
}

std::string account_not_a_leaf(const std::string& account) {
  return fmt::format("account `{}` has sub-accounts; jobs run under a leaf account", account);
}

std::string class_not_in_policy(const std::string& job_class, const std::string& policy) {
  return fmt::format("class `{}` is not in policy `{}`", job_class, policy);
}

std::string node_down(const Node& node) { return fmt::format("node `{}` is down", node.name); }

std::string stalled_stop(Seconds stalled_since) {
  return fmt::format("no progress reported: stalled since {}, and its class stops stalled jobs",
                     support::format_timestamp(stalled_since));
}

std::string node_draining_until_checkpoint(const Node& node) {
  return fmt::format("node `{}` is draining; the job stops at its next checkpoint", node.name);
}

std::string node_draining_until_deadline(const Node& node) {
  return fmt::format("node `{}` is draining and must be empty by its deadline", node.name);
}

std::string preempted_by_share_rule(const JobRequest& requester, const RunningJob& victim) {
  return fmt::format("preempted for `{}`: `{}` is below its share and `{}` keeps at least its own", requester.id,
                     requester.account, victim.request.account);
}

std::string preempted_by_fast_lane(const JobRequest& requester, const ClassInfo& lane, const std::string& program) {
  return fmt::format(
      "preempted for `{}` through the fast lane of class `{}` (short jobs, protected for their whole run; `{}` may "
      "hold up to {} GPU{} this way)",
      requester.id, lane.name, program, lane.fast_lane_gpus, lane.fast_lane_gpus == 1 ? "" : "s");
}

std::string taken_back(const JobRequest& requester, const RunningJob& victim, Seconds now) {
  if (victim.contract.yields_at && *victim.contract.yields_at <= now) {
    return fmt::format("yields the capacity it was backfilled onto: it was held for `{}`, whose time has come",
                       requester.id);
  }
  return fmt::format("ran past its runtime limit on capacity held for `{}`, whose time has come", requester.id);
}

std::string freed_by_share_rule(std::size_t victims) {
  return fmt::format("after preempting {} job{}", victims, plural(victims));
}

std::string freed_by_fast_lane(const ClassInfo& lane, std::size_t victims) {
  return fmt::format("through the fast lane of class `{}` after preempting {} job{}", lane.name, victims,
                     plural(victims));
}

std::string freed_by_take_back(std::size_t victims) {
  return fmt::format("after stopping {} job{} past what {} promised backfill", victims, plural(victims),
                     victims == 1 ? "it" : "they");
}

}  // namespace allot::runtime::cycle
