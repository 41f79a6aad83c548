// The HTML report: one self-contained page (inline CSS and SVG, no scripts, no
// network): a summary of every workload's outcome first, then each workload's
// verdict, comparison table, gates (share delivery over time against its
// gates) and plots, each part with an id the summary and section links reach.
// The charts and their CSS are the plot library's, shared with `allot serve`'s
// dashboard.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "allot/simulator.h"
#include "allot/svg_plot.h"
#include "report_format.h"
#include "report_groups.h"
#include "report_summary.h"
#include "report_sweep.h"
#include "report_verdict.h"

namespace allot::simulator {
using plot::AxisFormat;
using plot::bar_chart;
using plot::escape_html;
using plot::has_positive_point;
using plot::line_chart;
using plot::PlotLine;
using plot::PlotOptions;

namespace {

const char* kStyle =
    R"(body{font-family:system-ui,-apple-system,Segoe UI,Helvetica,Arial,sans-serif;margin:24px;color:#222;max-width:1500px}
h1{font-size:22px}h2{font-size:18px;margin-top:36px;border-bottom:1px solid #ccc;padding-bottom:4px}h3{font-size:15px}
table{border-collapse:collapse;margin:8px 0 16px}td,th{padding:3px 10px;border-bottom:1px solid #eee;text-align:right}
td:first-child,th:first-child{text-align:left}tr.section td{font-weight:600;padding-top:10px}
table.gates td,table.gates th,table.summary td,table.summary th{text-align:left}
table.summary td{vertical-align:top}p.toc{font-size:13px}.pass{color:#137333;font-weight:600}.fail{color:#b3261e;font-weight:600}.note{color:#555}
.charts{display:flex;flex-wrap:wrap;gap:12px}
)";

template <class Cell>
std::string table_row(const std::string& label, const ScenarioReport& scenario, Cell cell) {
  std::string row = "<tr><td>" + escape_html(label) + "</td>";
  for (const PolicyMetrics& metrics : scenario.policies) row += "<td>" + cell(metrics) + "</td>";
  return row + "</tr>";
}

std::string section_row(const std::string& title, std::size_t columns) {
  return fmt::format(R"(<tr class="section"><td colspan="{}">{}</td></tr>)", columns + 1, escape_html(title));
}

std::string waits_cell(const GroupMetrics* group) {
  if (!group) return "-";
  return escape_html(wait_summary(*group)) + fmt::format(" <span class=note>of {}</span>", group->jobs);
}

std::string wait_rows(const ScenarioReport& scenario, GroupList list) {
  std::string html;
  for (const std::string& name : group_names(scenario, list)) {
    html += table_row(name, scenario, [&](const PolicyMetrics& m) { return waits_cell(find_group(m.*list, name)); });
  }
  return html;
}

std::string comparison_table(const ScenarioReport& scenario, Seconds threshold) {
  const std::size_t columns = scenario.policies.size();
  std::string html = "<table><tr><th></th>";
  for (const PolicyMetrics& metrics : scenario.policies) html += "<th>" + escape_html(metrics.name) + "</th>";
  html += "</tr>" + section_row("wait p50 / p90 by class", columns);
  html += table_row("all jobs", scenario, [](const PolicyMetrics& m) { return waits_cell(&m.all); });
  html += wait_rows(scenario, &PolicyMetrics::classes);
  html += section_row("wait p50 / p90 by size", columns);
  html += wait_rows(scenario, &PolicyMetrics::sizes);
  html += section_row("wait p50 / p90 by program", columns);
  html += wait_rows(scenario, &PolicyMetrics::programs);
  html += section_row("share delivered / owed", columns);
  for (const std::string& name : group_names(scenario, &PolicyMetrics::programs)) {
    html += table_row(name, scenario, [&](const PolicyMetrics& m) {
      const GroupMetrics* group = find_group(m.programs, name);
      if (!group || !group->share || group->share->owed <= 0) return std::string("-");
      return format_percent(group->share->delivered / group->share->owed);
    });
  }
  html += section_row("cluster", columns);
  html += table_row("first progress p90", scenario,
                    [](const PolicyMetrics& m) { return support::format_duration_rounded(m.all.p90_first_progress); });
  html += table_row("max wait", scenario,
                    [](const PolicyMetrics& m) { return support::format_duration_rounded(m.all.max_wait); });
  html += table_row("starved (> " + support::format_duration_rounded(static_cast<double>(threshold)) + ")", scenario,
                    [](const PolicyMetrics& m) { return std::to_string(m.all.starved); });
  html += table_row("lost work", scenario, [](const PolicyMetrics& m) {
    return fmt::format("{} ({:.1f} GPU-h)", format_percent(m.lost_work), m.all.lost_gpu_hours);
  });
  html += table_row("occupancy", scenario, [](const PolicyMetrics& m) { return format_percent(m.occupancy); });
  html += table_row("fragmented (of free)", scenario, [](const PolicyMetrics& m) {
    return fmt::format("{} ({:.1f} GPUs)", format_percent(m.fragmentation), m.fragmented_gpus);
  });
  html += table_row("unassigned (beyond programs' shares)", scenario,
                    [](const PolicyMetrics& m) { return format_percent(m.unassigned_share); });
  html += table_row("beyond users' own shares", scenario,
                    [](const PolicyMetrics& m) { return format_percent(m.beyond_user_share); });
  html += table_row("deadline SLO", scenario, [](const PolicyMetrics& m) {
    return m.deadline_slo ? format_percent(*m.deadline_slo) : std::string("-");
  });
  html += table_row("unfinished at the end", scenario, [](const PolicyMetrics& m) {
    return fmt::format("{} started, {} never started", m.all.started - m.all.completed, m.all.jobs - m.all.started);
  });
  if (scenario.hanging_jobs > 0) {
    html += section_row("hung jobs: GPU-h held while hung / recovered / lost", columns);
    html += table_row("all jobs", scenario, [](const PolicyMetrics& m) { return escape_html(hung_summary(m.all)); });
    for (const std::string& name : group_names(scenario, &PolicyMetrics::programs)) {
      html += table_row(name, scenario, [&](const PolicyMetrics& m) {
        const GroupMetrics* group = find_group(m.programs, name);
        return group ? escape_html(hung_summary(*group)) : std::string("-");
      });
    }
  }
  return html + "</table>";
}

// The verdict first: one sentence per policy, then each measure against the baseline.
std::string verdict_section(const ScenarioReport& scenario, const std::string& anchor) {
  const Verdict verdict = compare_policies(scenario);
  if (verdict.rows.empty()) return "";
  std::string html = fmt::format(R"(<h3 id="{}-verdict">verdict</h3>)", anchor);
  for (const std::string& sentence : verdict.summaries) html += "<p>" + escape_html(sentence) + "</p>";
  html += "<table><tr><th>measure</th>";
  for (const PolicyMetrics& metrics : scenario.policies) html += "<th>" + escape_html(metrics.name) + "</th>";
  html += "</tr>";
  for (const VerdictRow& row : verdict.rows) {
    html += "<tr><td>" + escape_html(row.measure) + "</td>";
    for (std::size_t p = 0; p < row.values.size(); ++p) {
      const Comparison comparison = row.comparisons[p];
      html += "<td>" + escape_html(row.values[p]);
      if (comparison == Comparison::better || comparison == Comparison::worse) {
        html += fmt::format(R"( <span class="{}">{}, {}</span>)", comparison == Comparison::better ? "pass" : "fail",
                            escape_html(row.differences[p]), comparison_word(comparison));
      } else if (comparison == Comparison::same) {
        html += " <span class=note>same</span>";
      }
      html += "</td>";
    }
    html += "</tr>";
  }
  return html + "</table>";
}

// Whether the gate has a chart (gate_charts): a share_delivery gate that measured something.
bool has_gate_chart(const GateResult& gate) { return gate.windows && gate.value; }

// Each gate's row carries an id (the summary links failing ones); a gate with a chart links to it.
std::string gates_table(const ScenarioReport& scenario, std::size_t index) {
  std::string html =
      "<table class=gates><tr><th>policy</th><th>gate</th><th>measured</th><th>verdict</th><th>on what</th></tr>";
  for (std::size_t p = 0; p < scenario.policies.size(); ++p) {
    const PolicyMetrics& metrics = scenario.policies[p];
    for (std::size_t g = 0; g < metrics.gates.size(); ++g) {
      const GateResult& gate = metrics.gates[g];
      const std::string anchor = gate_anchor(index, p, g);
      const std::string value = gate.value ? format_metric(gate.gate.metric, *gate.value) : "n/a";
      const std::string chart =
          has_gate_chart(gate) ? fmt::format(R"( (<a href="#{}-chart">over time</a>))", anchor) : "";
      html += fmt::format(
          R"(<tr id="{}"><td>{}</td><td><code>{}</code></td><td>{}{}</td><td class="{}">{}</td><td class=note>{}</td></tr>)",
          anchor, escape_html(metrics.name), escape_html(gate.text), value, chart, gate.passed ? "pass" : "fail",
          gate.passed ? "pass" : "FAIL",
          escape_html(gate.detail) + (gate.why.empty() ? "" : "<br>why: " + escape_html(gate.why)));
    }
  }
  return html + "</table>";
}

// Plots of one heading, and a line for each plot left out because it would be empty.
struct Charts {
  std::string svg;
  std::vector<std::string> left_out;

  // Draws the chart when `drawn`, else says `when_empty` instead.
  void add(bool drawn, const std::string& chart, const std::string& when_empty) {
    if (drawn) {
      svg += chart;
    } else {
      left_out.push_back(when_empty);
    }
  }

  std::string render(const std::string& heading, const std::string& id) const {
    std::string html = fmt::format(R"(<h3 id="{}">{}</h3>)", id, escape_html(heading));
    if (!svg.empty()) html += "<div class=charts>" + svg + "</div>";
    for (const std::string& line : left_out) html += "<p class=note>" + escape_html(line) + "</p>";
    return html;
  }
};

// Up to 200 points of a CDF of sorted waits (waits under a second drawn at one second).
PlotLine wait_cdf(const GroupMetrics& group, std::size_t policy, const std::string& label) {
  PlotLine line{label, plot::series_color(policy), {}, {}};
  const std::size_t n = group.waits.size(), points = std::min<std::size_t>(n, 200);
  for (std::size_t k = 0; k < points; ++k) {
    const std::size_t index = (k + 1) * n / points - 1;
    line.x.push_back(std::max(1.0, group.waits[index]));
    line.y.push_back(static_cast<double>(index + 1) / static_cast<double>(n));
  }
  return line;
}

Charts wait_charts(const ScenarioReport& scenario) {
  Charts charts;
  std::vector<std::string> names = {"all"};
  for (const std::string& name : group_names(scenario, &PolicyMetrics::classes)) names.push_back(name);
  for (const std::string& name : names) {
    std::vector<PlotLine> lines;
    bool waited = false;
    for (std::size_t p = 0; p < scenario.policies.size(); ++p) {
      const PolicyMetrics& m = scenario.policies[p];
      const GroupMetrics* group = name == "all" ? &m.all : find_group(m.classes, name);
      if (!group || group->waits.empty()) continue;
      lines.push_back(wait_cdf(*group, p, m.name));
      waited = waited || group->waits.back() > 0;
    }
    PlotOptions options{"wait-time CDF: " + name, AxisFormat::duration, AxisFormat::percent, true, 0, 1.0, true};
    options.x_label = "wait (log scale)";
    options.y_label = "% of jobs";
    charts.add(waited, waited ? line_chart(lines, options) : "",
               name == "all" ? "no job waited" : "no jobs of class " + name + " waited");
  }
  return charts;
}

// One line per policy of a per-point series picked by `values`; negative values break the line.
template <class Values>
std::vector<PlotLine> over_time(const ScenarioReport& scenario, Values values) {
  std::vector<PlotLine> lines;
  for (std::size_t p = 0; p < scenario.policies.size(); ++p) {
    const PolicyMetrics& m = scenario.policies[p];
    PlotLine line{m.name, plot::series_color(p), m.series.hours, values(m)};
    for (double& y : line.y) y = y < 0 ? NAN : y;
    lines.push_back(std::move(line));
  }
  return lines;
}

// A chart over the replay's dates, with the unit of its y axis.
PlotOptions over_dates(const ScenarioReport& scenario, const std::string& title, AxisFormat y_format,
                       std::optional<double> y_max, const std::string& y_label) {
  PlotOptions options{title, AxisFormat::dates, y_format, false, 0, y_max, false};
  options.x_label = "date (UTC)";
  options.y_label = y_label;
  options.x_origin = static_cast<double>(scenario.start);
  return options;
}

// Whether any line has a point at all (delivery 0% is a point; NaN is not).
bool has_point(const std::vector<PlotLine>& lines) {
  for (const PlotLine& line : lines) {
    for (double y : line.y) {
      if (!std::isnan(y)) return true;
    }
  }
  return false;
}

Charts time_charts(const ScenarioReport& scenario) {
  Charts charts;
  for (const std::string& name : group_names(scenario, &PolicyMetrics::programs)) {
    const auto lines = over_time(scenario, [&](const PolicyMetrics& m) {
      for (std::size_t p = 0; p < m.programs.size(); ++p) {
        if (m.programs[p].name == name && p < m.series.program_delivery.size()) return m.series.program_delivery[p];
      }
      return std::vector<double>(m.series.hours.size(), -1.0);
    });
    charts.add(has_point(lines),
               line_chart(lines, over_dates(scenario, "share delivered / owed: " + name, AxisFormat::percent, 1.05,
                                            "% of owed")),
               "nothing was owed to program " + name);
  }
  const auto occupancy = over_time(scenario, [](const PolicyMetrics& m) { return m.series.occupancy; });
  charts.add(has_positive_point(occupancy),
             line_chart(occupancy, over_dates(scenario, "occupancy", AxisFormat::percent, 1.05, "% of GPUs up")),
             "no GPU was used");
  const auto fragmented = over_time(scenario, [](const PolicyMetrics& m) { return m.series.fragmented_gpus; });
  charts.add(has_positive_point(fragmented),
             line_chart(fragmented, over_dates(scenario, "fragmented GPUs (free, fit no waiting job)",
                                               AxisFormat::number, std::nullopt, "GPUs")),
             "no GPU was fragmented (free GPUs always fitted a waiting job, or none waited)");
  const auto waiting = over_time(scenario, [](const PolicyMetrics& m) { return m.series.waiting_jobs; });
  charts.add(has_positive_point(waiting),
             line_chart(waiting, over_dates(scenario, "jobs waiting", AxisFormat::number, std::nullopt, "jobs")),
             "no job was ever waiting");
  return charts;
}

Charts lost_work_charts(const ScenarioReport& scenario) {
  std::vector<std::string> categories = group_names(scenario, &PolicyMetrics::classes);
  std::vector<PlotLine> series;
  for (std::size_t p = 0; p < scenario.policies.size(); ++p) {
    const PolicyMetrics& m = scenario.policies[p];
    PlotLine bars{m.name, plot::series_color(p), {}, {}};
    for (const std::string& name : categories) {
      const GroupMetrics* group = find_group(m.classes, name);
      bars.y.push_back(group ? group->lost_gpu_hours : 0);
    }
    series.push_back(std::move(bars));
  }
  Charts charts;
  const bool lost = has_positive_point(series);
  charts.add(lost,
             bar_chart("work lost to preemption by class", categories, series, AxisFormat::number, "GPU-hours") +
                 line_chart(over_time(scenario, [](const PolicyMetrics& m) { return m.series.lost_gpu_hours; }),
                            over_dates(scenario, "work lost over time", AxisFormat::number, std::nullopt, "GPU-hours")),
             "no work was lost to preemption");
  return charts;
}

// One share_delivery gate over time: each program's delivery over the gate's
// window ending at each point, and the gate's threshold, so a reader sees when
// and by how much the gate was passed or failed.
std::string gate_chart(const ScenarioReport& scenario, const PolicyMetrics& metrics, const GateResult& gate,
                       const std::string& anchor) {
  const GateWindows& windows = *gate.windows;
  std::vector<PlotLine> lines;
  for (std::size_t p = 0; p < windows.programs.size(); ++p) {
    const auto& [name, delivery] = windows.programs[p];
    if (std::all_of(delivery.begin(), delivery.end(), [](double y) { return std::isnan(y); })) continue;
    PlotLine line{name, plot::series_color(p), windows.window_end_hours, delivery};
    if (line.x.size() == 1) {  // one window, as long as the replay: drawn across it
      line.x.insert(line.x.begin(), line.x.front() - windows.window_hours);
      line.y.push_back(line.y.front());
    }
    lines.push_back(std::move(line));
  }
  const std::string over = support::format_duration(std::llround(windows.window_hours * 3600));
  PlotOptions options = over_dates(scenario, fmt::format("{}: share delivered over each {} window", metrics.name, over),
                                   AxisFormat::percent, std::nullopt, "% of owed delivered");
  options.x_label = "end of the window (UTC)";
  options.thresholds = {{gate.gate.threshold, gate.text}};
  options.label_ends = true;
  const std::size_t points = windows.window_end_hours.size();
  options.markers = points > 1 && points <= 24;  // few windows: each one a dot
  return fmt::format(R"(<span id="{}-chart">{}</span>)", anchor, line_chart(lines, options));
}

// A chart for each share_delivery gate of each policy; a note when no gate measures share delivery.
Charts gate_charts(const ScenarioReport& scenario, std::size_t index) {
  Charts charts;
  bool any = false;
  for (std::size_t p = 0; p < scenario.policies.size(); ++p) {
    const PolicyMetrics& metrics = scenario.policies[p];
    for (std::size_t g = 0; g < metrics.gates.size(); ++g) {
      const GateResult& gate = metrics.gates[g];
      if (!gate.windows) continue;
      any = true;
      charts.add(has_gate_chart(gate),
                 has_gate_chart(gate) ? gate_chart(scenario, metrics, gate, gate_anchor(index, p, g)) : "",
                 fmt::format("`{}`'s gate `{}` measured nothing: no program had sustained demand in any window",
                             metrics.name, gate.text));
    }
  }
  if (!any) charts.left_out.push_back("no gate measures share delivery");
  return charts;
}

// Links to the summary and to the parts of a section.
std::string section_links(const ScenarioReport& scenario, const std::string& anchor) {
  std::string html = fmt::format(R"(<p class=toc><a href="#{}">back to summary</a>)", kSummaryAnchor);
  std::vector<std::pair<std::string, std::string>> parts;
  if (scenario.policies.size() >= 2) parts.emplace_back("verdict", "verdict");
  parts.insert(parts.end(), {{"gates", "gates"},
                             {"gate-charts", "gates over time"},
                             {"waiting", "waiting"},
                             {"over-time", "over time"},
                             {"lost-work", "lost work"}});
  for (const auto& [suffix, words] : parts)
    html += fmt::format(R"( &middot; <a href="#{}-{}">{}</a>)", anchor, suffix, words);
  return html + "</p>";
}

std::string scenario_section(const ScenarioReport& scenario, std::size_t index, const ReplayReport& report) {
  const std::string anchor = scenario_anchor(index);
  std::string html = fmt::format(R"(<h2 id="{}">{}</h2>)", anchor, escape_html(scenario.workload));
  html += section_links(scenario, anchor);
  html += fmt::format("<p>{}</p><p class=note>{} jobs, {} to {}</p>", escape_html(scenario.description), scenario.jobs,
                      support::format_day(scenario.start), support::format_day(scenario.end));
  for (const std::string& note : scenario.notes) html += "<p class=note>note: " + escape_html(note) + "</p>";
  html += verdict_section(scenario, anchor);
  html += comparison_table(scenario, report.starvation_threshold);
  html += fmt::format(R"(<h3 id="{}-gates">gates</h3>)", anchor) + gates_table(scenario, index);
  html += gate_charts(scenario, index).render("share delivery against its gates, over time", anchor + "-gate-charts");
  html += sweep_html(scenario);
  html += wait_charts(scenario).render("waiting", anchor + "-waiting");
  html += time_charts(scenario).render("share, occupancy and fragmentation over time", anchor + "-over-time");
  html += lost_work_charts(scenario).render("lost work", anchor + "-lost-work");
  return html;
}

}  // namespace

std::string render_html(const ReplayReport& report) {
  std::string html =
      "<!DOCTYPE html>\n<html lang=en><head><meta charset=utf-8><title>allot replay: " + escape_html(report.cluster) +
      "</title><style>" + kStyle + plot::chart_style() + "</style></head><body>";
  html += fmt::format(
      "<h1>allot replay on cluster <code>{}</code> ({} GPUs up{}, {} node{})</h1><p>policies: ",
      escape_html(report.cluster), report.cluster_gpus,
      report.cluster_gpus_down > 0 ? fmt::format(", {} on nodes down or draining", report.cluster_gpus_down) : "",
      report.cluster_nodes, report.cluster_nodes == 1 ? "" : "s");
  for (std::size_t p = 0; p < report.policies.size(); ++p) {
    html += fmt::format(R"({}<span style="color:{}">&#9632;</span> <b>{}</b> <code>{}</code>)", p ? ", " : "",
                        plot::series_color(p), escape_html(report.policies[p].first),
                        escape_html(report.policies[p].second));
  }
  if (report.seed) html += fmt::format("; seed {}", *report.seed);
  html += "</p>" + summary_html(report);
  for (std::size_t s = 0; s < report.scenarios.size(); ++s) html += scenario_section(report.scenarios[s], s, report);
  return html + "</body></html>\n";
}

}  // namespace allot::simulator
