// `allot diff OLD NEW`: what a policy change means (docs/DIFF.md). Each side
// is a file, or `git:REV:PATH` read with `git show REV:PATH` (no shell; the
// output bounded as a policy file). Both are compiled as of --now's day; the
// comparison is allot_policydiff's.
#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fmt/format.h>

#include <cerrno>
#include <cstring>
#include <iostream>

#include "allot/compile.h"
#include "allot/dates.h"
#include "allot/files.h"
#include "allot/inventory.h"
#include "allot/policy_diff.h"
#include "allot/snapshot.h"
#include "allot/text.h"
#include "commands.h"

extern char** environ;

namespace allot::cli {
namespace {

struct Source {
  std::string label;  // as given
  std::string path;   // the file it is compiled as (imports resolve from its folder)
  std::string text;
};

// `git show REV:PATH`'s output, or why not. Runs git from the current folder.
Expected<std::string, std::string> git_show(const std::string& revision, const std::string& path) {
  int pipe_ends[2];
  if (::pipe(pipe_ends) != 0) return unexpected(std::string("cannot make a pipe for git"));
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, pipe_ends[1], STDOUT_FILENO);
  posix_spawn_file_actions_addclose(&actions, pipe_ends[0]);
  posix_spawn_file_actions_addclose(&actions, pipe_ends[1]);
  posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  const std::string object = revision + ":" + path;
  std::string git = "git", show = "show", end_of_options = "--end-of-options";
  std::vector<char*> argv = {git.data(), show.data(), end_of_options.data(), const_cast<char*>(object.c_str()),
                             nullptr};
  pid_t child = 0;
  const int spawned = posix_spawnp(&child, "git", &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  ::close(pipe_ends[1]);
  if (spawned != 0) {
    ::close(pipe_ends[0]);
    return unexpected(fmt::format("cannot run git: {}", std::strerror(spawned)));
  }
  auto text = support::read_descriptor(pipe_ends[0], support::kMaxPolicyBytes);
  ::close(pipe_ends[0]);
  int status = 0;
  while (::waitpid(child, &status, 0) < 0 && errno == EINTR) {
  }
  if (!text) return unexpected(fmt::format("`git show {}`: {}", object, text.error().reason));
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    return unexpected(
        fmt::format("`git show {}` failed (is `{}` a revision, and `{}` a file in it?)", object, revision, path));
  }
  return std::move(*text);
}

// A side of the diff: `git:REV:PATH` or a file.
Expected<Source, std::string> read_source(const std::string& given) {
  if (given.rfind("git:", 0) == 0) {
    const std::string rest = given.substr(4);
    const std::size_t colon = rest.find(':');
    if (colon == std::string::npos || colon == 0 || colon + 1 == rest.size()) {
      return unexpected(
          fmt::format("`{}`: a git source is `git:REVISION:PATH`, such as `git:main:policies/saas.allot`", given));
    }
    const std::string revision = rest.substr(0, colon), path = rest.substr(colon + 1);
    if (revision.front() == '-') return unexpected(fmt::format("`{}`: a revision may not start with `-`", given));
    auto text = git_show(revision, path);
    if (!text) return unexpected(text.error());
    return Source{given, path, std::move(*text)};
  }
  auto text = support::read_file(given, support::kMaxPolicyBytes);
  if (!text) return unexpected(fmt::format("cannot read `{}`: {}", given, text.error().reason));
  return Source{given, given, std::move(*text)};
}

// The scenario replayed under both policies (arrivals drawn with the old one's tree), added to `diff`.
int replay_both(const DiffArguments& arguments, const std::vector<std::shared_ptr<const CompiledPolicy>>& policies,
                policydiff::PolicyDiff& diff) {
  if (arguments.cluster.empty()) {
    std::cerr << "allot: --replay needs --cluster (the inventory to replay on)\n";
    return 2;
  }
  auto inventory = runtime::load_inventory(arguments.cluster);
  if (!inventory) {
    std::cerr << "allot: " << inventory.error().to_string() << "\n";
    return inventory.error().unreadable ? 2 : 1;
  }
  simulator::ScenarioOptions options;
  options.seed = arguments.seed;
  options.load = arguments.load;
  auto workload = simulator::generate_scenario(*simulator::parse_scenario(arguments.replay), *inventory,
                                               policies[0]->tables(), options);
  if (!workload) {
    std::cerr << "allot: --replay " << arguments.replay << ": " << workload.error() << "\n";
    return 1;
  }
  const std::vector<simulator::ReplayPolicy> both = {{"before", arguments.before, policies[0]},
                                                     {"after", arguments.after, policies[1]}};
  auto report = simulator::replay_workload(*workload, *inventory, both, {}, {});
  if (!report) {
    std::cerr << "allot: --replay " << arguments.replay << ": " << support::printable(report.error()) << "\n";
    return 1;
  }
  policydiff::add_replay(diff, *report);
  return 0;
}

}  // namespace

