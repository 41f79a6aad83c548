// Security probes (issue 28, items 3 and 4), run on the real `allot` binary:
// an import or a folder walk is judged by the file it reaches, never by the
// name it carries, and no diagnostic shows a line of a file that is not a
// policy; nothing the input says (job ids, node names, file names, policy
// strings, command-line values) reaches standard output or error with a raw
// control byte or bidi override, in text, JSON or IR (docs/SECURITY.md).
#include <fcntl.h>
#include <grp.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <functional>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "runtime/temp_folder.h"

namespace fs = std::filesystem;

namespace {

// What a probe must never print: the first line of a file that is not a policy.
constexpr const char* kSecret = "SECRET_TOKEN=hunter2";
constexpr uid_t kNobody = 65534;

struct Outcome {
  int exit_code = -1;
  std::string out;  // standard output
  std::string err;  // standard error
  std::string both() const { return out + err; }
};

std::string read_all(const fs::path& path) {
  std::ifstream stream(path, std::ios::binary);
  std::ostringstream contents;
  contents << stream.rdbuf();
  return contents.str();
}

// The child's side of run(): standard streams, identity, then `allot`.
[[noreturn]] void exec_allot(const std::string& binary, const std::vector<std::string>& arguments, int out, int err,
                             bool as_nobody) {
  const int nothing = ::open("/dev/null", O_RDONLY);
  if (nothing < 0 || ::dup2(nothing, 0) < 0 || ::dup2(out, 1) < 0 || ::dup2(err, 2) < 0) ::_exit(125);
  if (as_nobody && (::setgroups(0, nullptr) != 0 || ::setgid(kNobody) != 0 || ::setuid(kNobody) != 0)) ::_exit(126);
  std::vector<char*> argv;
  argv.push_back(const_cast<char*>(binary.c_str()));
  for (const std::string& argument : arguments) argv.push_back(const_cast<char*>(argument.c_str()));
  argv.push_back(nullptr);
  ::execv(binary.c_str(), argv.data());
  ::_exit(127);
}

// Runs `allot ARGUMENTS` without a shell (every byte of an argument as it is);
// with `as_nobody` (only when root), as user and group nobody, from a copy of
// the binary in `folder`: the build folder may lie where nobody cannot reach
// (`land` and CI clone into a 0700 temporary folder).
Outcome run(const TempFolder& folder, const std::vector<std::string>& arguments, bool as_nobody = false) {
  std::string binary = ALLOT_BINARY;
  if (as_nobody) {
    binary = folder.file(".allot");
    fs::copy_file(ALLOT_BINARY, binary, fs::copy_options::overwrite_existing);
    fs::permissions(binary, fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec |
                                fs::perms::others_read | fs::perms::others_exec);
  }
  const std::string out_path = folder.file(".stdout"), err_path = folder.file(".stderr");
  const int out = ::open(out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0666);
  const int err = ::open(err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0666);
  REQUIRE((out >= 0 && err >= 0));
  const pid_t child = ::fork();
  REQUIRE(child >= 0);
  if (child == 0) exec_allot(binary, arguments, out, err, as_nobody);
  ::close(out);
  ::close(err);
  int status = 0;
  REQUIRE(::waitpid(child, &status, 0) == child);
  Outcome outcome{WIFEXITED(status) ? WEXITSTATUS(status) : -1, read_all(out_path), read_all(err_path)};
  fs::remove(out_path);
  fs::remove(err_path);
  return outcome;
}

// The first byte sequence in `text` a terminal would act on or reorder text
// by: C0 but tab and newline, DEL, C1 (UTF-8), bidi controls. Empty if none.
std::string first_raw_control(const std::string& text) {
  for (std::size_t i = 0; i < text.size(); ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    const auto next = i + 1 < text.size() ? static_cast<unsigned char>(text[i + 1]) : 0;
    const auto third = i + 2 < text.size() ? static_cast<unsigned char>(text[i + 2]) : 0;
    const bool bidi = c == 0xE2 && ((next == 0x80 && third >= 0xAA && third <= 0xAE) ||
                                    (next == 0x81 && third >= 0xA6 && third <= 0xA9));
    if ((c < 0x20 && c != '\n' && c != '\t') || c == 0x7F || (c == 0xC2 && next >= 0x80 && next <= 0x9F) || bidi) {
      return "byte " + std::to_string(c) + " at " + std::to_string(i) + " in: " + text;
    }
  }
  return "";
}

void put(const fs::path& path, const std::string& text) {
  fs::create_directories(path.parent_path());
  std::ofstream(path, std::ios::binary) << text;
}

// A valid policy; `rank_line` is its rank, `owner` its program's owner.
std::string policy(const std::string& rank_line = "rank = job.wait / 1h",
                   const std::string& owner = "ada@example.com") {
  return "policy lab {\n  unit gpu_hours { h100 = 1.0 }\n  window 7d\n  tree {\n    research 100% {\n      owner \"" +
         owner +
         "\"  review 2027-01-31\n      hypothesis \"a new architecture beats the baseline by Q1\"\n    }\n  }\n"
         "  class debug { max_gpus 1  max_runtime 15m  protect 15m  resumable }\n  " +
         rank_line + "\n}\n";
}

const std::string kImporting = "import \"lib.allot\"\n" + policy("rank = helper(job.wait / 1h)");
const std::string kLibrary = "fn helper(x: number): number = x\n";

// One probe: a folder laid out by `setup`, which returns the arguments to run.
struct Probe {
  const char* name;
  std::function<std::vector<std::string>(const fs::path&)> setup;
  int exit_code;
  const char* says;  // a phrase the output must have
};

std::vector<std::string> check_policy(const fs::path& folder, const std::string& policy_text) {
  put(folder / "site/policy.allot", policy_text);
  return {"check", "--now", "2026-12-01", (folder / "site/policy.allot").string()};
}

std::vector<std::string> check_folder(const fs::path& folder) {
  put(folder / "site/good.allot", policy());
  return {"check", "--now", "2026-12-01", (folder / "site").string()};
}

// The import and folder-walk probes: where a name leads decides, not the name.
const std::vector<Probe> kReachProbes = {
    {"an import of a symlink to .env beside the policy",
     [](const fs::path& f) {
       put(f / "site/.env", std::string(kSecret) + "\n");
       fs::create_symlink(".env", f / "site/lib.allot");
       return check_policy(f, kImporting);
     },
     1, "which is not an `.allot` file"},
    {"an import of a symlink to a file whose real name lacks .allot",
     [](const fs::path& f) {
       put(f / "site/notes.txt", std::string(kSecret) + "\n");
       fs::create_symlink(f / "site/notes.txt", f / "site/lib.allot");
       return check_policy(f, kImporting);
     },
     1, "import_refused"},
    {"an import of a symlink to a folder",
     [](const fs::path& f) {
       fs::create_directories(f / "site/folder");
       fs::create_symlink("folder", f / "site/lib.allot");
       return check_policy(f, kImporting);
     },
     1, "is a folder"},
    {"an import of lib.allot -> ../outside/x.allot",
     [](const fs::path& f) {
       put(f / "outside/x.allot", std::string("// ") + kSecret + "\n" + kLibrary);
       fs::create_directories(f / "site");
       fs::create_symlink("../outside/x.allot", f / "site/lib.allot");
       return check_policy(f, kImporting);
     },
     1, "outside the policy's folder and the import path"},
    {"an import of a symlink loop",
     [](const fs::path& f) {
       fs::create_directories(f / "site");
       fs::create_symlink("loop.allot", f / "site/lib.allot");
       fs::create_symlink("lib.allot", f / "site/loop.allot");
       return check_policy(f, kImporting);
     },
     1, "cannot be resolved"},
    {"an import of a symlink to .env with --allow-outside-imports",
     [](const fs::path& f) {
       put(f / "elsewhere/.env", std::string(kSecret) + "\n");
       fs::create_directories(f / "site");
       fs::create_symlink(f / "elsewhere/.env", f / "site/lib.allot");
       auto arguments = check_policy(f, kImporting);
       arguments.insert(arguments.begin() + 1, "--allow-outside-imports");
       return arguments;
     },
     1, "which is not an `.allot` file"},
    {"an import of a symlink to a library inside the folder still works",
     [](const fs::path& f) {
       put(f / "site/libs/real.allot", kLibrary);
       fs::create_symlink("libs/real.allot", f / "site/lib.allot");
       return check_policy(f, kImporting);
     },
     0, "checked 1 file: 0 errors"},
    {"a folder walk meets a *.allot symlink out of the folder",
     [](const fs::path& f) {
       put(f / "outside/.env", std::string(kSecret) + "\n");
       fs::create_directories(f / "site");
       fs::create_symlink("../outside/.env", f / "site/p.allot");
       return check_folder(f);
     },
     2, "refusing the symlink"},
    {"a folder walk meets a *.allot symlink to a secret inside the folder",
     [](const fs::path& f) {
       put(f / "site/secret.txt", std::string(kSecret) + "\n");
       fs::create_symlink("secret.txt", f / "site/p.allot");
       return check_folder(f);
     },
     2, "which is not an `.allot` file"},
    {"a folder walk meets a *.allot symlink to a policy outside the folder",
     [](const fs::path& f) {
       put(f / "outside/x.allot", policy());
       fs::create_directories(f / "site/sub");
       fs::create_symlink("../../outside/x.allot", f / "site/sub/x.allot");
       return check_folder(f);
     },
     2, "outside"},
    {"a folder walk meets a *.allot symlink loop",
     [](const fs::path& f) {
       fs::create_directories(f / "site");
       fs::create_symlink("loop.allot", f / "site/loop.allot");
       return check_folder(f);
     },
     2, "cannot be resolved"},
    {"a folder walk does not follow a symlinked folder back up",
     [](const fs::path& f) {
       fs::create_directories(f / "site");
       fs::create_directory_symlink("..", f / "site/up");
       return check_folder(f);
     },
     0, "checked 1 file: 0 errors"},
    {"a folder walk checks a symlink to a policy inside the folder once, as its target",
     [](const fs::path& f) {
       fs::create_directories(f / "site");
       fs::create_symlink("good.allot", f / "site/alias.allot");
       return check_folder(f);
     },
     0, "checked 1 file: 0 errors"},
    {"fmt --check on a folder with a *.allot symlink out of it",
     [](const fs::path& f) {
       put(f / "outside/.env", std::string(kSecret) + "\n");
       put(f / "site/good.allot", policy());
       fs::create_symlink("../outside/.env", f / "site/p.allot");
       return std::vector<std::string>{"fmt", "--check", (f / "site").string()};
     },
     2, "refusing the symlink"},
};

// A state snapshot and its inventory whose job id and node name carry escapes
// (TOML's \u escapes: the ids themselves hold the raw bytes).
std::string hostile_state(const fs::path& f) {
  std::string cluster = read_all(fs::path(ALLOT_SOURCE_DIR) / "examples/clusters/saas-8gpu.toml");
  std::string state = read_all(fs::path(ALLOT_SOURCE_DIR) / "examples/states/saas-wednesday.toml");
  const auto replace_all = [](std::string& text, const std::string& from, const std::string& to) {
    for (std::size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size())) {
      text.replace(at, from.size(), to);
    }
  };
  replace_all(cluster, "gpu-01", "gpu-01\\u001B]0;owned\\u0007");
  replace_all(state, "gpu-01", "gpu-01\\u001B]0;owned\\u0007");
  replace_all(state, "\"product-train-3\"", "\"product-train-\\u001B[31m3\\u202E\"");
  put(f / "clusters/saas-8gpu.toml", cluster);
  put(f / "states/hostile.toml", state);
  return (f / "states/hostile.toml").string();
}

