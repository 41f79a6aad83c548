// The generated job_submit.lua (allot/slurm.h job_submit_lua) run by the real
// Lua 5.1 interpreter under a stand-in for what Slurm 22.05's job_submit/lua
// plugin gives a script: the `slurm` table with 22.05's values, job_desc and
// job_rec tables that answer NO_VAL for numbers never given, and a part_list.
// The script in slurmctld is job_submit_sandbox.sh's; these check each limit,
// the class rules and the updates one case at a time.
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "../cli/run_allot.h"
#include "../runtime/temp_folder.h"
#include "allot/slurm.h"
#include "job_map.h"
#include "slurm_support.h"

namespace {

using allot::slurm::JobMap;

constexpr const char* kLua = "/usr/bin/lua5.1";

// Stands in for slurmctld: loads the script as job_submit_lua.c does (its
// chunk must return slurm.SUCCESS), then runs the case's Lua code, whose
// submit{...} and modify({...}, {...}) print the hook's return code and what it
// logged. Values are 22.05's (slurm/slurm.h, slurm/slurm_errno.h, src/lua/slurm_lua.c).
constexpr const char* kHarness = R"lua(
local NO_VAL, NO_VAL16, INFINITE = 4294967294, 65534, 4294967295
slurm = {
  SUCCESS = 0, ERROR = -1, FAILURE = -1, NO_VAL = NO_VAL, NO_VAL16 = NO_VAL16, INFINITE = INFINITE,
  ESLURM_ACCESS_DENIED = 2002, ESLURM_INVALID_NODE_COUNT = 2006, ESLURM_ACCOUNTING_POLICY = 2050,
  ESLURM_INVALID_TIME_LIMIT = 2051, ESLURM_MISSING_TIME_LIMIT = 8000,
}
-- As slurm_lua.c and job_submit_lua.c define them: the arguments go through string.format.
function slurm.log_user(...) print("user: " .. string.format(unpack({...}))) end
function slurm.log_info(...) print("info: " .. string.format(unpack({...}))) end
assert(dofile(arg[1]) == slurm.SUCCESS, "the script's chunk must return slurm.SUCCESS")

-- Numbers the job did not give read NO_VAL (NO_VAL16 for 16-bit fields), strings nil.
local numbers = { min_nodes = NO_VAL, max_nodes = NO_VAL, num_tasks = NO_VAL, time_limit = NO_VAL,
  sockets_per_node = NO_VAL16 }
local function desc(fields)
  return setmetatable({}, { __index = function(_, name)
    if fields[name] ~= nil then return fields[name] end
    return numbers[name]
  end })
end
local partitions = {
  gpu = { flag_default = 1, default_time = NO_VAL, max_time = INFINITE },
  debug = { flag_default = 0, default_time = 10, max_time = 60 },
  short = { flag_default = 0, default_time = NO_VAL, max_time = 30 },
}
function submit(fields, part_list)
  if fields.user_name == nil then fields.user_name = "ana" end
  print("rc " .. slurm_job_submit(desc(fields), part_list or partitions, 1000))
end
function modify(changes, record)
  if record.user_name == nil then record.user_name = "ana" end
  if record.job_id == nil then record.job_id = 42 end
  print("rc " .. slurm_job_modify(desc(changes), record, partitions, 1000))
end
assert(loadstring(arg[2]))()
)lua";

// The plugin's return codes the script uses (22.05's slurm_errno.h).
constexpr int kSuccess = 0;
constexpr int kAccountingPolicy = 2050;
constexpr int kInvalidNodeCount = 2006;
constexpr int kInvalidTimeLimit = 2051;
constexpr int kMissingTimeLimit = 8000;

// Whether the Lua interpreter is here; in CI it must be (scripts/setup.sh installs it).
bool have_lua() {
  if (::access(kLua, X_OK) == 0) return true;
  if (std::getenv("CI") != nullptr) FAIL("CI must run the job_submit.lua tests: " << kLua << " is missing");
  WARN("skipped: lua5.1 is not installed (scripts/setup.sh installs it)");
  return false;
}

