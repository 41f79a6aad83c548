// Runs policy test cases (docs/TESTING.md "What a case runs"): one cycle on
// the case's state, as `allot cycle` runs it, then every expectation checked
// against its result, `allot explain` and `allot shares`; a failure says what
// was found instead, so a reviewer need not rerun anything to see why.
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <unordered_map>
#include <unordered_set>

#include "allot/contracts.h"
#include "allot/cycle.h"
#include "allot/explain.h"
#include "allot/nearest_name.h"
#include "allot/policy_test.h"
#include "allot/share_report.h"

namespace allot::policytest {
namespace {

using runtime::DecisionKind;

// A job's id quoted, with its position in the queue when it has one.
std::string placed(const std::string& id, const std::unordered_map<std::string, std::size_t>& position) {
  const auto found = position.find(id);
  return found == position.end() ? fmt::format("`{}`", id) : fmt::format("`{}` (#{})", id, found->second + 1);
}

class CaseRun {
 public:
  CaseRun(const TestCase& test, const CompiledPolicy& policy)
      : test_(test),
        state_(test.state.state),
        policy_(policy),
        result_(runtime::run_cycle(state_, policy_)),
        decisions_(result_.all_decisions()) {
    for (std::size_t i = 0; i < result_.ranked_job_ids.size(); ++i) position_.emplace(result_.ranked_job_ids[i], i);
    for (const runtime::JobRequest& job : state_.pending) pending_.push_back(job.id);
    for (const runtime::RunningJob& job : state_.running) running_.push_back(job.request.id);
    for (const runtime::Decision& decision : decisions_) decided_.emplace(decision.job_id, &decision);
  }

  std::vector<Failure> check() {
    const Expectations& expect = test_.expect;
    if (expect.first) check_first(*expect.first);
    if (!expect.order.empty()) check_order(expect.order);
    if (expect.has_exact_order) check_exact_order(expect.exact_order);
    for (const std::string& id : expect.starts) check_start(id, true);
    for (const std::string& id : expect.waits) check_start(id, false);
    for (const std::string& id : expect.preempts) check_stop(id, true);
    for (const std::string& id : expect.keeps) check_stop(id, false);
    for (const ExplainExpectation& explain : expect.explain) check_explain(explain);
    if (!expect.shares.empty()) check_shares(expect.shares);
    return std::move(failures_);
  }

 private:
  int line_of(const std::string& key) const {
    for (const auto& [name, line] : test_.expect.lines) {
      if (name == key) return line;
    }
    return test_.line;
  }
  void fail(const std::string& key, std::string message, int line = 0) {
    failures_.push_back(Failure{key, line != 0 ? line : line_of(key), std::move(message)});
  }

  // Whether `id` is a job of the state of the kind `key` asks for; a failure otherwise.
  bool known(const std::string& key, const std::string& id, bool running, int line = 0) {
    const std::vector<std::string>& ids = running ? running_ : pending_;
    if (std::find(ids.begin(), ids.end(), id) != ids.end()) return true;
    const std::vector<std::string>& other = running ? pending_ : running_;
    std::string message = fmt::format("the case's state has no {} job `{}`", running ? "running" : "pending", id);
    if (std::find(other.begin(), other.end(), id) != other.end()) {
      message += fmt::format(" (it is {})", running ? "pending" : "running");
    } else if (const std::string near = support::nearest_name(id, ids); !near.empty()) {
      message += fmt::format("; did you mean `{}`?", near);
    }
    fail(key, std::move(message), line);
    return false;
  }

  const runtime::Decision* decision(const std::string& id, DecisionKind kind) const {
    const auto [begin, end] = decided_.equal_range(id);
    for (auto it = begin; it != end; ++it) {
      if (it->second->kind == kind) return it->second;
    }
    return nullptr;
  }

  void check_first(const std::string& id) {
    if (!known("first", id, false)) return;
    if (result_.ranked_job_ids.front() == id) return;
    fail("first", fmt::format("expected `{}` first; the queue starts with {}, and `{}` is #{}", id,
                              placed(result_.ranked_job_ids.front(), position_), id, position_.at(id) + 1));
  }

  void check_order(const std::vector<std::string>& order) {
    for (const std::string& id : order) {
      if (!known("order", id, false)) return;
    }
    for (std::size_t i = 1; i < order.size(); ++i) {
      if (position_.at(order[i - 1]) < position_.at(order[i])) continue;
      fail("order", fmt::format("expected {} before {}", placed(order[i - 1], position_), placed(order[i], position_)));
      return;
    }
  }

