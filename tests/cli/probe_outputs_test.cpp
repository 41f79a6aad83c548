// Issue 28's second probe, the writers: what every command writes, tried as a
// careless operator and an attacker would (docs/SECURITY.md "Every path checked
// against every other", "Standard output is checked", "The audit log"):
//   - an output that is an input or another output (same path, a hard link, a
//     symlink, a file the policy imports, the inventory a state names) is a
//     usage error naming both, and nothing is written;
//   - an empty path is a usage error, never "not given";
//   - `--audit` onto a file that is not an audit log is refused and the file
//     left as it was; many writers on one log lose no record;
//   - standard output that cannot be written exits 2;
//   - under any file-size limit every output either completes or the command
//     exits non-zero, leaving the file as it was (the property test).
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "cli/run_allot.h"
#include "runtime/temp_folder.h"

namespace fs = std::filesystem;
using allot_cli_test::read_text;

namespace {

// Runs a shell script (the allot binary is $ALLOT) and returns its exit code
// and standard error.
allot_cli_test::Run run_script(const std::string& script) {
  const std::string command = "ALLOT='" + std::string(ALLOT_BINARY) + "' bash -c '" + script + "' 2>&1 </dev/null";
  allot_cli_test::Run run;
  FILE* pipe = popen(command.c_str(), "r");
  REQUIRE(pipe != nullptr);
  char buffer[4096];
  for (std::size_t n; (n = std::fread(buffer, 1, sizeof buffer, pipe)) > 0;) run.out.append(buffer, n);
  const int status = pclose(pipe);
  run.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return run;
}

void write_text(const std::string& path, const std::string& text) { std::ofstream(path, std::ios::binary) << text; }

// A folder holding a policy with a library beside it, an inventory, a state
// that names it, a trace, a map and a dump: every kind of input, writable, so
// that a test gone wrong harms only copies.
struct Workspace {
  TempFolder folder{"allot-probe-outputs"};
  std::string policy = folder.file("saas.allot");
  std::string library = folder.file("stdlib/fairshare.allot");
  std::string cluster = folder.file("saas-8gpu.toml");
  std::string state = folder.file("state.toml");
  std::string trace = folder.file("trace.csv");
  std::string map = folder.file("map.toml");
  std::string dump = folder.file("site.dump");

  Workspace() {
    const std::string root = ALLOT_SOURCE_DIR;
    fs::create_directories(folder.file("stdlib"));
    for (const char* name : {"fairshare.allot", "waiting.allot", "classes.allot"}) {
      fs::copy_file(root + "/stdlib/" + name, folder.file(std::string("stdlib/") + name));
    }
    fs::copy_file(root + "/policies/saas.allot", policy);
    fs::copy_file(root + "/examples/clusters/saas-8gpu.toml", cluster);
    std::string text = read_text(root + "/examples/states/saas-wednesday.toml");
    const std::string reference = "\"../clusters/saas-8gpu.toml\"";
    text.replace(text.find(reference), reference.size(), "\"saas-8gpu.toml\"");
    write_text(state, text);
    write_text(trace, "job_id,submit_s,duration_s,gpus,group,user,status\nj1,0,600,1,g,,completed\n");
    fs::copy_file(root + "/examples/workloads/philly_map.toml", map);
    fs::copy_file(root + "/tests/golden/import/lab.dump", dump);
  }

  // `$ALLOT cycle` on the state, with `extra` options.
  std::string cycle(const std::string& extra) const {
    return "\"$ALLOT\" cycle --policy " + policy + " --state " + state + " " + extra;
  }
  std::string replay(const std::string& extra) const {
    return "\"$ALLOT\" replay --now 2026-12-01 --policy " + policy + " --cluster " + cluster + " " + extra;
  }
};

// The bytes of every input, to show a refused command changed none of them.
std::vector<std::string> contents(const Workspace& space) {
  std::vector<std::string> all;
  for (const std::string& path :
       {space.policy, space.library, space.cluster, space.state, space.trace, space.map, space.dump}) {
    all.push_back(read_text(path));
  }
  return all;
}

struct Clash {
  const char* what;
  std::string script;   // run in the workspace's folder
  std::string message;  // what the user reads on standard error
};

}  // namespace

