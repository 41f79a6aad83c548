// The `allot` executable as CI and people run it: exit codes (0 clean, 1
// problems, 2 usage or I/O failure), folder arguments, colour only on a
// terminal, and machine-readable output that parses.
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "runtime/temp_folder.h"

namespace fs = std::filesystem;

namespace {

struct Run {
  int exit_code = -1;
  std::string out;  // standard output only
};

// Runs a shell command with no input; returns its exit code and standard output.
Run capture(const std::string& command) {
  Run run;
  FILE* pipe = popen((command + " </dev/null 2>/dev/null").c_str(), "r");
  REQUIRE(pipe != nullptr);
  char buffer[4096];
  for (std::size_t n; (n = std::fread(buffer, 1, sizeof buffer, pipe)) > 0;) run.out.append(buffer, n);
  const int status = pclose(pipe);
  run.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return run;
}

// Runs `allot ARGUMENTS` with a pipe (not a terminal) as standard output.
Run allot(const std::string& arguments, const std::string& environment = "") {
  return capture(environment + " '" + ALLOT_BINARY + "' " + arguments);
}

// Runs `allot ARGUMENTS` on a pseudo-terminal (util-linux `script`).
Run allot_on_terminal(const std::string& arguments, const std::string& environment) {
  return capture(environment + " script -qec \"'" + ALLOT_BINARY + "' " + arguments + "\" /dev/null");
}

std::string quoted(const fs::path& path) { return "'" + path.string() + "'"; }

std::string read_all(const fs::path& path) {
  std::ifstream stream(path, std::ios::binary);
  std::ostringstream contents;
  contents << stream.rdbuf();
  return contents.str();
}

// The shipped policy `name` with the first `from` replaced by `to`.
std::string edited_policy(const std::string& name, const std::string& from, const std::string& to) {
  std::string text = read_all(fs::path(ALLOT_SOURCE_DIR) / "policies" / name);
  const std::size_t at = text.find(from);
  REQUIRE(at != std::string::npos);
  return text.replace(at, from.size(), to);
}

// The binary and the shipped saas policy, quoted for a shell command.
const std::string kAllot = std::string("'") + ALLOT_BINARY + "'";
const std::string kSaas = std::string("'") + ALLOT_SOURCE_DIR + "/policies/saas.allot'";

const fs::path kCleanPolicy = fs::path(ALLOT_SOURCE_DIR) / "tests/golden/check/clean-seed_company/input.allot";
const std::string kSyntaxError = "policy broken {\n  unit gpu_hours { h100 = 1.0 }\n  window 7d\n  bogus\n}\n";

}  // namespace

TEST_CASE("allot check exits 0 on a clean policy", "[cli]") {
  CHECK(allot("check --now 2026-12-01 " + quoted(kCleanPolicy)).exit_code == 0);
}

TEST_CASE("allot check exits 1 on an error", "[cli]") {
  const TempFolder scratch("allot-cli-test");
  const Run run = allot("check --now 2026-12-01 " + quoted(fs::path(scratch.write("broken.allot", kSyntaxError))));
  CHECK(run.exit_code == 1);
  CHECK(run.out.find("error[syntax_error]") != std::string::npos);
}

TEST_CASE("allot check exits 1 on warnings only with --deny-warnings", "[cli]") {
  // Eleven days before the seed's review dates (2026-12-31): a warning, no error.
  const std::string arguments = "check --now 2026-12-20 " + quoted(kCleanPolicy);
  const Run lenient = allot(arguments);
  CHECK(lenient.exit_code == 0);
  CHECK(lenient.out.find("warning[review_date_near]") != std::string::npos);
  CHECK(lenient.out.find("error[") == std::string::npos);
  CHECK(allot("check --deny-warnings --now 2026-12-20 " + quoted(kCleanPolicy)).exit_code == 1);
}