  void check_exact_order(const std::vector<std::string>& order) {
    const std::vector<std::string>& queue = result_.ranked_job_ids;
    for (std::size_t i = 0; i < std::max(order.size(), queue.size()); ++i) {
      if (i < order.size() && i < queue.size() && order[i] == queue[i]) continue;
      const std::string expected = i < order.size() ? fmt::format("`{}`", order[i]) : "the end of the queue";
      const std::string found = i < queue.size() ? placed(queue[i], position_) : "the end of the queue";
      fail("exact_order", fmt::format("at #{} expected {}, found {}", i + 1, expected, found));
      return;
    }
  }

  void check_start(const std::string& id, bool starts) {
    const std::string key = starts ? "starts" : "waits";
    if (!known(key, id, false)) return;
    const bool started = decision(id, DecisionKind::start) != nullptr;
    if (started == starts) return;
    if (started) {
      fail(key, fmt::format("`{}` started in this cycle", id));
      return;
    }
    const runtime::Decision* skip = decision(id, DecisionKind::skip);
    fail(key,
         fmt::format("`{}` did not start: {}", id, skip != nullptr ? skip->reason : "the cycle says nothing of it"));
  }

  void check_stop(const std::string& id, bool stops) {
    const std::string key = stops ? "preempts" : "keeps";
    if (!known(key, id, true)) return;
    const runtime::Decision* stop = decision(id, DecisionKind::preempt);
    if ((stop != nullptr) == stops) return;
    if (stop != nullptr) {
      fail(key, fmt::format("`{}` was stopped{}: {}", id,
                            stop->for_job.empty() ? "" : fmt::format(" for `{}`", stop->for_job), stop->reason));
      return;
    }
    const auto running = std::find_if(state_.running.begin(), state_.running.end(),
                                      [&](const runtime::RunningJob& job) { return job.request.id == id; });
    const auto refusal = runtime::stop_refusal(*running, state_.now);
    fail(key, fmt::format("`{}` was not stopped: {}", id,
                          refusal ? runtime::stop_refusal_text(*refusal, *running, state_.now)
                                  : std::string("it could be, but no waiting job took it (see `allot explain`)")));
  }

  void check_explain(const ExplainExpectation& expect) {
    const bool pending = std::find(pending_.begin(), pending_.end(), expect.job) != pending_.end();
    const bool running = std::find(running_.begin(), running_.end(), expect.job) != running_.end();
    if (!pending && !running) {
      known("explain", expect.job, false, expect.line);
      return;
    }
    const auto explanation = runtime::explain_job(state_, policy_, expect.job);
    if (!explanation) {
      fail("explain", fmt::format("`allot explain {}` failed: {}", expect.job, explanation.error()), expect.line);
      return;
    }
    const std::string text = runtime::explanation_text(*explanation, state_.inventory);
    const auto indented = [&] {
      std::string out;
      for (std::size_t begin = 0; begin < text.size();) {
        const std::size_t end = std::min(text.find('\n', begin), text.size());
        out += "    " + text.substr(begin, end - begin) + "\n";
        begin = end + 1;
      }
      return out;
    };
    for (const std::string& part : expect.contains) {
      if (text.find(part) == std::string::npos) {
        fail("explain", fmt::format("`allot explain {}` does not say \"{}\":\n{}", expect.job, part, indented()),
             expect.line);
      }
    }
    for (const std::string& part : expect.not_contains) {
      if (text.find(part) != std::string::npos) {
        fail("explain", fmt::format("`allot explain {}` says \"{}\":\n{}", expect.job, part, indented()), expect.line);
      }
    }
  }

  void check_shares(const std::vector<ShareExpectation>& shares) {
    const auto report = nlohmann::json::parse(runtime::share_report_json(runtime::share_report(policy_, state_)));
    std::vector<std::string> accounts;
    for (const auto& account : report.at("accounts")) accounts.push_back(account.at("path").get<std::string>());
    for (const ShareExpectation& share : shares) {
      const auto found = std::find(accounts.begin(), accounts.end(), share.account);
      if (found == accounts.end()) {
        const std::string near = support::nearest_name(share.account, accounts);
        fail("share",
             fmt::format("policy `{}` has no account `{}`{}", policy_.tables().name, share.account,
                         near.empty() ? "" : fmt::format("; did you mean `{}`?", near)),
             share.line);
        continue;
      }
      const nlohmann::json& row = report.at("accounts").at(static_cast<std::size_t>(found - accounts.begin()));
      for (const auto& [field, expected] : share.fields) check_share_field(share, row, field, expected);
    }
  }