TEST_CASE("an output that is an input or another output is a usage error naming both", "[cli][probe]") {
  Workspace space;
  const std::string out = space.folder.file("out.json");
  const std::string linked = space.folder.file("hard-link-to-policy");
  fs::create_hard_link(space.policy, linked);
  const std::string symlink = space.folder.file("symlink-to-state");
  fs::create_symlink(space.state, symlink);
  const Clash clashes[] = {
      {"--apply onto the policy", space.cycle("--apply " + space.policy),
       "allot: --apply `" + space.policy + "` is the same file as --policy `" + space.policy +
           "`; writing it would replace an input"},
      {"--apply onto a hard link to the policy", space.cycle("--apply " + linked), "is the same file as --policy"},
      {"--apply onto a library the policy imports", space.cycle("--apply " + space.library),
       "is the same file as an import of --policy"},
      {"--apply onto the inventory the state names", space.cycle("--apply " + space.cluster),
       "is the same file as the inventory of --state"},
      {"--audit onto the state", space.cycle("--audit " + space.state), "is the same file as --state"},
      {"--audit through a symlink to the state", space.cycle("--audit " + symlink), "is the same file as --state"},
      {"--apply and --audit onto one file", space.cycle("--apply " + out + " --audit " + out),
       "are the same file; each output needs its own"},
      {"--apply and --audit onto one file spelt twice",
       space.cycle("--apply " + out + " --audit " + space.folder.file("stdlib/../out.json")), "are the same file"},
      {"--json onto the cluster", space.replay("--scenario normal --days 1 --json " + space.cluster),
       "--json `" + space.cluster + "` is the same file as --cluster"},
      {"--json onto the trace",
       space.replay("--trace " + space.trace + " --map " + space.map + " --json " + space.trace),
       "is the same file as --trace"},
      {"--html onto the map", space.replay("--trace " + space.trace + " --map " + space.map + " --html " + space.map),
       "is the same file as --map"},
      {"--json onto the policy", space.replay("--scenario normal --days 1 --json " + space.policy),
       "is the same file as --policy"},
      {"--json and --html onto one file", space.replay("--scenario normal --days 1 --json " + out + " --html " + out),
       "are the same file"},
      {"--json - and --html - both on standard output", space.replay("--scenario normal --days 1 --json - --html -"),
       "are the same file"},
      {"import --output onto the dump", "\"$ALLOT\" import slurm " + space.dump + " --output " + space.dump,
       "is the same file as the dump"},
  };
  for (const Clash& clash : clashes) {
    INFO(clash.what);
    const auto before = contents(space);
    const auto run = run_script(clash.script);
    CHECK(run.exit_code == 2);
    CHECK_THAT(run.out, Catch::Contains(clash.message));
    CHECK(contents(space) == before);
    CHECK_FALSE(fs::exists(out));
  }
}

TEST_CASE("cycle --apply may replace its own --state: the one documented update in place", "[cli][probe]") {
  Workspace space;
  const std::string before = read_text(space.state);
  const auto run = run_script(space.cycle("--apply " + space.state + " >/dev/null"));
  CHECK(run.exit_code == 0);
  CHECK(read_text(space.state) != before);
}

TEST_CASE("an empty path is a usage error, never 'not given'", "[cli][probe]") {
  Workspace space;
  const std::string cases[] = {
      space.cycle("--apply \"\""),
      space.cycle("--audit \"\""),
      space.cycle("--apply \"$UNSET_VARIABLE\""),
      space.replay("--scenario normal --days 1 --json \"\""),
      space.replay("--scenario normal --days 1 --html \"\""),
      "\"$ALLOT\" replay --policy name= --cluster " + space.cluster + " --scenario normal",
      "\"$ALLOT\" import slurm " + space.dump + " --output \"\"",
      "\"$ALLOT\" check \"\"",
      "\"$ALLOT\" explain x --policy \"\" --state " + space.state,
      "\"$ALLOT\" slurm --policy " + space.policy + " --map " + space.map + " --ledger \"\" --once --dry-run",
  };
  for (const std::string& script : cases) {
    INFO(script);
    const auto run = run_script(script);
    CHECK(run.exit_code == 2);
    CHECK_THAT(run.out, Catch::Contains("the path is empty"));
  }
}

