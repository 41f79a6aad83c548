#include "progress_comment.h"

#include <charconv>
#include <vector>

#include <fmt/format.h>

#include "allot/dates.h"
#include "allot/duration.h"

namespace allot::slurm {
namespace {

constexpr std::string_view kPrefix = "allot:";
// A report is short; a longer word is not one (and is not echoed whole).
constexpr std::size_t kLongestWord = 128;

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

std::vector<std::string_view> words(std::string_view text) {
  std::vector<std::string_view> out;
  std::size_t i = 0;
  while (i < text.size()) {
    while (i < text.size() && is_space(text[i])) ++i;
    const std::size_t start = i;
    while (i < text.size() && !is_space(text[i])) ++i;
    if (i > start) out.push_back(text.substr(start, i - start));
  }
  return out;
}

bool is_report(std::string_view word) { return word.substr(0, kPrefix.size()) == kPrefix; }

std::optional<Seconds> epoch(std::string_view text) {
  Seconds value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size() || value < 0 || value > support::kLatestEpochSeconds)
    return std::nullopt;
  return value;
}

}  // namespace

Expected<std::optional<CommentReport>, std::string> read_comment_report(std::string_view comment) {
  std::optional<std::string_view> last;
  for (std::string_view word : words(comment)) {
    if (is_report(word)) last = word;
  }
  if (!last) return std::optional<CommentReport>();
  if (last->size() > kLongestWord) {
    return unexpected(fmt::format("`{}...` is longer than a report", last->substr(0, 24)));
  }
  CommentReport report;
  std::string_view rest = last->substr(kPrefix.size());
  while (!rest.empty()) {
    const std::size_t comma = rest.find(',');
    const std::string_view pair = rest.substr(0, comma);
    rest = comma == std::string_view::npos ? std::string_view() : rest.substr(comma + 1);
    const std::size_t equals = pair.find('=');
    const std::string_view key = pair.substr(0, equals);
    const std::optional<Seconds> value =
        equals == std::string_view::npos ? std::nullopt : epoch(pair.substr(equals + 1));
    std::optional<Seconds>* slot = key == "progress"     ? &report.progress
                                   : key == "checkpoint" ? &report.checkpoint
                                                         : nullptr;
    if (slot == nullptr || !value || slot->has_value()) {
      return unexpected(
          fmt::format("`{}` is not a report: expected `allot:progress=<epoch seconds>` with an optional "
                      "`,checkpoint=<epoch seconds>`",
                      *last));
    }
    *slot = value;
  }
  if (!report.progress && !report.checkpoint) {
    return unexpected(fmt::format("`{}` reports nothing: expected `allot:progress=<epoch seconds>`", *last));
  }
  return std::optional<CommentReport>(report);
}

std::string comment_without_report(std::string_view comment) {
  std::string out;
  bool had_report = false;
  for (std::string_view word : words(comment)) {
    if (is_report(word)) {
      had_report = true;
      continue;
    }
    if (!out.empty()) out += ' ';
    out += word;
  }
  // A comment without reports is kept as Slurm holds it (globs see its spaces).
  return had_report ? out : std::string(comment);
}

bool reports_earlier_run(const CommentReport& report, Seconds started) {
  const auto before = [&](const std::optional<Seconds>& at) { return !at || *at < started; };
  return before(report.progress) && before(report.checkpoint);
}

std::optional<std::string> report_problem(const CommentReport& report, Seconds started, Seconds now,
                                          const std::optional<CommentReport>& before) {
  const auto check = [&](const char* what, const std::optional<Seconds>& at,
                         const std::optional<Seconds>& earlier) -> std::optional<std::string> {
    if (!at) return std::nullopt;
    const std::string when = support::format_timestamp(*at);
    if (*at > now)
      return fmt::format("{} at {} is in the future (now is {})", what, when, support::format_timestamp(now));
    if (*at < started) {
      return fmt::format("{} at {} is before the job started ({})", what, when, support::format_timestamp(started));
    }
    if (earlier && *at < *earlier) {
      return fmt::format("{} at {} is older than the last one reported ({})", what, when,
                         support::format_timestamp(*earlier));
    }
    return std::nullopt;
  };
  if (auto problem = check("progress", report.progress, before ? before->progress : std::nullopt)) return problem;
  return check("a checkpoint", report.checkpoint, before ? before->checkpoint : std::nullopt);
}

}  // namespace allot::slurm
