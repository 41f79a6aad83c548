// `allot slurm`: the reconcile loop that makes a real slurmctld follow a
// policy (docs/SLURM.md). One pass every --interval; SIGHUP or an edit of the
// policy file reloads it: the new policy is compiled and checked on another
// thread while passes go on with the old one, then swapped in between two
// passes. A policy that fails to compile, or names accounts the mapping file
// lacks, is refused with its diagnostics and the old one keeps running.
// SIGTERM or SIGINT ends the loop after the pass in progress.
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <csignal>
#include <ctime>
#include <future>
#include <iostream>
#include <thread>

#include "allot/audit.h"
#include "allot/compile.h"
#include "allot/dates.h"
#include "allot/duration.h"
#include "allot/files.h"
#include "allot/hot_swap.h"
#include "allot/policy_slot.h"
#include "allot/slurm.h"
#include "commands.h"
#include "io_paths.h"

namespace allot::cli {
namespace {

volatile std::sig_atomic_t reload_requested = 0;
volatile std::sig_atomic_t stop_requested = 0;

void on_reload(int) { reload_requested = 1; }
void on_stop(int) { stop_requested = 1; }

void install_handlers() {
  struct sigaction action {};
  action.sa_handler = on_reload;
  sigaction(SIGHUP, &action, nullptr);
  action.sa_handler = on_stop;
  sigaction(SIGTERM, &action, nullptr);
  sigaction(SIGINT, &action, nullptr);
}

void log(const std::string& line) { std::cerr << "allot slurm: " << line << '\n' << std::flush; }

// "5s", "2m", "1h30m" (support/duration.h) or whole seconds; at least a second.
std::optional<slurm::Seconds> parse_interval(const std::string& text) {
  std::optional<slurm::Seconds> seconds = support::parse_duration(text);
  if (!seconds && !text.empty() && text.find_first_not_of("0123456789") == std::string::npos)
    seconds = support::parse_duration(text + "s");
  if (!seconds || *seconds <= 0) return std::nullopt;
  return seconds;
}

// The policy's text as it is now, to notice edits; "" when it cannot be read
// (the compile that follows says why).
std::string read_text(const std::string& path) {
  auto text = support::read_file(path, support::kMaxPolicyBytes);
  return text ? std::move(*text) : std::string();
}

// The adapter's own check of a policy (runtime::compile_candidate): the
// mapping file names only accounts and classes it has.
runtime::CandidateCheck map_check(const slurm::JobMap& map) {
  return [&map](const CompiledPolicy& policy) -> std::optional<std::string> {
    if (auto error = slurm::check_job_map(map, policy.tables())) return error->to_string();
    return std::nullopt;
  };
}

// Why the first policy may not run, for the terminal: the compiler's
// diagnostics with their source lines, and the refusal when they hold no error
// (the map check, a JIT that could not load it, a compiler that threw).
std::string refusal_text(const runtime::SwapCandidate& candidate) {
  std::string text = render_text(candidate.diagnostics, candidate.sources, {false});
  const bool errors = std::any_of(candidate.diagnostics.begin(), candidate.diagnostics.end(),
                                  [](const Diagnostic& d) { return d.severity == Severity::error; });
  if (!errors) text += "allot: refused: " + candidate.refusal + "\n";
  return text;
}

const char* action_text(slurm::Action::Kind kind) {
  switch (kind) {
    case slurm::Action::Kind::set_priority:
      return "set priority of";
    case slurm::Action::Kind::checkpoint_signal:
      return "send the checkpoint signal to";
    case slurm::Action::Kind::requeue:
      return "requeue";
  }
  return "";
}

// What a dry run would have done, for a person.
void print_decisions(const slurm::PassReport& report, bool dry_run) {
  for (std::size_t i = 0; i < report.cycle.ranked_job_ids.size(); ++i) {
    std::cout << fmt::format("rank {:>4}  job {:<10} {:.3f}\n", i + 1, report.cycle.ranked_job_ids[i],
                             report.cycle.ranks[i]);
  }
  for (const runtime::Decision& decision : report.cycle.decisions) {
    if (decision.kind == runtime::DecisionKind::skip) continue;
    std::cout << fmt::format("{} job {}: {}\n", decision.kind == runtime::DecisionKind::start ? "start" : "preempt",
                             decision.job_id, decision.reason);
  }
  for (const slurm::Action& action : report.actions) {
    std::string line = fmt::format("{} {} job {}", dry_run ? "would" : "did", action_text(action.kind), action.job);
    if (action.kind == slurm::Action::Kind::set_priority) line += fmt::format(" to {}", action.priority);
    if (!action.for_job.empty()) line += fmt::format(" (for job {})", action.for_job);
    if (action.kind == slurm::Action::Kind::requeue)
      line += fmt::format(", losing {:.0f} GPU-seconds", action.lost_gpu_seconds);
    std::cout << line << (action.error.empty() ? "" : " -- refused: " + action.error) << '\n';
  }
  std::cout << std::flush;
}

// The cycle's starts and preemptions (runtime/audit.h records; skips would
// repeat every pending job every pass), the contracts recorded and the writes
// to Slurm: one JSON object a line, appended in one write per pass.
std::optional<std::string> write_audit(runtime::AuditLog& audit, const slurm::PassReport& report, bool dry_run) {
  runtime::CycleResult decided = report.cycle;
  std::erase_if(decided.decisions,
                [](const runtime::Decision& decision) { return decision.kind == runtime::DecisionKind::skip; });
  std::string lines = runtime::audit_lines(decided, report.inventory);
  for (const slurm::ObservedStart& start : report.starts) lines += slurm::start_json(start, report.now) + "\n";
  for (const slurm::Action& action : report.actions) {
    lines += slurm::action_json(action, report.now, report.policy_hash, dry_run) + "\n";
  }
  return audit.append_lines(lines);
}

std::string pass_summary(const slurm::PassReport& report) {
  int priorities = 0, signals = 0, requeues = 0, refused = 0;
  for (const slurm::Action& action : report.actions) {
    priorities += action.kind == slurm::Action::Kind::set_priority;
    signals += action.kind == slurm::Action::Kind::checkpoint_signal;
    requeues += action.kind == slurm::Action::Kind::requeue;
    refused += !action.error.empty();
  }
  return fmt::format(
      "{} pass: {} pending, {} running; {} priorities, {} checkpoint signals, {} requeues{}; "
      "charged {:.4f} unit-hours",
      support::format_timestamp(report.now), report.pending, report.running, priorities, signals, requeues,
      refused ? fmt::format(" ({} refused by Slurm)", refused) : "", report.charged);
}

// What a reload ended with: a line for the log, and the text it was about.
struct Reload {
  std::string message;
  std::string source;
  bool swapped = false;
};

class Loop {
 public:
  Loop(const SlurmArguments& arguments, CompileOptions options, slurm::JobMap map,
       std::shared_ptr<const CompiledPolicy> first, std::string first_source)
      : arguments_(arguments),
        options_(std::move(options)),
        map_(std::move(map)),
        slot_(std::move(first)),
        running_source_(std::move(first_source)) {}