struct Outcome {
  std::vector<int> codes;          // one per submit{} / modify()
  std::vector<std::string> lines;  // what the script logged, "user: ..." and "info: ..."
  std::string output;
};

class Script {
 public:
  explicit Script(const std::string& text) : folder_("allot-job-submit") {
    std::ofstream(folder_.file("job_submit.lua")) << text;
    std::ofstream(folder_.file("harness.lua")) << kHarness;
  }

  // Runs Lua code calling submit{...} and modify(...) against the script.
  Outcome run(const std::string& lua) const {
    std::ofstream(folder_.file("case.lua")) << lua;
    const std::string command = fmt::format("{} '{}' '{}' \"$(cat '{}')\" 2>&1", kLua, folder_.file("harness.lua"),
                                            folder_.file("job_submit.lua"), folder_.file("case.lua"));
    Outcome outcome;
    FILE* pipe = ::popen(command.c_str(), "r");
    REQUIRE(pipe != nullptr);
    char buffer[4096];
    for (std::size_t n; (n = std::fread(buffer, 1, sizeof buffer, pipe)) > 0;) outcome.output.append(buffer, n);
    const int status = ::pclose(pipe);
    INFO(outcome.output);
    REQUIRE(WIFEXITED(status));
    REQUIRE(WEXITSTATUS(status) == 0);
    std::size_t begin = 0;
    for (std::size_t end; (end = outcome.output.find('\n', begin)) != std::string::npos; begin = end + 1) {
      const std::string line = outcome.output.substr(begin, end - begin);
      if (line.rfind("rc ", 0) == 0) {
        outcome.codes.push_back(std::stoi(line.substr(3)));
      } else {
        outcome.lines.push_back(line);
      }
    }
    return outcome;
  }

 private:
  TempFolder folder_;
};

const allot::CompiledPolicy& limits_policy() {
  static const auto policy = slurm_test::compile_file("tests/slurm/data/job_submit.allot");
  return *policy;
}

JobMap limits_map() {
  auto map = allot::slurm::load_job_map(std::string(ALLOT_SOURCE_DIR) + "/tests/slurm/data/job_submit_map.toml");
  REQUIRE(map);
  REQUIRE_FALSE(allot::slurm::check_job_map(*map, limits_policy().tables()));
  return *map;
}

std::string script_for(const JobMap& map, const std::string& generated_on = "") {
  auto script =
      allot::slurm::job_submit_lua(limits_policy().tables(), map, {limits_policy().source_hash(), generated_on});
  REQUIRE(script);
  return *script;
}

// A submission and what the script answers: accepted, or refused with a code and a message.
struct Case {
  Case(std::string what, std::string call) : what(std::move(what)), call(std::move(call)) {}
  Case(std::string what, std::string call, int code, std::string message)
      : what(std::move(what)), call(std::move(call)), code(code), message(std::move(message)) {}
  std::string what;
  std::string call;
  int code = kSuccess;
  std::string message;  // the start of what the user is told ("" when accepted)
};

// Runs each case; a refusal's first logged line starts with `told` and the
// case's message. Only submissions tell the user: an update's refusal is one
// line in slurmctld's log (Slurm discards log_user in job_modify).
void check_cases(const Script& script, const std::vector<Case>& cases, const std::string& told = "user: allot: ") {
  for (const Case& c : cases) {
    INFO(c.what << ": " << c.call);
    const Outcome outcome = script.run(c.call);
    INFO(outcome.output);
    REQUIRE(outcome.codes.size() == 1);
    CHECK(outcome.codes[0] == c.code);
    if (c.message.empty()) {
      CHECK(outcome.lines.empty());
    } else {
      REQUIRE_FALSE(outcome.lines.empty());
      CHECK_THAT(outcome.lines[0], Catch::Matchers::StartsWith(told + c.message));
      if (told.rfind("info: ", 0) == 0) CHECK(outcome.lines.size() == 1);
    }
  }
}

}  // namespace