TEST_CASE("cycle --audit refuses a file that is not an audit log and leaves it as it was", "[cli][probe]") {
  Workspace space;
  struct NotALog {
    const char* what;
    std::string text;
  };
  const NotALog files[] = {
      {"notes without a final newline", "remember: the GPUs are on loan"},
      {"a state snapshot", read_text(space.state)},
      {"JSON of another kind", "{\"job\":\"a\"}\n"},
      {"a line that starts like a record, later", "x\n{\"time\":\"2026-12-02T09:00:00Z\"}\n"},
  };
  for (const NotALog& file : files) {
    INFO(file.what);
    const std::string path = space.folder.file("notes.txt");
    write_text(path, file.text);
    const auto run = run_script(space.cycle("--audit " + path + " >/dev/null"));
    CHECK(run.exit_code == 2);
    CHECK_THAT(run.out, Catch::Contains("is not an Allot audit log"));
    CHECK(read_text(path) == file.text);
  }
}

TEST_CASE("cycle --audit cuts only a torn last record of an audit log, then appends", "[cli][probe]") {
  Workspace space;
  const std::string log = space.folder.file("audit.jsonl");
  REQUIRE(run_script(space.cycle("--audit " + log + " >/dev/null")).exit_code == 0);
  const std::string whole = read_text(log);
  REQUIRE_FALSE(whole.empty());
  for (const std::string& torn : {std::string("{\"time\":\"2026-12-02T09:0"), std::string("{\"ti")}) {
    INFO(torn);
    write_text(log, whole + torn);
    REQUIRE(run_script(space.cycle("--audit " + log + " >/dev/null")).exit_code == 0);
    CHECK(read_text(log) == whole + whole);
    write_text(log, torn);  // a log whose only record was cut
    REQUIRE(run_script(space.cycle("--audit " + log + " >/dev/null")).exit_code == 0);
    CHECK(read_text(log) == whole);
  }
}

TEST_CASE("many writers on one audit log lose no record", "[cli][probe]") {
  Workspace space;
  const std::string log = space.folder.file("audit.jsonl");
  REQUIRE(run_script(space.cycle("--engine interp --audit " + log + " >/dev/null")).exit_code == 0);
  const std::string one_cycle = read_text(log);
  const auto per_cycle = static_cast<std::size_t>(std::count(one_cycle.begin(), one_cycle.end(), '\n'));
  REQUIRE(per_cycle > 0);
  fs::remove(log);
  // Twenty cycles at once, each opening the log (and so checking it for a torn line) while others append.
  constexpr int kWriters = 20;
  const auto run = run_script("for i in $(seq " + std::to_string(kWriters) + "); do " +
                              space.cycle("--engine interp --audit " + log + " >/dev/null") +
                              " & done; failed=0; for job in $(jobs -p); do wait $job || failed=1; done; exit $failed");
  CHECK(run.exit_code == 0);
  std::ifstream lines(log);
  std::size_t count = 0;
  for (std::string line; std::getline(lines, line); ++count) {
    INFO(line);
    CHECK(nlohmann::json::parse(line, nullptr, false).contains("reason"));
  }
  CHECK(count == per_cycle * kWriters);
}