TEST_CASE("allot exits 2 on usage and I/O failures", "[cli]") {
  const TempFolder scratch("allot-cli-test");
  CHECK(allot("check " + quoted(scratch.path() / "no-such-policy.allot")).exit_code == 2);
  CHECK(allot("check --now 2026-13-45 " + quoted(kCleanPolicy)).exit_code == 2);
  CHECK(allot("check --now tomorrow " + quoted(kCleanPolicy)).exit_code == 2);
  CHECK(allot("check --frobnicate " + quoted(kCleanPolicy)).exit_code == 2);
  CHECK(allot("check --format yaml " + quoted(kCleanPolicy)).exit_code == 2);
  CHECK(allot("").exit_code == 2);
}

TEST_CASE("allot check on a folder checks every *.allot below it", "[cli]") {
  const TempFolder scratch("allot-cli-test");
  scratch.write("team/clean.allot", read_all(kCleanPolicy));
  scratch.write("team/nested/deeper/broken.allot", kSyntaxError);
  scratch.write("team/notes.txt", "not a policy {{{");
  const Run run = allot("check --now 2026-12-01 " + quoted(scratch.path() / "team"));
  CHECK(run.exit_code == 1);
  CHECK(run.out.find("broken.allot:4:3") != std::string::npos);
  CHECK(run.out.find("checked 2 files: 1 error") != std::string::npos);
  CHECK(run.out.find("notes.txt") == std::string::npos);
}

TEST_CASE("allot check prints no colour codes unless writing to a terminal", "[cli]") {
  const TempFolder scratch("allot-cli-test");
  const std::string arguments =
      "check --now 2026-12-01 " + quoted(fs::path(scratch.write("broken.allot", kSyntaxError)));
  const Run piped = allot(arguments);
  CHECK(piped.out.find("error[syntax_error]") != std::string::npos);
  CHECK(piped.out.find('\x1b') == std::string::npos);
  CHECK(allot(arguments, "NO_COLOR=1").out.find('\x1b') == std::string::npos);

  if (std::system("command -v script >/dev/null 2>&1") != 0) {
    WARN("`script` is not installed: the terminal half of this test did not run");
    return;
  }
  const std::string coloured = allot_on_terminal(arguments, "env -u NO_COLOR").out;
  CHECK(coloured.find("syntax_error") != std::string::npos);
  CHECK(coloured.find('\x1b') != std::string::npos);
  const std::string plain = allot_on_terminal(arguments, "NO_COLOR=1").out;
  CHECK(plain.find("syntax_error") != std::string::npos);
  CHECK(plain.find('\x1b') == std::string::npos);
}

TEST_CASE("allot check --format json, sarif and github print what their readers parse", "[cli]") {
  const TempFolder scratch("allot-cli-test");
  const fs::path broken = scratch.write("broken.allot", kSyntaxError);
  const std::string files = quoted(broken) + " " + quoted(kCleanPolicy);

  const Run json = allot("check --format json --now 2026-12-01 " + files);
  CHECK(json.exit_code == 1);
  const nlohmann::json document = nlohmann::json::parse(json.out);
  REQUIRE(document.at("diagnostics").size() == 1);
  CHECK(document.at("diagnostics")[0].at("code") == "syntax_error");
  CHECK(document.at("diagnostics")[0].at("file") == broken.string());
  CHECK(json.out.find("checked") == std::string::npos);  // no text summary mixed in

  const Run clean = allot("check --format json --now 2026-12-01 " + quoted(kCleanPolicy));
  CHECK(clean.exit_code == 0);
  CHECK(nlohmann::json::parse(clean.out).at("diagnostics").empty());

  const Run sarif = allot("check --format sarif --now 2026-12-01 " + files);
  CHECK(sarif.exit_code == 1);
  const nlohmann::json log = nlohmann::json::parse(sarif.out);
  CHECK(log.at("version") == "2.1.0");
  CHECK(log.at("runs")[0].at("results")[0].at("ruleId") == "syntax_error");

  const Run github = allot("check --format github --now 2026-12-01 " + files);
  CHECK(github.exit_code == 1);
  CHECK(github.out.starts_with("::error file="));
  CHECK(github.out.find(",line=4,col=3,") != std::string::npos);
}