TEST_CASE("job_submit.lua accepts jobs within their class's limits and refuses each limit broken", "[job_submit]") {
  if (!have_lua()) return;
  const Script script(script_for(limits_map()));
  check_cases(
      script,
      {
          {"debug within", R"(submit{ partition = "debug", tres_per_node = "gres:gpu:1", time_limit = 15 })"},
          {"debug, two GPUs", R"(submit{ partition = "debug", tres_per_node = "gres:gpu:2", time_limit = 5 })",
           kAccountingPolicy, "job class `debug` allows at most 1 GPU; this job asks for 2 (policy limits "},
          {"debug, --gpus=2", R"(submit{ partition = "debug", tres_per_job = "gres:gpu:2", time_limit = 5 })",
           kAccountingPolicy, "job class `debug` allows at most 1 GPU; this job asks for 2"},
          {"debug, gres/ form", R"(submit{ partition = "debug", tres_per_node = "gres/gpu:3", time_limit = 5 })",
           kAccountingPolicy, "job class `debug` allows at most 1 GPU; this job asks for 3"},
          {"debug, typed and other GRES",
           R"(submit{ partition = "debug", tres_per_node = "gres:gpu:a100:1,gres:mps:100", time_limit = 5 })"},
          {"debug, 16 minutes", R"(submit{ partition = "debug", time_limit = 16 })", kInvalidTimeLimit,
           "job class `debug` allows at most 15m of runtime; this job asks for 16m: use --time=00:15:00 or less"},
          {"debug, no time limit", R"(submit{ partition = "debug", time_limit = slurm.INFINITE })", kInvalidTimeLimit,
           "job class `debug` allows at most 15m of runtime; this job asks for no time limit"},
          {"debug without --time: the partition's DefaultTime (10m) fits", R"(submit{ partition = "debug" })"},
          {"wide without --time on a partition without a default",
           R"(submit{ name = "wide.run-1", tres_per_node = "gres:gpu:4" })", kMissingTimeLimit,
           "job class `wide` allows at most 1d of runtime; this job gives no --time: add --time=1-00:00:00 or less"},
          {"wide without --time on a partition with MaxTime 30m",
           R"(submit{ name = "wide.run-1", partition = "short" })"},
          {"wide, 2 nodes x 4 GPUs",
           R"(submit{ name = "wide.run-1", min_nodes = 2, max_nodes = 2, tres_per_node = "gres:gpu:4", time_limit = 60 })"},
          {"wide, 3 nodes", R"(submit{ name = "wide.run-1", min_nodes = 3, max_nodes = 3, time_limit = 60 })",
           kInvalidNodeCount, "job class `wide` allows at most 2 nodes; this job asks for 3"},
          {"wide, --nodes=1-3 may get 3",
           R"(submit{ name = "wide.run-1", min_nodes = 1, max_nodes = 3, time_limit = 60 })", kInvalidNodeCount,
           "job class `wide` allows at most 2 nodes; this job asks for 3"},
          {"wide, GPUs per node times nodes",
           R"(submit{ name = "wide.run-1", min_nodes = 2, tres_per_node = "gres:gpu:5", time_limit = 60 })",
           kAccountingPolicy, "job class `wide` allows at most 8 GPUs; this job asks for 10"},
          {"wide, GPUs per task times tasks",
           R"(submit{ name = "wide.run-1", num_tasks = 9, tres_per_task = "gres:gpu:1", time_limit = 60 })",
           kAccountingPolicy, "job class `wide` allows at most 8 GPUs; this job asks for 9"},
          {"wide, 25 hours", R"(submit{ name = "wide.run-1", time_limit = 1500 })", kInvalidTimeLimit,
           "job class `wide` allows at most 1d of runtime; this job asks for 1d1h: use --time=1-00:00:00 or less"},
          {"eval within (its deadline cannot be checked)",
           R"(submit{ name = "eval-7", tres_per_job = "gres:gpu:4", time_limit = 120 })"},
          {"eval, 5 GPUs", R"(submit{ name = "eval-7", tres_per_job = "gres:gpu:5", time_limit = 120 })",
           kAccountingPolicy, "job class `eval` allows at most 4 GPUs; this job asks for 5"},
          {"train has no limits",
           R"(submit{ name = "train", min_nodes = 64, tres_per_node = "gres:gpu:8", time_limit = slurm.INFINITE })"},
          {"no rule matches: left alone",
           R"(submit{ name = "free-big", min_nodes = 64, tres_per_node = "gres:gpu:8", time_limit = slurm.INFINITE })"},
      });
}

