// render_rank_diff (allot/policy_slot.h): a ranking diff as an operator reads
// it before a swap. Positions are shown from 1, as people count places.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <map>

#include "allot/dates.h"
#include "allot/policy_slot.h"

namespace allot::runtime {
namespace {

std::string place(const std::optional<std::size_t>& position) {
  return position ? std::to_string(*position + 1) : std::string("-");
}

std::string rank_text(const std::optional<std::size_t>& position, double rank) {
  return position ? fmt::format("{:.6g}", rank) : std::string("-");
}

std::string change_text(const RankChange& job) {
  if (!job.before_position && !job.after_position) return "unranked";
  if (!job.before_position) return "new";
  if (!job.after_position) return "dropped";
  const long gained = job.places_gained();
  return gained == 0 ? std::string("=") : fmt::format("{:+}", gained);
}

// "a, b, c and 4 more".
std::string id_list(const std::vector<std::string>& ids, std::size_t shown = 8) {
  std::string text;
  for (std::size_t i = 0; i < ids.size() && i < shown; ++i) text += (i ? ", " : "") + ids[i];
  if (ids.size() > shown) text += fmt::format(" and {} more", ids.size() - shown);
  return text;
}

std::string change_line(const char* what, const std::vector<std::string>& gained,
                        const std::vector<std::string>& lost) {
  if (gained.empty() && lost.empty()) return fmt::format("  {} this cycle: no change\n", what);
  std::vector<std::string> parts;
  if (!gained.empty()) parts.push_back(fmt::format("{} gained ({})", gained.size(), id_list(gained)));
  if (!lost.empty()) parts.push_back(fmt::format("{} lost ({})", lost.size(), id_list(lost)));
  return fmt::format("  {} this cycle: {}\n", what, fmt::join(parts, ", "));
}

// Jobs the candidate does not rank, grouped by why (a removed account can strand many).
std::string unranked_lines(const RankDiff& diff) {
  std::map<std::string, std::vector<std::string>> by_reason;
  for (const RankChange& job : diff.jobs) {
    if (!job.after_position) by_reason[job.unranked_reason].push_back(job.job_id);
  }
  std::string text;
  for (const auto& [reason, ids] : by_reason) {
    text += fmt::format("  not ranked after the swap: {} job{} ({}): {}\n", ids.size(), ids.size() == 1 ? "" : "s",
                        id_list(ids), reason);
  }
  return text;
}

std::string top_table(const RankDiff& diff, std::size_t top) {
  std::string text = fmt::format("first {} places after the swap:\n", top);
  text += fmt::format("  {:>6} {:>6} {:>8} {:>12} {:>12}  {} ({})\n", "after", "before", "change", "rank before",
                      "rank after", "job", "account");
  for (const RankChange& job : diff.jobs) {
    if (!job.after_position || *job.after_position >= top) break;
    text += fmt::format("  {:>6} {:>6} {:>8} {:>12} {:>12}  {} ({}){}\n", place(job.after_position),
                        place(job.before_position), change_text(job), rank_text(job.before_position, job.before_rank),
                        rank_text(job.after_position, job.after_rank), job.job_id, job.account,
                        job.starts_after ? " starts" : "");
  }
  return text;
}

std::string crossing_line(const std::string& what, const std::vector<const RankChange*>& jobs) {
  if (jobs.empty()) return fmt::format("{}: none\n", what);
  std::string text = fmt::format("{}:", what);
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    text += fmt::format("{} {} ({} -> {})", i ? "," : "", jobs[i]->job_id, place(jobs[i]->before_position),
                        place(jobs[i]->after_position));
  }
  return text + "\n";
}

}  // namespace

std::string render_rank_diff(const RankDiff& diff, std::size_t top) {
  std::string text =
      fmt::format("ranking diff at {}: {} (running) -> {} (candidate)\n", support::format_timestamp(diff.now),
                  diff.before_hash.substr(0, 12), diff.after_hash.substr(0, 12));
  text += fmt::format("  {} pending jobs, {} ranked by both: {} move; Kendall tau {:.3f} ({} of {} pairs swap order)\n",
                      diff.jobs.size(), diff.ranked_by_both, diff.moved, diff.kendall_tau, diff.discordant_pairs,
                      diff.compared_pairs);
  text += unranked_lines(diff);
  text += change_line("starts", diff.starts_gained, diff.starts_lost);
  text += change_line("preemptions", diff.preemptions_gained, diff.preemptions_lost);
  if (top == 0) return text;
  text += top_table(diff, top);
  text += crossing_line(fmt::format("entering the first {}", top), diff.entering_top(top));
  text += crossing_line(fmt::format("leaving the first {}", top), diff.leaving_top(top));
  return text;
}

}  // namespace allot::runtime