  void check_share_field(const ShareExpectation& share, const nlohmann::json& row, const std::string& field,
                         double expected) {
    const bool rank_field = field.starts_with("rank_fields.");
    const nlohmann::json& table = rank_field ? row.at("rank_fields") : row;
    const std::string name = rank_field ? field.substr(12) : field;
    const std::string where = share.account.empty() ? "the cluster" : fmt::format("`{}`", share.account);
    if (!table.contains(name)) {
      std::vector<std::string> names;
      for (const auto& [key, value] : table.items()) {
        if (value.is_number()) names.push_back((rank_field ? "rank_fields." : "") + key);
      }
      const std::string near = support::nearest_name(field, names);
      fail("share",
           fmt::format("`allot shares` has no field `{}`{}", field,
                       near.empty() ? "" : fmt::format("; did you mean `{}`?", near)),
           share.line);
      return;
    }
    const nlohmann::json& value = table.at(name);
    if (!value.is_number()) {
      fail("share", fmt::format("{}'s `{}` is {}, not a number", where, field, value.dump()), share.line);
      return;
    }
    const double found = value.get<double>();
    const double allowed = share.tolerance * std::max(1.0, std::fabs(expected));
    if (std::fabs(found - expected) <= allowed) return;
    fail("share", fmt::format("{}'s `{}`: expected {:g}, found {:g}", where, field, expected, found), share.line);
  }

  const TestCase& test_;
  const runtime::ClusterState& state_;
  const CompiledPolicy& policy_;
  runtime::CycleResult result_;
  std::vector<runtime::Decision> decisions_;  // every decision, skips too
  std::unordered_map<std::string, std::size_t> position_;
  std::unordered_multimap<std::string, const runtime::Decision*> decided_;
  std::vector<std::string> pending_, running_;
  std::vector<Failure> failures_;
};

// An empty record of what the cases exercise of `policy`.
Exercised nothing_exercised(const CompiledPolicy& policy) {
  Exercised exercised;
  exercised.rank_terms = policy.rank_terms();
  exercised.preempt_operands = policy.preempt_operands();
  for (const ClassInfo& info : policy.tables().classes) exercised.classes.push_back(info.name);
  for (const ExceptionInfo& info : policy.tables().exceptions) exercised.exceptions.push_back(info.name);
  exercised.class_seen.assign(exercised.classes.size(), false);
  exercised.in_force.assign(exercised.exceptions.size(), false);
  exercised.out_of_force.assign(exercised.exceptions.size(), false);
  return exercised;
}

// Adds what one case's state exercises.
void exercise(Exercised& exercised, const runtime::ClusterState& state, const CompiledPolicy& policy) {
  runtime::exercise_policy(state, policy, exercised.values);
  const auto seen = [&](const std::string& job_class) {
    const auto it = std::find(exercised.classes.begin(), exercised.classes.end(), job_class);
    if (it != exercised.classes.end())
      exercised.class_seen[static_cast<std::size_t>(it - exercised.classes.begin())] = true;
  };
  for (const runtime::JobRequest& job : state.pending) seen(job.job_class);
  for (const runtime::RunningJob& job : state.running) seen(job.request.job_class);
  const auto& exceptions = policy.tables().exceptions;
  for (std::size_t i = 0; i < exceptions.size(); ++i) {
    const double now = static_cast<double>(state.now);
    const bool in_force = exceptions[i].starts <= now && now < exceptions[i].expires;
    (in_force ? exercised.in_force : exercised.out_of_force)[i] = true;
  }
}

}  // namespace

FileResult run_test_file(const TestFile& file, const CompiledPolicy& policy) {
  FileResult result;
  result.file = file.file;
  result.policy = file.policy;
  result.exercised = nothing_exercised(policy);
  for (const TestCase& test : file.cases) {
    // A misspelt account in the state's [usage] would count as 0 and pass by accident.
    if (auto unknown = runtime::check_snapshot_accounts(test.state, policy.tables())) {
      result.cases.push_back(CaseResult{test.name, test.line, {Failure{"state", test.line, unknown->to_string()}}});
      continue;
    }
    CaseRun run(test, policy);
    result.cases.push_back(CaseResult{test.name, test.line, run.check()});
    exercise(*result.exercised, test.state.state, policy);
  }
  return result;
}

}  // namespace allot::policytest