TEST_CASE("job_submit.lua finds a job's class as the mapping file's rules say", "[job_submit]") {
  if (!have_lua()) return;
  const Script script(script_for(limits_map()));
  // Which class a job got shows in which limit refuses it: debug allows 1 GPU, wide 2 nodes, eval 4 GPUs.
  check_cases(
      script,
      {
          {"the first rule wins: debug before wide.run-*",
           R"(submit{ partition = "debug", name = "wide.run-1", tres_per_node = "gres:gpu:2", time_limit = 5 })",
           kAccountingPolicy, "job class `debug`"},
          {"`.` is a plain character", R"(submit{ name = "widexrun-1", min_nodes = 3, time_limit = 60 })"},
          {"`-` is a plain character", R"(submit{ name = "wide.run1", min_nodes = 3, time_limit = 60 })"},
          {"`*` matches nothing too", R"(submit{ name = "wide.run-", min_nodes = 3, time_limit = 60 })",
           kInvalidNodeCount, "job class `wide`"},
          {"anchored at the end", R"(submit{ name = "xwide.run-1", min_nodes = 3, time_limit = 60 })"},
          {"a set", R"(submit{ name = "eval-x", tres_per_job = "gres:gpu:5", time_limit = 60 })"},
          {"every condition of a rule",
           R"(submit{ account = "beta", comment = "big1", min_nodes = 3, time_limit = 60 })", kInvalidNodeCount,
           "job class `wide`"},
          {"the account as Slurm lowercases it",
           R"(submit{ account = "BETA", comment = "big1", min_nodes = 3, time_limit = 60 })", kInvalidNodeCount,
           "job class `wide`"},
          {"the default account when none is given",
           R"(submit{ default_account = "beta", comment = "big1", min_nodes = 3, time_limit = 60 })", kInvalidNodeCount,
           "job class `wide`"},
          {"one condition fails", R"(submit{ account = "beta", comment = "big12", name = "fx", min_nodes = 3 })"},
          {"the default partition's DefaultTime when neither is given",
           R"(submit({ name = "wide.run-1" }, { other = { flag_default = 1, default_time = 30, max_time = slurm.INFINITE } }))"},
      });
}

TEST_CASE("job_submit.lua checks what an update changes", "[job_submit]") {
  if (!have_lua()) return;
  const Script script(script_for(limits_map()));
  const std::string debug_job =
      R"({ partition = "debug", name = "d", tres_per_node = "gres:gpu:1", min_nodes = 1, max_nodes = 0, time_limit = 15 })";
  const std::string over_job =
      R"({ partition = "debug", name = "d", tres_per_node = "gres:gpu:4", min_nodes = 1, max_nodes = 0, time_limit = 600 })";
  check_cases(
      script,
      {
          {"a time limit within the class", "modify({ time_limit = 10 }, " + debug_job + ")"},
          {"a time limit past the class", "modify({ time_limit = 60 }, " + debug_job + ")", kInvalidTimeLimit,
           "job class `debug` allows at most 15m of runtime; this job asks for 1h"},
          {"UNLIMITED", "modify({ time_limit = slurm.INFINITE }, " + debug_job + ")", kInvalidTimeLimit,
           "job class `debug` allows at most 15m of runtime; this job asks for no time limit"},
          {"more GPUs", R"(modify({ tres_per_node = "gres:gpu:2" }, )" + debug_job + ")", kAccountingPolicy,
           "job class `debug` allows at most 1 GPU; this job asks for 2"},
          {"the adapter's priority write, on a job over its limits from before",
           "modify({ priority = 5000 }, " + over_job + ")"},
          {"a comment change, nothing else", R"(modify({ comment = "hi" }, )" + debug_job + ")"},
          {"a move into a class whose limits the job breaks", R"(modify({ partition = "debug" }, { partition = "gpu",
             name = "x", tres_per_node = "gres:gpu:4", min_nodes = 1, max_nodes = 0, time_limit = 10 }))",
           kAccountingPolicy, "job class `debug` allows at most 1 GPU; this job asks for 4"},
          {"a move out of every class", R"(modify({ name = "free-1", partition = "gpu" }, )" + over_job + ")"},
      },
      "info: allot: refused an update of job 42 of user ana: ");
}