std::vector<std::string> explain(const fs::path& f, const std::string& job, bool json = false) {
  std::vector<std::string> arguments = {
      "explain", "--policy",       (fs::path(ALLOT_SOURCE_DIR) / "policies/saas.allot").string(),
      "--state", hostile_state(f), job};
  if (json) arguments.push_back("--json");
  return arguments;
}

// The printing probes: control characters from every kind of input.
const std::vector<Probe> kEscapeProbes = {
    {"explain a job whose id and node names carry escapes",
     [](const fs::path& f) { return explain(f, "product-train-\x1b[31m3\xe2\x80\xae"); }, 0,
     "Job `product-train-\u241b[31m3\ufffd`"},
    {"explain's did-you-mean, with an escape on the command line",
     [](const fs::path& f) { return explain(f, "product-train-\x1b[32m3\xe2\x80\xae"); }, 1,
     "did you mean `product-train-\u241b[31m3\ufffd`?"},
    {"explain --json of a job with escapes",
     [](const fs::path& f) { return explain(f, "product-train-\x1b[31m3\xe2\x80\xae", true); }, 0, "\\u001b"},
    {"fmt --check names a file whose name carries an escape",
     [](const fs::path& f) {
       put(f / "bad\x1b[2Jname.allot", policy("rank    =    job.wait / 1h"));
       return std::vector<std::string>{"fmt", "--check", (f / "bad\x1b[2Jname.allot").string()};
     },
     1, "would reformat"},
    {"check names a file whose name carries an escape and invalid UTF-8",
     [](const fs::path& f) {
       put(f / "x\x1b]0;t\x07\xff.allot", "policy broken {\n  bogus \x1b[8m\n}\n");
       return std::vector<std::string>{"check", (f / "x\x1b]0;t\x07\xff.allot").string()};
     },
     1, "error[syntax_error]"},
    {"check --format json of a file whose name carries an escape and invalid UTF-8",
     [](const fs::path& f) {
       put(f / "x\x1b]0;t\x07\xff.allot", "policy broken {\n  bogus \x1b[8m\n}\n");
       return std::vector<std::string>{"check", "--format", "json", (f / "x\x1b]0;t\x07\xff.allot").string()};
     },
     1, "syntax_error"},
    {"compile --emit ir of a policy string with ESC and BEL",
     [](const fs::path& f) {
       put(f / "p.allot", policy("rank = job.wait / 1h", "ada\x1b[31m@example.com\x07\xe2\x80\xae"));
       return std::vector<std::string>{"compile", "--emit", "ir",         "--engine",
                                       "interp",  "--now",  "2026-12-01", (f / "p.allot").string()};
     },
     0, "owner \"ada\\1B[31m@example.com\\07\\E2\\80\\AE\""},
    {"a command-line value with an OSC sequence",
     [](const fs::path& f) {
       put(f / "p.allot", policy());
       return std::vector<std::string>{"check", "--now", "\x1b]0;owned\x07", (f / "p.allot").string()};
     },
     2, "--now expects a date"},
    {"a command-line value CLI11 refuses",
     [](const fs::path&) {
       return std::vector<std::string>{"check", "--format", "\x1b[31mred", "x.allot"};
     },
     2, "red"},
    {"shares of a hostile state",
     [](const fs::path& f) {
       return std::vector<std::string>{"shares", "--policy",
                                       (fs::path(ALLOT_SOURCE_DIR) / "policies/saas.allot").string(), "--state",
                                       hostile_state(f)};
     },
     0, "Account"},
};

