#include "report_summary.h"

#include <fmt/format.h>

#include <algorithm>

#include "allot/svg_plot.h"
#include "report_verdict.h"

namespace allot::simulator {
using plot::escape_html;

namespace {

// "3 of 4 gates passed" and a link to each failing gate's row.
std::string gates_cell(const PolicyMetrics& metrics, std::size_t scenario, std::size_t policy) {
  if (metrics.gates.empty()) return "<span class=note>no gates</span>";
  const auto passed =
      std::count_if(metrics.gates.begin(), metrics.gates.end(), [](const GateResult& g) { return g.passed; });
  std::string cell = fmt::format(R"(<span class="{}">{} of {} gates passed</span>)",
                                 metrics.gates_passed ? "pass" : "fail", passed, metrics.gates.size());
  for (std::size_t g = 0; g < metrics.gates.size(); ++g) {
    if (metrics.gates[g].passed) continue;
    cell += fmt::format(R"(<br>failed: <a href="#{}"><code>{}</code></a>)", gate_anchor(scenario, policy, g),
                        escape_html(metrics.gates[g].text));
  }
  return cell;
}

std::string summary_row(const ScenarioReport& scenario, std::size_t index, std::size_t columns) {
  const Verdict verdict = compare_policies(scenario);
  std::string row =
      fmt::format(R"(<tr><td><a href="#{}">{}</a></td>)", scenario_anchor(index), escape_html(scenario.workload));
  for (std::size_t p = 0; p < columns; ++p) {
    if (p >= scenario.policies.size()) {
      row += "<td>-</td>";
      continue;
    }
    const std::string words = p < verdict.briefs.size() ? verdict.briefs[p] : "";
    row += "<td>";
    if (!words.empty()) {
      row += fmt::format(R"(<a href="#{}-verdict">{}</a><br>)", scenario_anchor(index), escape_html(words));
    }
    row += gates_cell(scenario.policies[p], index, p) + "</td>";
  }
  return row + "</tr>";
}

// The report's name of policy `p` (hand-made reports may list no policies).
std::string policy_name(const ReplayReport& report, std::size_t p) {
  if (p < report.policies.size()) return report.policies[p].first;
  for (const ScenarioReport& scenario : report.scenarios) {
    if (p < scenario.policies.size()) return scenario.policies[p].name;
  }
  return "";
}

}  // namespace

std::string scenario_anchor(std::size_t scenario) { return fmt::format("scenario-{}", scenario + 1); }

std::string gate_anchor(std::size_t scenario, std::size_t policy, std::size_t gate) {
  return fmt::format("{}-gate-{}-{}", scenario_anchor(scenario), policy + 1, gate + 1);
}

std::string summary_html(const ReplayReport& report) {
  std::size_t columns = 0;
  for (const ScenarioReport& scenario : report.scenarios) columns = std::max(columns, scenario.policies.size());
  std::string html =
      fmt::format(R"(<h2 id="{}">summary</h2><table class=summary><tr><th>scenario</th>)", kSummaryAnchor);
  for (std::size_t p = 0; p < columns; ++p) html += "<th>" + escape_html(policy_name(report, p)) + "</th>";
  html += "</tr>";
  for (std::size_t s = 0; s < report.scenarios.size(); ++s) html += summary_row(report.scenarios[s], s, columns);
  return html + "</table>";
}

}  // namespace allot::simulator