TEST_CASE("job_submit.lua's globs match what the adapter's fnmatch matches", "[job_submit]") {
  if (!have_lua()) return;
  // Each glob is the `name` of a rule for class debug (1 GPU); a job with two
  // GPUs is refused exactly when the rule matches its name. The adapter's
  // class_of (job_map.cpp, fnmatch) says whether it should.
  const std::vector<std::string> globs = {"a.b",
                                          "a-b*",
                                          "x+y?",
                                          "%d",
                                          "(a)",
                                          "^a$",
                                          "[a-c]x",
                                          "[!a-c]x",
                                          "[^a-c]x",
                                          "[]]x",
                                          "[!]]",
                                          "[a-]",
                                          "[-a]",
                                          "[%]",
                                          "[%-/]",
                                          "\\*a",
                                          "a\\?",
                                          "[[:digit:]]*",
                                          "[[:alpha:]_]*",
                                          "*[.]*",
                                          "a*b*c",
                                          "[z-a]",
                                          "[!z-a]",
                                          "[\\]]",
                                          "*",
                                          "",
                                          "[a^]",
                                          "a[",
                                          "é*"};
  const std::vector<std::string> names = {"a.b",   "axb", "a-b", "a-bc", "x+yz", "xxyz", "%d", "5",  "(a)", "^a$",
                                          "a",     "bx",  "dx",  "]x",   "]",    "a",    "-",  "%",  ".",   "/",
                                          "*a",    "ba",  "a?",  "ab",   "123",  "a1",   "_1", "1a", "x.y", "abc",
                                          "aXbYc", "acb", "z",   "",     "^",    "a[",   "é1", "e1", "[]"};
  const auto policy = slurm_test::compile_file("tests/slurm/data/job_submit.allot");
  for (const std::string& glob : globs) {
    JobMap map = limits_map();
    allot::slurm::MapRule rule;
    rule.match.name = glob;
    rule.target = "debug";
    rule.line = 1;
    map.classes = {rule};
    INFO("glob " << glob);
    auto text = allot::slurm::job_submit_lua(policy->tables(), map, {policy->source_hash(), ""});
    if (!text) {
      // Only the globs fnmatch reads in a way Lua cannot follow are refused.
      CHECK(glob == "a[");
      CHECK(text.error().message.find("without its `]`") != std::string::npos);
      continue;
    }
    const Script script(*text);
    std::string calls;
    for (const std::string& name : names) {
      calls += "submit{ name = " + fmt::format("\"{}\"", name) + R"(, tres_per_node = "gres:gpu:2", time_limit = 5 })" +
               "\n";
    }
    const Outcome outcome = script.run(calls);
    REQUIRE(outcome.codes.size() == names.size());
    for (std::size_t i = 0; i < names.size(); ++i) {
      allot::slurm::SlurmJob job;
      job.name = names[i];
      INFO("name " << names[i]);
      CHECK((outcome.codes[i] != kSuccess) == allot::slurm::class_of(map, job).has_value());
    }
  }
}