void run_probe(const Probe& probe) {
  TempFolder folder("allot-probe");
  const fs::path root = folder.file("");
  const Outcome outcome = run(folder, probe.setup(root));
  INFO("stdout: " << outcome.out << "\nstderr: " << outcome.err);
  CHECK(outcome.exit_code == probe.exit_code);
  CHECK_THAT(outcome.both(), Catch::Contains(probe.says));
  CHECK(outcome.both().find("hunter2") == std::string::npos);
  CHECK(first_raw_control(outcome.both()).empty());
}

}  // namespace

TEST_CASE("imports and folder walks go by the file a name reaches, and never show a non-policy",
          "[cli][security][probe]") {
  for (const Probe& probe : kReachProbes) {
    DYNAMIC_SECTION(probe.name) { run_probe(probe); }
  }
}

TEST_CASE("no input reaches standard output or error with a raw control character", "[cli][security][probe]") {
  for (const Probe& probe : kEscapeProbes) {
    DYNAMIC_SECTION(probe.name) { run_probe(probe); }
  }
}

TEST_CASE("JSON output stays valid JSON when names carry escapes and invalid UTF-8", "[cli][security][probe]") {
  TempFolder folder("allot-probe");
  const fs::path root = folder.file("");
  const Outcome explained = run(folder, explain(root, "product-train-\x1b[31m3\xe2\x80\xae", true));
  REQUIRE(explained.exit_code == 0);
  const auto document = nlohmann::json::parse(explained.out);
  // The id itself, exact to a parser (the right-to-left override kept), and
  // written with \u escapes, so that no terminal acts on it and the guarded
  // standard output has nothing to replace.
  CHECK(document.at("job") == "product-train-\x1b[31m3\xe2\x80\xae");
  CHECK_THAT(explained.out, Catch::Contains("\"product-train-\\u001b[31m3\\u202e\""));

  put(root / "x\x1b\xff.allot", "policy broken {\n  bogus\n}\n");
  const Outcome checked = run(folder, {"check", "--format", "json", (root / "x\x1b\xff.allot").string()});
  CHECK(checked.exit_code == 1);
  CHECK_NOTHROW(nlohmann::json::parse(checked.out));
}