TEST_CASE("standard output that cannot be written exits 2 and writes nothing else", "[cli][probe]") {
  Workspace space;
  const std::string scripts[] = {
      "\"$ALLOT\" check --now 2026-12-01 " + space.policy,
      "\"$ALLOT\" fmt " + space.policy,
      "\"$ALLOT\" compile --now 2026-12-01 --emit ir " + space.policy,
      space.cycle(""),
      "\"$ALLOT\" shares --policy " + space.policy + " --state " + space.state,
      "\"$ALLOT\" explain product-eval --policy " + space.policy + " --state " + space.state,
      space.replay("--scenario normal --days 1"),
      space.replay("--scenario normal --days 1 --json -"),
      "\"$ALLOT\" import slurm " + space.dump,
  };
  for (const std::string& script : scripts) {
    INFO(script);
    const auto run = run_script(script + " >/dev/full");
    CHECK(run.exit_code == 2);
    CHECK_THAT(run.out, Catch::Contains("cannot write standard output"));
  }
  // A cycle whose document was lost applies and audits nothing.
  const std::string next = space.folder.file("next.toml");
  const std::string log = space.folder.file("audit.jsonl");
  CHECK(run_script(space.cycle("--apply " + next + " --audit " + log + " >/dev/full")).exit_code == 2);
  CHECK_FALSE(fs::exists(next));
  CHECK(read_text(log).empty());
}

TEST_CASE("under any file-size limit every output completes or the command fails", "[cli][probe]") {
  // RLIMIT_FSIZE (`ulimit -f`, KiB) makes writes past the limit fail with EFBIG
  // (SIGXFSZ ignored, as a daemon would): a full disk at every size.
  Workspace space;
  const std::string out = space.folder.file("out");
  struct Writer {
    const char* what;
    std::string script;  // writes `out`
    bool to_stdout;      // `out` is standard output, not an option's file
  };
  const Writer writers[] = {
      {"cycle --apply", space.cycle("--apply " + out + " >/dev/null"), false},
      {"cycle --audit", space.cycle("--audit " + out + " >/dev/null"), false},
      {"cycle's document", space.cycle(">" + out), true},
      {"replay --json", space.replay("--scenario normal --days 1 --json " + out + " >/dev/null"), false},
      {"replay --html", space.replay("--scenario normal --days 1 --html " + out + " >/dev/null"), false},
      {"replay's table", space.replay("--scenario normal --days 1 >" + out), true},
      {"import --output", "\"$ALLOT\" import slurm " + space.dump + " --output " + out, false},
      {"compile --emit ir", "\"$ALLOT\" compile --now 2026-12-01 --emit ir " + space.policy + " >" + out, true},
      {"shares", "\"$ALLOT\" shares --format json --policy " + space.policy + " --state " + space.state + " >" + out,
       true},
  };
  for (const Writer& writer : writers) {
    INFO(writer.what);
    fs::remove(out);
    REQUIRE(run_script(writer.script).exit_code == 0);
    const std::string complete = read_text(out);
    REQUIRE(complete.size() > 100);
    for (const int kib : {0, 1, 4, 16}) {
      INFO("ulimit -f " << kib);
      const std::string old = "the file as it was before the command";
      write_text(out, old);
      if (writer.to_stdout || std::string(writer.what) == "cycle --audit") fs::remove(out);
      const auto run = run_script("trap \"\" XFSZ; ulimit -f " + std::to_string(kib) + "; " + writer.script);
      const bool fits = complete.size() <= static_cast<std::size_t>(kib) * 1024;
      if (run.exit_code == 0) {
        CHECK(fits);
        CHECK(read_text(out) == complete);
      } else {
        CHECK_FALSE(fits);
        // Files written atomically are as they were; a log or standard output may hold a part.
        if (!writer.to_stdout && std::string(writer.what) != "cycle --audit") CHECK(read_text(out) == old);
      }
    }
  }
}

TEST_CASE("fmt - reads standard input with the bound of a policy file", "[cli][probe]") {
  // Without the bound, /dev/zero on standard input grew a string until bad_alloc.
  const std::string command = "'" + std::string(ALLOT_BINARY) + "' fmt - </dev/zero 2>&1";
  FILE* pipe = popen(command.c_str(), "r");
  REQUIRE(pipe != nullptr);
  std::string out;
  char buffer[4096];
  for (std::size_t n; (n = std::fread(buffer, 1, sizeof buffer, pipe)) > 0;) out.append(buffer, n);
  const int status = pclose(pipe);
  CHECK((WIFEXITED(status) && WEXITSTATUS(status) == 2));
  CHECK_THAT(out, Catch::Contains("cannot read `-`: is 1048577 bytes, more than the 1048576 allowed"));
}