int run_diff(const DiffArguments& arguments) {
  std::optional<runtime::Seconds> now;
  if (!arguments.now.empty() && !(now = support::parse_timestamp(arguments.now))) {
    std::cerr << "allot: --now expects a time like 2026-12-02T09:30:00Z or a date like 2026-12-02, got `"
              << arguments.now << "`\n";
    return 2;
  }
  std::optional<runtime::Snapshot> state;
  if (!arguments.state.empty()) {
    auto snapshot = runtime::load_snapshot(arguments.state, now);
    if (!snapshot) {
      std::cerr << "allot: " << snapshot.error().to_string() << "\n";
      return snapshot.error().unreadable ? 2 : 1;
    }
    state = std::move(*snapshot);
    if (!now) now = state->state.now;
  }
  if (!now) {
    std::cerr << "allot: diff needs --now (the day exceptions and reviews are judged on) or --state\n";
    return 2;
  }
  std::vector<std::shared_ptr<const CompiledPolicy>> policies;
  for (const std::string& given : {arguments.before, arguments.after}) {
    auto source = read_source(given);
    if (!source) {
      std::cerr << "allot: " << support::printable(source.error()) << "\n";
      return 2;
    }
    CompileOptions options = compile_options(arguments.engine);
    options.check.today = Date{static_cast<int>(*now / 86400)};
    options.check.passed_dates_are_warnings = true;  // the old side may have lapsed reviews: it is history
    CompileResult compiled = compile_policy_source(source->path, source->text, options);
    colored_stderr(stderr_color()) << render_text(compiled.diagnostics, compiled.sources, {stderr_color()});
    if (!compiled.policy) {
      std::cerr << "allot: `" << support::printable(given) << "` does not compile (the diagnostics are above)\n";
      return has_unreadable_input(compiled.diagnostics) ? 2 : 1;
    }
    // The state is the new policy's: an account it has that the old one lacks is what the change adds.
    if (state && policies.size() == 1) {
      if (auto unknown = runtime::check_snapshot_accounts(*state, compiled.policy->tables())) {
        std::cerr << "allot: " << unknown->to_string() << "\n";
        return 1;
      }
    }
    policies.push_back(std::move(compiled.policy));
  }
  policydiff::PolicyDiff diff =
      policydiff::diff_policies(*policies[0], *policies[1], *now, state ? &state->state : nullptr);
  diff.before_label = arguments.before;
  diff.after_label = arguments.after;
  if (!arguments.replay.empty()) {
    if (int code = replay_both(arguments, policies, diff); code != 0) return code;
  }
  if (arguments.format == "json") {
    std::cout << policydiff::diff_json(diff);
  } else if (arguments.format == "markdown") {
    std::cout << policydiff::diff_markdown(diff);
  } else {
    std::cout << policydiff::diff_text(diff);
  }
  return arguments.exit_code && !policydiff::same_meaning(diff) ? 1 : 0;
}

}  // namespace allot::cli