// A folder walk that cannot read a subfolder fails with the reason; as root
// (CI) it must read as `nobody` would, since root reads any folder.
TEST_CASE("a folder walk that cannot read a subfolder fails with the reason", "[cli][security][probe]") {
  TempFolder folder("allot-probe");
  const fs::path root = folder.file("");
  put(root / "site/good.allot", policy());
  put(root / "site/locked/hidden.allot", "policy broken {\n  bogus\n}\n");
  fs::permissions(root / "site/locked", fs::perms::none);
  const bool as_nobody = ::geteuid() == 0;
  if (!as_nobody && ::access((root / "site/locked").c_str(), R_OK) == 0) {
    fs::permissions(root / "site/locked", fs::perms::owner_all);
    WARN("skipped: the folder stays readable after chmod 000 and this is not root");
    return;
  }
  for (const std::vector<std::string>& arguments :
       {std::vector<std::string>{"check", "--now", "2026-12-01", (root / "site").string()},
        std::vector<std::string>{"fmt", "--check", (root / "site").string()}}) {
    const Outcome outcome = run(folder, arguments, as_nobody);
    INFO(arguments[0] << " stdout: " << outcome.out << "\nstderr: " << outcome.err);
    CHECK(outcome.exit_code == 2);
    CHECK_THAT(outcome.err,
               Catch::Contains("cannot read folder `" + (root / "site/locked").string() + "`: Permission denied"));
  }
  fs::permissions(root / "site/locked", fs::perms::owner_all);
}