  // Runs passes until stopped (or once); the exit code.
  int run(slurm::Adapter& adapter, runtime::AuditLog* audit);

 private:
  void start_reload(const char* why);
  void finish_reload();

  const SlurmArguments& arguments_;
  CompileOptions options_;
  slurm::JobMap map_;
  runtime::PolicySlot slot_;
  std::string running_source_;
  std::string refused_source_;  // the last text refused, so an unchanged file is not retried every pass
  std::future<Reload> reload_;
};

// Compiles and checks on its own thread, then swaps: passes go on meanwhile.
void Loop::start_reload(const char* why) {
  if (reload_.valid()) return;
  log(fmt::format("reloading `{}` ({})", arguments_.policy, why));
  try {
    reload_ = std::async(std::launch::async, [this] {
      std::string source = read_text(arguments_.policy);
      // The one hot-swap path (allot/hot_swap.h): compiled and checked here, off the passes.
      const runtime::SwapOutcome outcome = runtime::swap_from_file(slot_, arguments_.policy, options_, map_check(map_));
      if (!outcome.swapped) {
        std::string text = runtime::render_swap_outcome(outcome, {false});
        while (!text.empty() && text.back() == '\n') text.pop_back();
        return Reload{std::move(text), std::move(source), false};
      }
      return Reload{outcome.message + "; running jobs keep the contracts they started with", std::move(source), true};
    });
  } catch (const std::exception& failure) {  // no thread to be had: try again at the next change or SIGHUP
    log(fmt::format("cannot reload `{}` now: {}", arguments_.policy, failure.what()));
  }
}

void Loop::finish_reload() {
  if (!reload_.valid() || reload_.wait_for(std::chrono::seconds(0)) != std::future_status::ready) return;
  Reload done;
  try {
    done = reload_.get();
  } catch (const std::exception& failure) {
    // The old policy keeps running; the file is not retried until it changes.
    done = Reload{
        fmt::format("refused: {}; {} keeps running", failure.what(), slot_.current()->source_hash().substr(0, 12)),
        read_text(arguments_.policy), false};
  }
  log(done.message);
  (done.swapped ? running_source_ : refused_source_) = std::move(done.source);
}

int Loop::run(slurm::Adapter& adapter, runtime::AuditLog* audit) {
  const auto interval = std::chrono::seconds(*parse_interval(arguments_.interval));
  int failures = 0;
  while (!stop_requested) {
    finish_reload();
    const auto started = std::chrono::steady_clock::now();
    const slurm::Seconds now = std::time(nullptr);
    const std::shared_ptr<const CompiledPolicy> policy = slot_.current();  // held for the whole pass
    auto report = adapter.reconcile(*policy, now);
    if (!report) {
      ++failures;
      log(fmt::format("{} pass failed, nothing written to Slurm: {}", support::format_timestamp(now), report.error()));
    } else {
      failures = 0;
      for (const std::string& note : report->notes) log(note);
      log(pass_summary(*report));
      if (audit != nullptr) {
        // The ledger is committed; a record that cannot be written is a failed pass.
        if (auto problem = write_audit(*audit, *report, arguments_.dry_run)) {
          ++failures;
          log(fmt::format("{} audit not written: {}", support::format_timestamp(now), *problem));
        }
      }
      if (arguments_.dry_run || arguments_.once) print_decisions(*report, arguments_.dry_run);
    }
    if (arguments_.once) return report && failures == 0 ? 0 : 1;
    slot_.release_retired();  // replaced policies are freed here, between passes, never under a cycle
    while (!stop_requested && std::chrono::steady_clock::now() - started < interval) {
      if (reload_requested) {
        reload_requested = 0;
        start_reload("SIGHUP");
      }
      finish_reload();
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    const std::string text = read_text(arguments_.policy);
    if (text != running_source_ && text != refused_source_) start_reload("the file changed");
  }
  if (reload_.valid()) reload_.wait();
  log("stopped");
  return failures > 0 ? 1 : 0;
}

// --emit-job-submit: the script for Slurm's job_submit/lua plugin, from the
// policy and map just checked; nothing is asked of Slurm.
int emit_job_submit(const SlurmArguments& arguments, const slurm::JobMap& map, const CompiledPolicy& policy) {
  auto script = slurm::job_submit_lua(policy.tables(), map, {policy.source_hash(), arguments.now});
  if (!script) {
    std::cerr << "allot: " << script.error().to_string() << '\n';
    return 1;
  }
  if (arguments.emit_job_submit == "-") {
    policy_stdout() << *script;
    return 0;  // main() checks that it arrived
  }
  if (auto problem = support::write_file_atomic(arguments.emit_job_submit, *script)) {
    std::cerr << "allot: " << *problem << '\n';
    return 2;
  }
  return 0;
}

}  // namespace

int run_slurm(const SlurmArguments& arguments) {
  CompileOptions options;
  options.engine = arguments.engine == "interp" ? Engine::interpreter : Engine::jit;
  if (!read_now(arguments.now, options.check.today)) return 2;
  if (!parse_interval(arguments.interval)) {
    std::cerr << "allot: --interval expects a duration like 5s, 2m or 1h, got `" << arguments.interval << "`\n";
    return 2;
  }
  auto map = slurm::load_job_map(arguments.map);
  if (!map) {
    std::cerr << "allot: " << map.error().to_string() << '\n';
    return map.error().unreadable ? 2 : 1;
  }
  std::string first_source = read_text(arguments.policy);
  runtime::SwapCandidate first = runtime::compile_candidate(arguments.policy, options, map_check(*map));
  if (!first.policy) {
    std::cerr << refusal_text(first);
    return 1;
  }
  // The ledger and the audit log are written; neither may be an input or the other.
  CommandFiles files;
  files.input("--policy", arguments.policy);
  files.input("--map", arguments.map);
  files.imports("--policy", files_read(first.sources));
  files.output("--ledger", arguments.ledger);
  files.output("--audit", arguments.audit);
  files.output("--emit-job-submit", arguments.emit_job_submit);
  if (!check_files(files)) return 2;
  if (!arguments.emit_job_submit.empty()) return emit_job_submit(arguments, *map, *first.policy);
  auto backend = slurm::connect_libslurm();
  if (!backend) {
    std::cerr << "allot: " << backend.error() << '\n';
    return 2;
  }
  auto adapter = slurm::Adapter::open(**backend, *map, {arguments.ledger, arguments.dry_run, {}});
  if (!adapter) {
    std::cerr << "allot: " << adapter.error() << '\n';
    return 2;
  }
  std::optional<runtime::AuditLog> audit;
  if (!arguments.audit.empty()) {
    auto opened = runtime::AuditLog::open(arguments.audit);
    if (!opened) {
      std::cerr << "allot: " << opened.error() << '\n';
      return 2;
    }
    audit.emplace(std::move(*opened));
  }
  install_handlers();
  log(fmt::format("running policy `{}` {} with ledger `{}`, {}{}", first.policy->tables().name,
                  first.policy->source_hash().substr(0, 12), arguments.ledger,
                  arguments.once ? "one pass" : "a pass every " + arguments.interval,
                  arguments.dry_run ? " (dry run: nothing is written)" : ""));
  Loop loop(arguments, options, std::move(*map), std::move(first.policy), std::move(first_source));
  return loop.run(**adapter, audit ? &*audit : nullptr);
}

}  // namespace allot::cli