TEST_CASE("allot --version names the commit; allot help lists the commands; a misspelt command gets a suggestion",
          "[cli]") {
  const std::string allot = std::string("'") + ALLOT_BINARY + "'";
  const Run version = capture(allot + " --version");
  CHECK(version.exit_code == 0);
  CHECK_THAT(version.out, Catch::Matches("allot [0-9]+\\.[0-9]+\\.[0-9]+ \\(([0-9a-f]{7,}[-a-z0-9]*|unknown)\\)\n"));
  const Run help = capture(allot + " help");
  CHECK(help.exit_code == 0);
  for (const char* command : {"check", "fmt", "replay", "cycle", "explain", "shares", "test", "slurm", "serve"}) {
    CHECK_THAT(help.out, Catch::Contains(std::string("  ") + command));
  }
  const Run misspelt = capture("(" + allot + " chek policies 2>&1)");
  CHECK(misspelt.exit_code == 2);
  CHECK_THAT(misspelt.out, Catch::Contains("allot: unknown command `chek`; did you mean `check`?"));
}

TEST_CASE("allot-lint checks and formats exactly as allot does, and has no other command", "[cli]") {
  const std::string allot = std::string("'") + ALLOT_BINARY + "'";
  const std::string lint = std::string("'") + ALLOT_LINT_BINARY + "'";
  const std::string source = std::string("'") + ALLOT_SOURCE_DIR;
  for (const std::string& arguments :
       {" check --now 2026-12-01 " + source + "/policies'", " check --format json " + source + "/tests/golden/check'",
        " fmt " + source + "/policies/saas.allot'",
        " -I " + source + "/stdlib' check --now 2026-12-01 " + source + "/policies/large_org.allot'"}) {
    INFO(arguments);
    const Run full = capture("(" + allot + arguments + " 2>&1)");
    const Run linted = capture("(" + lint + arguments + " 2>&1)");
    CHECK(linted.exit_code == full.exit_code);
    CHECK(linted.out == full.out);
  }
  const Run replay = capture("(" + lint + " replay --scenario normal 2>&1)");
  CHECK(replay.exit_code == 2);
  CHECK_THAT(replay.out, Catch::Contains("allot-lint: unknown command `replay`"));
  const Run version = capture(lint + " --version");
  CHECK_THAT(version.out, Catch::StartsWith("allot "));
}

TEST_CASE("allot check and allot fmt --check on a folder without policies exit 2 and say so", "[cli]") {
  const fs::path empty = fs::temp_directory_path() / ("allot-empty-" + std::to_string(getpid()));
  fs::create_directories(empty);
  const std::string allot = std::string("'") + ALLOT_BINARY + "'";
  for (const char* command : {" check ", " fmt --check "}) {
    const Run run = capture("(" + allot + command + "'" + empty.string() + "' 2>&1)");
    CHECK(run.exit_code == 2);
    CHECK_THAT(run.out, Catch::Contains("holds no policy files (*.allot)"));
  }
  fs::remove_all(empty);
}

TEST_CASE("every command finds imports through -I and ALLOT_PATH, as allot check does", "[cli]") {
  const TempFolder root("allot-import-path");
  root.write("shared/team/boost.allot", "fn team_boost(j: job): number = j.wait / 1h\n");
  const std::string anchor = "import \"stdlib/waiting.allot\"\n";
  root.write("policies/site.allot", edited_policy("saas.allot", anchor, anchor + "import \"team/boost.allot\"\n"));
  const std::string allot = std::string("'") + ALLOT_BINARY + "'";
  const std::string file = "'" + (root.path() / "policies" / "site.allot").string() + "'";
  const std::string shared = "'" + (root.path() / "shared").string() + "'";
  const std::string state = std::string("'") + ALLOT_SOURCE_DIR + "/examples/states/saas-wednesday.toml'";
  // Without the folder every command refuses the import; with it, each one reads the policy.
  CHECK(capture(allot + " check --now 2026-12-01 " + file).exit_code == 1);
  CHECK(capture(allot + " compile --engine interp --now 2026-12-01 " + file).exit_code == 1);
  CHECK(capture(allot + " check --now 2026-12-01 -I " + shared + " " + file).exit_code == 0);
  CHECK(capture(allot + " -I " + shared + " compile --engine interp --now 2026-12-01 " + file).exit_code == 0);
  CHECK(capture(allot + " cycle --engine interp --policy " + file + " --state " + state + " -I " + shared).exit_code ==
        0);
  CHECK(capture("ALLOT_PATH=/nonexistent:" + shared + " " + allot + " shares --engine interp --policy " + file +
                " --state " + state)
            .exit_code == 0);
}

