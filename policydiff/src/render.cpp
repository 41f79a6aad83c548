// A PolicyDiff for a terminal, a pull-request comment and tools. Every
// string that comes from a policy or a state is made printable (text) or
// escaped (Markdown tables), so a diff never carries control characters.
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <map>

#include "allot/dates.h"
#include "allot/duration.h"
#include "allot/policy_diff.h"
#include "allot/text.h"

namespace allot::policydiff {
namespace {

using Json = nlohmann::ordered_json;

constexpr std::size_t kTop = 10;  // places of the ranking diff shown

std::string percent(double fraction) { return support::format_decimal(fraction * 100, 2) + "%"; }

// "40% -> 45%", "40%" when equal, "(new) 45%", "40% (removed)".
std::string change(const std::optional<ShareChange::Side>& before, const std::optional<ShareChange::Side>& after,
                   double ShareChange::Side::*member, const char* arrow) {
  if (!before) return "new: " + percent((*after).*member);
  if (!after) return percent((*before).*member) + " (removed)";
  const std::string a = percent((*before).*member), b = percent((*after).*member);
  return a == b ? a : fmt::format("{} {} {}", a, arrow, b);
}

std::string day(Seconds now) { return support::format_timestamp(now).substr(0, 10); }

// The sections, in the order a reviewer reads them.
constexpr const char* kSections[] = {"policy", "unit", "tree", "class", "exception", "gate", "rank", "preempt"};
constexpr const char* kTitles[] = {"Policy", "Unit", "Tree", "Classes", "Exceptions", "Gates", "Rank", "Preempt"};

std::string subject_of(const Change& c) { return c.subject.empty() ? std::string() : "`" + c.subject + "` "; }

// A Markdown table cell: pipes escaped, new lines folded, markup characters kept literal.
std::string cell(const std::string& text) {
  std::string out;
  for (char c : support::printable(text)) {
    if (c == '|')
      out += "\\|";
    else if (c == '\n')
      out += ' ';
    else if (c == '<')
      out += "&lt;";
    else if (c == '>')
      out += "&gt;";
    else
      out += c;
  }
  return out;
}

std::string code(const std::string& text) { return text.empty() ? "(none)" : "`" + cell(text) + "`"; }

std::string wait(double seconds) {
  if (seconds <= 0) return "0";
  return support::format_duration_rounded(seconds);
}

std::string hours(double value) { return fmt::format("{:.1f}", value); }

std::string signed_hours(double value) {
  const std::string text = fmt::format("{:+.1f}", value);
  return text == "-0.0" || text == "+0.0" ? "0" : text;
}

// The replay's rows: one per program, then per class.
std::vector<std::vector<std::string>> replay_rows(const ReplayChange& replay) {
  std::vector<std::vector<std::string>> rows;
  for (const GroupChange& group : replay.groups) {
    rows.push_back({fmt::format("{} {}", group.kind, group.name), std::to_string(group.jobs),
                    fmt::format("{} -> {} ({})", hours(group.gpu_hours_before), hours(group.gpu_hours_after),
                                signed_hours(group.gpu_hours_after - group.gpu_hours_before)),
                    fmt::format("{} -> {}", wait(group.p50_wait_before), wait(group.p50_wait_after)),
                    fmt::format("{} -> {}", wait(group.p90_wait_before), wait(group.p90_wait_after)),
                    group.kind == "program"
                        ? fmt::format("{} -> {}", percent(group.delivered_before), percent(group.delivered_after))
                        : std::string("")});
  }
  return rows;
}

constexpr const char* kReplayColumns[] = {"group", "jobs", "GPU-hours", "p50 wait", "p90 wait", "delivered/owed"};

std::string replay_text(const ReplayChange& replay) {
  std::string out = fmt::format("\nReplay `{}` ({} jobs, the same arrivals under both): {}\n", replay.workload,
                                replay.jobs, replay.description);
  auto rows = replay_rows(replay);
  std::vector<std::size_t> widths(std::size(kReplayColumns));
  for (std::size_t c = 0; c < widths.size(); ++c) widths[c] = std::string_view(kReplayColumns[c]).size();
  for (const auto& row : rows) {
    for (std::size_t c = 0; c < row.size(); ++c) widths[c] = std::max(widths[c], row[c].size());
  }
  const auto line = [&](const std::vector<std::string>& cells) {
    std::string text = " ";
    for (std::size_t c = 0; c < cells.size(); ++c) text += fmt::format(" {:<{}}", cells[c], widths[c]);
    while (!text.empty() && text.back() == ' ') text.pop_back();
    return text + "\n";
  };
  out += line(std::vector<std::string>(std::begin(kReplayColumns), std::end(kReplayColumns)));
  for (const auto& row : rows) out += line(row);
  for (std::size_t i = 0; i < std::max(replay.gates_before.size(), replay.gates_after.size()); ++i) {
    out += fmt::format("  gate: {} -> {}\n", i < replay.gates_before.size() ? replay.gates_before[i] : "(none)",
                       i < replay.gates_after.size() ? replay.gates_after[i] : "(none)");
  }
  return out;
}

std::string replay_markdown(const ReplayChange& replay) {
  std::string out = fmt::format("\n#### Replay `{}`\n\n{} jobs, the same arrivals under both policies: {}\n\n",
                                cell(replay.workload), replay.jobs, cell(replay.description));
  out += "| group | jobs | GPU-hours | p50 wait | p90 wait | delivered/owed |\n| --- | --- | --- | --- | --- | --- |\n";
  for (const auto& row : replay_rows(replay)) {
    std::string line = "|";
    for (const std::string& value : row) line += " " + cell(value) + " |";
    out += line + "\n";
  }
  if (!replay.gates_before.empty() || !replay.gates_after.empty()) {
    out += "\n| gate before | gate after |\n| --- | --- |\n";
    for (std::size_t i = 0; i < std::max(replay.gates_before.size(), replay.gates_after.size()); ++i) {
      out += fmt::format("| {} | {} |\n", i < replay.gates_before.size() ? cell(replay.gates_before[i]) : "",
                         i < replay.gates_after.size() ? cell(replay.gates_after[i]) : "");
    }
  }
  return out;
}

}  // namespace

std::string diff_text(const PolicyDiff& diff) {
  std::string out =
      fmt::format("allot diff {} ({}) -> {} ({}), as of {}\n", diff.before_label, diff.before_hash.substr(0, 12),
                  diff.after_label, diff.after_hash.substr(0, 12), day(diff.now));
  if (same_meaning(diff)) {
    out += "  no change in meaning\n";
    if (diff.replay) out += replay_text(*diff.replay);
    return support::printable(out);
  }
  if (!diff.shares.empty()) {
    out += fmt::format("\nShares ({} of {} accounts change; as written -> in force -> of the cluster):\n",
                       diff.shares.size(), diff.accounts);
    std::size_t width = 0;
    for (const ShareChange& share : diff.shares) width = std::max(width, share.path.size());
    for (const ShareChange& share : diff.shares) {
      out += fmt::format("  {:<{}}  {}; in force {}; of the cluster {}\n", share.path, width,
                         change(share.before, share.after, &ShareChange::Side::policy_share, "->"),
                         change(share.before, share.after, &ShareChange::Side::in_force, "->"),
                         change(share.before, share.after, &ShareChange::Side::cluster, "->"));
    }
  }
  for (std::size_t s = 0; s < std::size(kSections); ++s) {
    bool titled = false;
    for (const Change& c : diff.changes) {
      if (c.section != kSections[s]) continue;
      if (!titled) out += fmt::format("\n{}:\n", kTitles[s]);
      titled = true;
      if (c.before.empty()) {
        out += fmt::format("  + {}{}: {}\n", subject_of(c), c.field, c.after);
      } else if (c.after.empty()) {
        out += fmt::format("  - {}{}: {}\n", subject_of(c), c.field, c.before);
      } else {
        out += fmt::format("  ~ {}{}: {} -> {}\n", subject_of(c), c.field, c.before, c.after);
      }
    }
  }
  if (diff.ranking) out += "\n" + runtime::render_rank_diff(*diff.ranking, kTop);
  if (diff.replay) out += replay_text(*diff.replay);
  return support::printable(out);
}

std::string diff_markdown(const PolicyDiff& diff) {
  std::string out = fmt::format("### Allot: {} → {}\n\n", code(diff.before_label), code(diff.after_label));
  out += fmt::format("Policy `{}` → `{}`, as of {}.\n", diff.before_hash.substr(0, 12), diff.after_hash.substr(0, 12),
                     day(diff.now));
  if (same_meaning(diff))
    return out + "\n**No change in meaning.**\n" + (diff.replay ? replay_markdown(*diff.replay) : "");
  if (!diff.shares.empty()) {
    out += fmt::format(
        "\n#### Shares\n\n{} of {} accounts change. *In force*: with the exceptions in force on {}.\n\n"
        "| account | as written | in force | of the cluster |\n| --- | --- | --- | --- |\n",
        diff.shares.size(), diff.accounts, day(diff.now));
    for (const ShareChange& share : diff.shares) {
      out += fmt::format("| {} | {} | {} | {} |\n", code(share.path),
                         change(share.before, share.after, &ShareChange::Side::policy_share, "→"),
                         change(share.before, share.after, &ShareChange::Side::in_force, "→"),
                         change(share.before, share.after, &ShareChange::Side::cluster, "→"));
    }
  }
  for (std::size_t s = 0; s < std::size(kSections); ++s) {
    std::string rows;
    for (const Change& c : diff.changes) {
      if (c.section != kSections[s]) continue;
      rows += fmt::format("| {} | {} | {} | {} |\n", c.subject.empty() ? "" : code(c.subject), cell(c.field),
                          c.before.empty() ? "(none)" : code(c.before), c.after.empty() ? "(none)" : code(c.after));
    }
    if (rows.empty()) continue;
    out += fmt::format("\n#### {}\n\n| | setting | before | after |\n| --- | --- | --- | --- |\n{}", kTitles[s], rows);
  }
  if (diff.ranking) {
    const runtime::RankDiff& ranking = *diff.ranking;
    out += fmt::format(
        "\n#### Queue\n\nOn the state at {}: {} waiting jobs, {} ranked by both policies, {} move; Kendall's tau "
        "{:.3f}.\n\n<details><summary>Ranking diff</summary>\n\n```\n{}```\n\n</details>\n",
        support::format_timestamp(ranking.now), ranking.jobs.size(), ranking.ranked_by_both, ranking.moved,
        ranking.kendall_tau, support::printable(runtime::render_rank_diff(ranking, kTop)));
  }
  if (diff.replay) out += replay_markdown(*diff.replay);
  return out;
}

std::string diff_json(const PolicyDiff& diff) {
  const auto side = [](const std::optional<ShareChange::Side>& value) {
    return value ? Json{{"policy_share", value->policy_share},
                        {"in_force", value->in_force},
                        {"cluster_share", value->cluster}}
                 : Json(nullptr);
  };
  Json shares = Json::array();
  for (const ShareChange& share : diff.shares) {
    shares.push_back({{"account", share.path}, {"before", side(share.before)}, {"after", side(share.after)}});
  }
  Json changes = Json::array();
  for (const Change& c : diff.changes) {
    changes.push_back({{"section", c.section},
                       {"subject", c.subject.empty() ? Json(nullptr) : Json(c.subject)},
                       {"field", c.field},
                       {"before", c.before.empty() ? Json(nullptr) : Json(c.before)},
                       {"after", c.after.empty() ? Json(nullptr) : Json(c.after)}});
  }
  Json ranking = nullptr;
  if (diff.ranking) {
    const runtime::RankDiff& r = *diff.ranking;
    Json jobs = Json::array();
    for (const runtime::RankChange& job : r.jobs) {
      jobs.push_back({{"job", job.job_id},
                      {"before", job.before_position ? Json(*job.before_position) : Json(nullptr)},
                      {"after", job.after_position ? Json(*job.after_position) : Json(nullptr)},
                      {"places_gained", job.places_gained()}});
    }
    ranking = {{"now", support::format_timestamp(r.now)},
               {"pending", r.jobs.size()},
               {"ranked_by_both", r.ranked_by_both},
               {"moved", r.moved},
               {"kendall_tau", r.kendall_tau},
               {"starts_gained", r.starts_gained},
               {"starts_lost", r.starts_lost},
               {"preemptions_gained", r.preemptions_gained},
               {"preemptions_lost", r.preemptions_lost},
               {"jobs", jobs}};
  }
  Json replay = nullptr;
  if (diff.replay) {
    Json groups = Json::array();
    for (const GroupChange& group : diff.replay->groups) {
      groups.push_back({{"kind", group.kind},
                        {"name", group.name},
                        {"jobs", group.jobs},
                        {"gpu_hours", {group.gpu_hours_before, group.gpu_hours_after}},
                        {"p50_wait", {group.p50_wait_before, group.p50_wait_after}},
                        {"p90_wait", {group.p90_wait_before, group.p90_wait_after}},
                        {"delivered", group.kind == "program" ? Json{group.delivered_before, group.delivered_after}
                                                              : Json(nullptr)}});
    }
    replay = {{"workload", diff.replay->workload},
              {"jobs", diff.replay->jobs},
              {"groups", groups},
              {"gates_before", diff.replay->gates_before},
              {"gates_after", diff.replay->gates_after}};
  }
  const Json document{{"schema", "allot.diff/1"},
                      {"before", {{"source", diff.before_label}, {"hash", diff.before_hash}}},
                      {"after", {{"source", diff.after_label}, {"hash", diff.after_hash}}},
                      {"now", support::format_timestamp(diff.now)},
                      {"same_meaning", same_meaning(diff)},
                      {"accounts", diff.accounts},
                      {"shares", shares},
                      {"changes", changes},
                      {"ranking", ranking},
                      {"replay", replay}};
  return document.dump(2, ' ', false, Json::error_handler_t::replace) + "\n";
}

}  // namespace allot::policydiff
