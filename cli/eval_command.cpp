// `allot eval`: one job against a policy and a state, as `opa eval` evaluates
// one input: its rank term by term, where it would wait and why, and what
// `preempt` says for it, operand by operand (docs/TESTING.md "allot eval").
// The job is given as a JSON or TOML file (or `-`, standard input) holding one
// job as a snapshot's `[[job]]` does, or as `--id` of a job in the state.
#include <fmt/format.h>
#include <toml++/toml.h>
#include <unistd.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <iostream>

#include "allot/audit_json.h"
#include "allot/explain.h"
#include "allot/files.h"
#include "allot/job_table.h"
#include "allot/text.h"
#include "commands.h"
#include "cycle_inputs.h"

namespace allot::cli {
namespace {

constexpr std::size_t kMaxJobBytes = std::size_t{1} << 20;
constexpr std::size_t kPairsShown = 20;

// The job file's text: a file, or standard input for `-`, bounded.
Expected<std::string, std::string> read_job_text(const std::string& path) {
  auto text =
      path == "-" ? support::read_descriptor(STDIN_FILENO, kMaxJobBytes) : support::read_file(path, kMaxJobBytes);
  if (!text) return unexpected(fmt::format("cannot read `{}`: {}", path, text.error().reason));
  return std::move(*text);
}

// One job, JSON when its first non-blank character is `{`, else TOML. `submitted` defaults to `now`.
// `unreadable` is set when the file could not be read at all.
Expected<runtime::JobRequest, std::string> read_job(const std::string& path, runtime::Seconds now, bool& unreadable) {
  auto text = read_job_text(path);
  if (!text) {
    unreadable = true;
    return unexpected(text.error());
  }
  const std::string name = path == "-" ? "<stdin>" : path;
  toml::table table;
  const std::size_t first = text->find_first_not_of(" \t\r\n");
  if (first != std::string::npos && (*text)[first] == '{') {
    nlohmann::json object;
    try {
      object = nlohmann::json::parse(*text);
    } catch (const nlohmann::json::parse_error& error) {
      return unexpected(fmt::format("{}: not valid JSON: {}", name, error.what()));
    }
    auto converted = runtime::job_table_from_json(object, name);
    if (!converted) return unexpected(converted.error().to_string());
    table = std::move(*converted);
  } else {
    try {
      table = toml::parse(*text, name);
    } catch (const toml::parse_error& error) {
      return unexpected(fmt::format("{}:{}:{}: not valid TOML: {}", name, error.source().begin.line,
                                    error.source().begin.column, error.description()));
    }
  }
  if (!table.contains("submitted")) table.insert("submitted", now);
  if (!table.contains("id")) table.insert("id", "eval");
  auto job = runtime::read_job_table(table, name, "job", now);
  if (!job) return unexpected(job.error().to_string());
  return std::move(*job);
}

std::string operands_text(const CompiledPolicy& policy, const runtime::PreemptVerdict& verdict) {
  std::string text;
  for (std::size_t i = 0; i < verdict.operands.size(); ++i) {
    text += fmt::format("{}{} = {}",
                        i == 0                         ? ""
                        : policy.preempt_operands_or() ? " or "
                                                       : " and ",
                        policy.preempt_operands()[i].text, verdict.operands[i] ? "true" : "false");
  }
  return text;
}

std::string verdicts_text(const CompiledPolicy& policy, const runtime::PreemptVerdicts& verdicts,
                          const std::string& job_id) {
  if (!policy.has_preempt()) return "\nPreempt: the policy has no `preempt` rule, so nothing is preempted.\n";
  const PolicyPart& first = policy.preempt_operands().front();
  std::string out;
  if (verdicts.as_victim && !verdicts.not_offered.empty()) {
    return fmt::format("\nPreempt: `{}` is never offered to `preempt` now: {}.\n", job_id, verdicts.not_offered);
  }
  const std::size_t total = verdicts.pairs.size() + verdicts.left_out;
  std::size_t accepted = 0;
  for (const runtime::PreemptVerdict& verdict : verdicts.pairs) accepted += verdict.accepted;
  if (verdicts.as_victim) {
    out +=
        fmt::format("\nPreempt ({}:{}), `{}` as the victim: {} of {} waiting job{} of other accounts may take it{}\n",
                    first.file, first.line, job_id, accepted, total, total == 1 ? "" : "s", total == 0 ? "." : ":");
  } else {
    out += fmt::format("\nPreempt ({}:{}), `{}` as the requester: `preempt` accepts {} of {} running job{} offered{}\n",
                       first.file, first.line, job_id, accepted, total, total == 1 ? "" : "s", total == 0 ? "." : ":");
  }
  for (std::size_t i = 0; i < verdicts.pairs.size() && i < kPairsShown; ++i) {
    const runtime::PreemptVerdict& verdict = verdicts.pairs[i];
    out += fmt::format("  {:<4} {}: {}\n", verdict.accepted ? "yes" : "no",
                       verdicts.as_victim ? verdict.requester : verdict.victim, operands_text(policy, verdict));
  }
  if (total > kPairsShown) out += fmt::format("  ... and {} more (--json lists them)\n", total - kPairsShown);
  if (!verdicts.as_victim) {
    out +=
        "  (offered: running jobs of other accounts, past their protection, preemptible and not stopping; the cycle "
        "also asks the share rule before it stops one)\n";
  }
  return out;
}

using Json = runtime::audit::Json;

Json verdicts_json(const CompiledPolicy& policy, const runtime::PreemptVerdicts& verdicts) {
  if (!policy.has_preempt()) return nullptr;
  Json operands = Json::array();
  for (const PolicyPart& operand : policy.preempt_operands()) {
    operands.push_back(Json{{"operand", operand.text}, {"at", fmt::format("{}:{}", operand.file, operand.line)}});
  }
  Json pairs = Json::array();
  for (const runtime::PreemptVerdict& verdict : verdicts.pairs) {
    pairs.push_back(Json{{"victim", verdict.victim},
                         {"requester", verdict.requester},
                         {"accepted", verdict.accepted},
                         {"operands", verdict.operands}});
  }
  return Json{{"as", verdicts.as_victim ? "victim" : "requester"},
              {"joined_by", policy.preempt_operands_or() ? "or" : "and"},
              {"operands", std::move(operands)},
              {"not_offered", verdicts.not_offered.empty() ? Json(nullptr) : Json(verdicts.not_offered)},
              {"pairs", std::move(pairs)},
              {"left_out", verdicts.left_out}};
}

}  // namespace

int run_eval(const EvalArguments& arguments) {
  if (arguments.job.empty() == arguments.id.empty()) {
    std::cerr << "allot: eval takes a job file (or `-` for standard input) or --id of a job in the state, not "
              << (arguments.job.empty() ? "neither" : "both") << "\n";
    return 2;
  }
  int code = 0;
  auto inputs = load_cycle_inputs(arguments.policy, arguments.state, arguments.now, arguments.engine, code);
  if (!inputs) return code;
  runtime::ClusterState state = inputs->snapshot.state;
  std::string job_id = arguments.id;
  if (!arguments.job.empty()) {
    bool unreadable = false;
    auto job = read_job(arguments.job, state.now, unreadable);
    if (!job) {
      std::cerr << "allot: " << support::printable(job.error()) << "\n";
      return unreadable ? 2 : 1;
    }
    const auto same_id = [&](const std::string& id) { return id == job->id; };
    bool taken = std::any_of(state.pending.begin(), state.pending.end(),
                             [&](const runtime::JobRequest& other) { return same_id(other.id); }) ||
                 std::any_of(state.running.begin(), state.running.end(),
                             [&](const runtime::RunningJob& other) { return same_id(other.request.id); });
    if (taken) {
      std::cerr << "allot: the state has a job `" << support::printable(job->id)
                << "` already; give the new job another id, or evaluate that one with --id\n";
      return 1;
    }
    job_id = job->id;
    state.pending.push_back(std::move(*job));
  }
  const CompiledPolicy& policy = *inputs->policy;
  runtime::ExplainOptions options;
  options.preempt_pairs = 1000;
  const auto explanation = runtime::explain_job(state, policy, job_id, options);
  if (!explanation) {
    std::cerr << "allot: " << explanation.error() << "\n";
    return 1;
  }
  const runtime::PreemptVerdicts verdicts = explanation->preempt.value_or(runtime::PreemptVerdicts{});
  if (arguments.json) {
    const Json document{{"schema", "allot.eval/1"},
                        {"explain", Json::parse(runtime::explanation_json(*explanation, state.inventory))},
                        {"preempt", verdicts_json(policy, verdicts)}};
    std::cout << runtime::audit::dump(document, 2) << "\n";
  } else {
    std::cout << runtime::explanation_text(*explanation, state.inventory)
              << support::printable(verdicts_text(policy, verdicts, job_id));
  }
  return 0;
}

}  // namespace allot::cli