TEST_CASE("job_submit.lua is the same for the same inputs and says where it came from", "[job_submit]") {
  const JobMap map = limits_map();
  const std::string script = script_for(map);
  CHECK(script == script_for(map));
  CHECK(script.find("written by allot ") != std::string::npos);
  CHECK(script.find(limits_policy().source_hash()) != std::string::npos);
  CHECK(script.find("\"job_submit_map.toml\"") != std::string::npos);
  CHECK(script.find("generated") == std::string::npos);
  CHECK(script.find("Not checked: `deadline required` (`eval`)") != std::string::npos);
  const std::string dated = script_for(map, "2026-12-01");
  CHECK(dated.find(", generated 2026-12-01\"") != std::string::npos);
  // Lua 5.1: no goto, no integer division, no bit operators.
  CHECK(script.find("goto") == std::string::npos);
  CHECK(script.find("//") == std::string::npos);
  CHECK(script.find(" & ") == std::string::npos);
}

TEST_CASE("job_submit.lua quotes the mapping file's text so it stays data", "[job_submit]") {
  if (!have_lua()) return;
  JobMap map = limits_map();
  allot::slurm::MapRule rule;
  rule.match.comment = "x\"\n]] os.exit(3) --\\\\";
  rule.target = "debug";
  rule.line = 3;
  map.classes.insert(map.classes.begin(), rule);
  const std::string text = script_for(map);
  CHECK(text.find("os.exit(3) --\\\\\\\\\"") != std::string::npos);  // inside a string literal, escaped
  const Script script(text);
  const Outcome outcome = script.run(R"(submit{ comment = "x\"\n]] os.exit(3) --\\", tres_per_node = "gres:gpu:2" })");
  REQUIRE(outcome.codes.size() == 1);
  CHECK(outcome.codes[0] == kAccountingPolicy);
}

TEST_CASE("job_submit.lua refuses a glob Lua cannot express, naming its rule", "[job_submit]") {
  JobMap map = limits_map();
  map.classes[1].match.name = "wide[[:word:]]";
  auto script = allot::slurm::job_submit_lua(limits_policy().tables(), map, {limits_policy().source_hash(), ""});
  REQUIRE_FALSE(script);
  CHECK(script.error().to_string() ==
        map.file + ":" + std::to_string(map.classes[1].line) +
            ": class[2].name: the glob \"wide[[:word:]]\" names no character class fnmatch knows: `[:word:]`");
}

TEST_CASE("allot slurm --emit-job-submit writes the script without Slurm", "[job_submit]") {
  using allot_cli_test::run_allot;
  using allot_cli_test::source;
  const std::string arguments = "slurm --policy " + source("policies/saas.allot") + " --map " +
                                source("examples/slurm/saas_map.toml") + " --now 2026-12-01 --emit-job-submit ";
  // No Slurm to read: the script is written from the files alone.
  ::setenv("SLURM_CONF", "/nonexistent/slurm.conf", 1);
  const auto printed = run_allot(arguments + "-");
  CHECK(printed.exit_code == 0);
  CHECK(printed.out.rfind("-- job_submit.lua for Slurm's job_submit/lua plugin", 0) == 0);
  CHECK(printed.out.find("local STAMP = \"policy saas ") != std::string::npos);
  CHECK(printed.out.find(", generated 2026-12-01\"") != std::string::npos);
  if (have_lua()) {
    TempFolder folder("allot-emit-job-submit");
    const std::string path = folder.file("job_submit.lua");
    const auto written = run_allot(arguments + "'" + path + "'");
    CHECK(written.exit_code == 0);
    CHECK(allot_cli_test::read_text(path) == printed.out);
    // It loads: Lua 5.1 compiles it.
    CHECK(std::system(("luac5.1 -p '" + path + "'").c_str()) == 0);
  }
  const auto refused = run_allot(arguments + "/nonexistent-folder/job_submit.lua", true);
  CHECK(refused.exit_code == 2);
  CHECK_THAT(refused.out, Catch::Matchers::Contains("/nonexistent-folder/job_submit.lua"));
  const auto onto_map = run_allot(arguments + source("examples/slurm/saas_map.toml"), true);
  CHECK(onto_map.exit_code == 2);
}
