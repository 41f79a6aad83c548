// The terminal comparison: one table per workload, one column per policy, the
// seed's measures per class and per program, then each policy's gates.
#include <fmt/format.h>

#include <algorithm>

#include "allot/simulator.h"
#include "allot/text.h"
#include "report_format.h"
#include "report_groups.h"
#include "report_sweep.h"
#include "report_verdict.h"
#include "text_table.h"

namespace allot::simulator {
namespace {

template <class Cell>
std::vector<std::string> cells(const ScenarioReport& scenario, Cell cell) {
  std::vector<std::string> out;
  for (const PolicyMetrics& metrics : scenario.policies) out.push_back(cell(metrics));
  return out;
}

void wait_rows(const ScenarioReport& scenario, Table& table, GroupList list) {
  for (const std::string& name : group_names(scenario, list)) {
    table.row("  " + name, cells(scenario, [&](const PolicyMetrics& m) {
                const GroupMetrics* group = find_group(m.*list, name);
                return group ? wait_summary(*group) : std::string("-");
              }));
  }
}

void class_rows(const ScenarioReport& scenario, Table& table) {
  table.section("wait p50 / p90 by class");
  table.row("  all jobs", cells(scenario, [](const PolicyMetrics& m) { return wait_summary(m.all); }));
  wait_rows(scenario, table, &PolicyMetrics::classes);
  table.section("wait p50 / p90 by size");
  wait_rows(scenario, table, &PolicyMetrics::sizes);
  table.row("first progress p90", cells(scenario, [](const PolicyMetrics& m) {
              return support::format_duration_rounded(m.all.p90_first_progress);
            }));
  table.row("max wait",
            cells(scenario, [](const PolicyMetrics& m) { return support::format_duration_rounded(m.all.max_wait); }));
}

void program_rows(const ScenarioReport& scenario, Table& table) {
  table.section("share delivered / owed");
  for (const std::string& name : group_names(scenario, &PolicyMetrics::programs)) {
    table.row("  " + name, cells(scenario, [&](const PolicyMetrics& m) {
                const GroupMetrics* group = find_group(m.programs, name);
                if (!group || !group->share || group->share->owed <= 0) return std::string("-");
                return format_percent(group->share->delivered / group->share->owed);
              }));
  }
}

// What held the capacity programs below their share lacked, summed over programs.
void shortfall_rows(const ScenarioReport& scenario, Table& table) {
  table.section("undelivered to programs (unit-h), by what held it");
  table.row("  all", cells(scenario, [](const PolicyMetrics& m) {
              double total = 0;
              for (const GroupMetrics& group : m.programs) {
                if (group.share) total += group.share->owed - group.share->delivered;
              }
              return fmt::format("{:.1f}", total);
            }));
  for (std::size_t c = 0; c < kShortfallCauses; ++c) {
    table.row(fmt::format("  {}", kShortfallWords[c].label), cells(scenario, [&](const PolicyMetrics& m) {
                double part = 0, total = 0;
                for (const GroupMetrics& group : m.programs) {
                  if (!group.share) continue;
                  part += group.share->shortfall[c];
                  for (double hours : group.share->shortfall) total += hours;
                }
                return total > 0 ? fmt::format("{:.1f} ({})", part, format_percent(part / total)) : std::string("-");
              }));
  }
}

void cluster_rows(const ScenarioReport& scenario, Table& table, Seconds threshold) {
  table.row(fmt::format("starved (> {})", support::format_duration_rounded(static_cast<double>(threshold))),
            cells(scenario, [](const PolicyMetrics& m) { return fmt::format("{}", m.all.starved); }));
  table.row("lost work", cells(scenario, [](const PolicyMetrics& m) {
              return fmt::format("{} ({:.1f} GPU-h)", format_percent(m.lost_work), m.all.lost_gpu_hours);
            }));
  table.row("occupancy", cells(scenario, [](const PolicyMetrics& m) { return format_percent(m.occupancy); }));
  table.row("fragmented (of free)", cells(scenario, [](const PolicyMetrics& m) {
              return fmt::format("{} ({:.1f} GPUs)", format_percent(m.fragmentation), m.fragmented_gpus);
            }));
  table.row("unassigned (beyond programs' shares)",
            cells(scenario, [](const PolicyMetrics& m) { return format_percent(m.unassigned_share); }));
  table.row("beyond users' own shares",
            cells(scenario, [](const PolicyMetrics& m) { return format_percent(m.beyond_user_share); }));
  table.row("deadline SLO", cells(scenario, [](const PolicyMetrics& m) {
              return m.deadline_slo ? format_percent(*m.deadline_slo) : std::string("-");
            }));
}

// What hung jobs cost each program, when the workload has them: GPU-hours held
// while hung, and those the scheduler recovered by stopping hung jobs early.
void hung_rows(const ScenarioReport& scenario, Table& table) {
  if (scenario.hanging_jobs == 0) return;
  table.section("hung jobs: GPU-h held while hung / recovered / lost");
  table.row("  all", cells(scenario, [&](const PolicyMetrics& m) { return hung_summary(m.all); }));
  for (const std::string& name : group_names(scenario, &PolicyMetrics::programs)) {
    table.row("  " + name, cells(scenario, [&](const PolicyMetrics& m) {
                const GroupMetrics* group = find_group(m.programs, name);
                return group ? hung_summary(*group) : std::string("-");
              }));
  }
}

void program_wait_rows(const ScenarioReport& scenario, Table& table) {
  table.section("wait p50 / p90 by program");
  wait_rows(scenario, table, &PolicyMetrics::programs);
}

void unfinished_rows(const ScenarioReport& scenario, Table& table) {
  table.row("unfinished at the end", cells(scenario, [](const PolicyMetrics& m) {
              return fmt::format("{} started, {} never started", m.all.started - m.all.completed,
                                 m.all.jobs - m.all.started);
            }));
}

// Each policy against the first: the value, the difference and which way it goes.
void verdict_rows(const Verdict& verdict, const ScenarioReport& scenario, Table& table) {
  if (verdict.rows.empty()) return;
  table.section(fmt::format("against `{}`", scenario.policies.front().name));
  for (const VerdictRow& row : verdict.rows) {
    std::vector<std::string> cells;
    for (std::size_t p = 0; p < row.values.size(); ++p) {
      const Comparison comparison = row.comparisons[p];
      if (comparison == Comparison::baseline || comparison == Comparison::not_comparable) {
        cells.push_back(row.values[p]);
      } else if (comparison == Comparison::same) {
        cells.push_back(row.values[p] + " (same)");
      } else {
        cells.push_back(
            table.verdict(comparison == Comparison::better,
                          fmt::format("{} ({}, {})", row.values[p], row.differences[p], comparison_word(comparison))));
      }
    }
    table.row("  " + row.measure, std::move(cells));
  }
}

void gate_rows(const ScenarioReport& scenario, Table& table) {
  std::vector<std::string> texts;
  for (const PolicyMetrics& metrics : scenario.policies) {
    for (const GateResult& gate : metrics.gates) {
      if (std::find(texts.begin(), texts.end(), gate.text) == texts.end()) texts.push_back(gate.text);
    }
  }
  table.section("gates");
  for (const std::string& text : texts) {
    table.row("  " + text, cells(scenario, [&](const PolicyMetrics& m) {
                for (const GateResult& gate : m.gates) {
                  if (gate.text != text) continue;
                  const std::string value = gate.value ? format_metric(gate.gate.metric, *gate.value) : "n/a";
                  return table.verdict(gate.passed, fmt::format("{} {}", gate.passed ? "pass" : "FAIL", value));
                }
                return std::string("-");
              }));
  }
}

}  // namespace

std::string render_table(const ReplayReport& report, bool color) {
  std::string out;
  for (const ScenarioReport& scenario : report.scenarios) {
    // Names from the trace, the inventory and the command line, printable() (Table does its own).
    out += support::printable(fmt::format(
        "{}: {}\n  {} jobs, {} to {}, cluster `{}` ({} GPUs up{})\n", scenario.workload, scenario.description,
        scenario.jobs, support::format_day(scenario.start), support::format_day(scenario.end), report.cluster,
        report.cluster_gpus,
        report.cluster_gpus_down > 0 ? fmt::format(", {} on nodes down or draining", report.cluster_gpus_down) : ""));
    for (const std::string& note : scenario.notes) out += support::printable("  note: " + note + "\n");
    const Verdict verdict = compare_policies(scenario);
    for (const std::string& sentence : verdict.summaries) out += support::printable("  verdict: " + sentence + "\n");
    std::vector<std::string> header;
    for (const PolicyMetrics& metrics : scenario.policies) header.push_back(metrics.name);
    Table table(header, color);
    class_rows(scenario, table);
    program_wait_rows(scenario, table);
    program_rows(scenario, table);
    shortfall_rows(scenario, table);
    cluster_rows(scenario, table, report.starvation_threshold);
    hung_rows(scenario, table);
    unfinished_rows(scenario, table);
    gate_rows(scenario, table);
    verdict_rows(verdict, scenario, table);
    out += table.render();
    for (const PolicyMetrics& metrics : scenario.policies) {
      for (const GateResult& gate : metrics.gates) {
        if (!gate.why.empty()) {
          out += support::printable(fmt::format("  why `{}` fails `{}`: {}\n", metrics.name, gate.text, gate.why));
        }
      }
    }
    out += render_sweep_text(scenario, color) + "\n";
  }
  return out;
}

}  // namespace allot::simulator