TEST_CASE(
    "allot check --cluster refuses a unit weight for a GPU type the cluster lacks that leaves one at 1.0, and "
    "a class too big for it",
    "[cli]") {
  const TempFolder folder("allot-cluster-check");
  const auto write = [&](const std::string& name, const std::string& from, const std::string& to) {
    return quoted(fs::path(folder.write(name, edited_policy("saas.allot", from, to))));
  };
  const std::string allot = std::string("'") + ALLOT_BINARY + "'";
  const std::string cluster = " --cluster '" + std::string(ALLOT_SOURCE_DIR) + "/examples/clusters/saas-8gpu.toml'";
  const std::string saas = quoted(fs::path(ALLOT_SOURCE_DIR) / "policies/saas.allot");
  const std::string clean = saas;
  CHECK(capture(allot + " check --now 2026-12-01 " + clean + cluster).exit_code == 0);

  const std::string misspelt = write("misspelt.allot", "    h100 = 1.0\n", "    h10O = 1.0\n");
  CHECK(capture(allot + " check --now 2026-12-01 " + misspelt).exit_code == 0);  // nothing to compare with
  const Run typo = capture("(" + allot + " check --now 2026-12-01 " + misspelt + cluster + " 2>&1)");
  CHECK(typo.exit_code == 1);
  CHECK_THAT(typo.out, Catch::Contains("error[unknown_name]: cluster `"));
  CHECK_THAT(typo.out, Catch::Contains("saas-8gpu.toml` has no GPU type `h10O`"));
  CHECK_THAT(typo.out, Catch::Contains("did you mean `h100`?"));
  // A fleet's policy: a type the cluster lacks weighed beside every type it has weighs nothing.
  const std::string fleet = write("fleet.allot", "    h100 = 1.0\n", "    h100 = 1.0\n    b300 = 2.0\n");
  CHECK(capture(allot + " check --now 2026-12-01 " + fleet + cluster).exit_code == 0);

  const std::string big = write("big.allot", "    max_gpus 4\n", "    max_gpus 64\n");
  const Run too_big = capture("(" + allot + " check --now 2026-12-01 " + big + cluster + " 2>&1)");
  CHECK(too_big.exit_code == 1);
  CHECK_THAT(too_big.out, Catch::Contains("class `eval` lets a job ask for 64 GPUs, but cluster `"));
  CHECK_THAT(too_big.out, Catch::Contains("` has 8"));

  CHECK(capture(allot + " check " + clean + " --cluster '" + folder.file("none.toml") + "'").exit_code == 2);
}

TEST_CASE("allot check - checks a policy on standard input", "[cli]") {
  const std::string& allot = kAllot;
  const std::string& saas = kSaas;
  // Its imports resolve from the working folder, then the import path (stdlib/ is on it).
  const Run clean = capture("(" + allot + " check --now 2026-12-01 - < " + saas + ")");
  CHECK(clean.exit_code == 0);
  CHECK_THAT(clean.out, Catch::Contains("checked 1 file: 0 errors, 0 warnings"));
  const Run broken = capture("(printf 'policy p {\\n  window 7days\\n}\\n' | " + allot + " check - 2>&1)");
  CHECK(broken.exit_code == 1);
  CHECK_THAT(broken.out, Catch::Contains("--> <stdin>:2:10"));
  CHECK_THAT(broken.out, Catch::Contains("`7days` is not a duration"));
  CHECK_THAT(broken.out, Catch::Contains("write `7d`"));
  CHECK(capture("(" + allot + " check - " + saas + " < " + saas + ")").exit_code == 2);  // `-` alone
}

