#include "history_chart.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "allot/svg_plot.h"
#include "job_json.h"

namespace allot::service {
namespace {

// As many samples as GET /history lists.
constexpr std::size_t kMaxSamples = 20000;

// Each sample time's owed and delivered per program (samples come in time order).
struct Moments {
  std::vector<Seconds> at;
  std::vector<std::map<std::string, const Sample*, std::less<>>> accounts;
};

Moments by_time(const std::vector<Sample>& samples, const std::vector<std::string>& programs) {
  Moments moments;
  for (const Sample& sample : samples) {
    if (std::find(programs.begin(), programs.end(), sample.account) == programs.end()) continue;
    if (moments.at.empty() || moments.at.back() != sample.at) {
      moments.at.push_back(sample.at);
      moments.accounts.emplace_back();
    }
    moments.accounts.back()[sample.account] = &sample;
  }
  return moments;
}

// One program's line of `field` as a fraction of `owed_total` at each time; NaN where nothing was owed.
plot::PlotLine program_line(const Moments& moments, const std::vector<double>& owed_total, const std::string& program,
                            double Sample::*field) {
  plot::PlotLine line;
  for (std::size_t t = 0; t < moments.at.size(); ++t) {
    const auto found = moments.accounts[t].find(program);
    const bool owed = owed_total[t] > 1e-9 && found != moments.accounts[t].end();
    line.x.push_back(static_cast<double>(moments.at[t] - moments.at.front()) / 3600.0);
    line.y.push_back(owed ? found->second->*field / owed_total[t] : NAN);
  }
  return line;
}

}  // namespace

std::string history_chart(const std::vector<Sample>& samples, const std::vector<std::string>& programs,
                          const std::string& only) {
  const std::string title = only.empty() ? "delivered and owed share per program" : "delivered and owed share: " + only;
  const Moments moments = by_time(samples, programs);
  if (moments.at.empty()) return plot::with_style(plot::message_chart(title, "no history yet"));
  std::vector<double> owed_total(moments.at.size(), 0.0);
  for (std::size_t t = 0; t < moments.at.size(); ++t) {
    for (const auto& [name, sample] : moments.accounts[t]) owed_total[t] += sample->owed;
  }
  std::vector<plot::PlotLine> lines;
  for (std::size_t p = 0; p < programs.size(); ++p) {
    if (!only.empty() && programs[p] != only) continue;
    plot::PlotLine delivered = program_line(moments, owed_total, programs[p], &Sample::delivered);
    delivered.label = programs[p];
    delivered.color = plot::series_color(p);
    plot::PlotLine owed = program_line(moments, owed_total, programs[p], &Sample::owed);
    owed.label = programs[p] + " owed";
    owed.color = delivered.color;
    owed.dashed = true;
    owed.in_legend = false;
    if (std::all_of(owed.y.begin(), owed.y.end(), [](double y) { return std::isnan(y); })) continue;  // never owed
    lines.push_back(std::move(delivered));
    lines.push_back(std::move(owed));
  }
  lines.push_back(plot::PlotLine{"dashed: owed", "currentColor", {}, {}, true});
  plot::PlotOptions options;
  options.title = title;
  options.x_format = plot::AxisFormat::dates;
  options.y_format = plot::AxisFormat::percent;
  options.x_origin = static_cast<double>(moments.at.front());
  options.x_label = "date (UTC)";
  options.y_label = "% of all owed";
  options.label_ends = true;
  return plot::with_style(plot::line_chart(lines, options));
}

std::vector<std::string> program_names(const ReadModel& model) {
  const std::shared_ptr<const View> view = model.view();  // held: the cycle may publish a new one meanwhile
  std::vector<std::string> programs;
  for (const AccountInfo& account : view->policy->tables().accounts) {
    if (account.depth == 1) programs.push_back(account.path);
  }
  return programs;
}

Expected<std::string, ApiError> history_svg(const ReadModel& model, Seconds since, const std::string& account) {
  const std::vector<std::string> programs = program_names(model);
  if (!account.empty() && std::find(programs.begin(), programs.end(), account) == programs.end()) {
    return unexpected(
        ApiError{404, fmt::format("no program `{}`", account), "account", did_you_mean(account, programs)});
  }
  auto samples = model.samples(since, kMaxSamples);
  if (!samples) return unexpected(ApiError{503, samples.error(), "", ""});
  return history_chart(*samples, programs, account);
}

}  // namespace allot::service