TEST_CASE("allot check --explain prints a code's entry of docs/DIAGNOSTICS.md", "[cli]") {
  const std::string allot = std::string("'") + ALLOT_BINARY + "'";
  const Run explained = capture(allot + " check --explain half_life_exceeds_window");
  CHECK(explained.exit_code == 0);
  CHECK_THAT(explained.out, Catch::StartsWith("## half_life_exceeds_window\n\n**Warning.**"));
  CHECK_THAT(explained.out, Catch::Contains("**Fix.**"));
  CHECK_THAT(explained.out, !Catch::Contains("## invalid_tree_level"));
  const Run lint = capture(std::string("'") + ALLOT_LINT_BINARY + "' check --explain unknown_name");
  CHECK(lint.exit_code == 0);
  CHECK_THAT(lint.out, Catch::StartsWith("## unknown_name\n"));
  const Run misspelt = capture("(" + allot + " check --explain unknown_nmae 2>&1)");
  CHECK(misspelt.exit_code == 2);
  CHECK_THAT(misspelt.out, Catch::Contains("no diagnostic code `unknown_nmae`; did you mean `unknown_name`?"));
  CHECK(capture(allot + " check").exit_code == 2);  // neither paths nor --explain
}

TEST_CASE("allot fmt --diff prints what --write would change, and exits 1 when it would", "[cli]") {
  const std::string& allot = kAllot;
  const std::string& saas = kSaas;
  const Run formatted = capture(allot + " fmt --diff " + saas);
  CHECK(formatted.exit_code == 0);
  CHECK(formatted.out.empty());
  const Run changed = capture("(sed 's/^  window 7d$/  window    7d/' " + saas + " | " + allot + " fmt --diff -)");
  CHECK(changed.exit_code == 1);
  CHECK_THAT(changed.out, Catch::StartsWith("--- <stdin>\n+++ <stdin> (formatted)\n@@ "));
  CHECK_THAT(changed.out, Catch::Contains("\n-  window    7d\n+  window 7d\n"));
  CHECK(capture(allot + " fmt --diff --write " + saas).exit_code == 2);
}

TEST_CASE("a misspelt flag is named with the nearest flag of its command", "[cli]") {
  const std::string& allot = kAllot;
  const std::string& saas = kSaas;
  const Run misspelt = capture("(" + allot + " check --formt json " + saas + " 2>&1)");
  CHECK(misspelt.exit_code == 2);
  CHECK_THAT(misspelt.out, Catch::Contains("allot: unknown option `--formt`; did you mean `--format`?"));
  const Run test_flag = capture("(" + allot + " test --coverag " + saas + " 2>&1)");
  CHECK(test_flag.exit_code == 2);
  CHECK_THAT(test_flag.out, Catch::Contains("did you mean `--coverage`?"));
}

TEST_CASE("a unit weight for a GPU type the cluster lacks is a warning wherever a cluster is read", "[cli]") {
  const TempFolder folder("allot-unit-types");
  const std::string misspelt =
      folder.write("misspelt.allot", edited_policy("saas.allot", "    h100 = 1.0\n", "    h10O = 1.0\n"));
  const std::string allot = std::string("'") + ALLOT_BINARY + "'";
  const std::string policy = quoted(fs::path(misspelt));
  const std::string source = std::string(ALLOT_SOURCE_DIR);
  const Run shares = capture("(" + allot + " shares --policy " + policy + " --state '" + source +
                             "/examples/states/saas-wednesday.toml' 2>&1)");
  CHECK(shares.exit_code == 0);
  CHECK_THAT(shares.out, Catch::Contains("allot: warning: the unit weighs GPU type `h10O`, which the cluster does not "
                                         "have; did you mean `h100`? `h100` GPUs now count 1.0 per GPU-hour"));
  const Run replay = capture("(" + allot + " replay --now 2026-12-01 --policy " + policy + " --cluster '" + source +
                             "/examples/clusters/saas-8gpu.toml' --scenario normal --days 1 2>&1)");
  CHECK(replay.exit_code == 0);
  CHECK_THAT(replay.out, Catch::Contains("allot: warning: misspelt: the unit weighs GPU type `h10O`"));
}
