// Imports are confined (docs/LANGUAGE.md, "Files and imports"): a policy reads
// only .allot libraries beside it or in the import path, never a file outside
// them by `..`, a symlink or an absolute path, and never echoes a file that is
// not a policy. The other import codes have golden cases in tests/golden/check.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>

#include "allot/frontend.h"
#include "runtime/temp_folder.h"

namespace fs = std::filesystem;

namespace {

const char* kPolicy = R"(policy lab {
  unit gpu_hours { h100 = 1.0 }
  window 7d
  tree {
    research 100% {
      owner "ada@example.com"  review 2027-01-31
      hypothesis "a new architecture beats the baseline by Q1"
    }
  }
  class debug { max_gpus 1  max_runtime 15m  protect 15m  resumable }
  rank = helper(job.wait / 1h)
}
)";

void put(const std::string& path, const std::string& text) {
  fs::create_directories(fs::path(path).parent_path());
  std::ofstream(path, std::ios::binary) << text;
}

// The codes and messages `allot check` gives `policy`.
std::vector<std::string> check(const std::string& policy, const allot::CheckOptions& options = {}) {
  allot::CheckOptions dated = options;
  dated.today = allot::parse_date("2026-12-01");
  std::vector<std::string> found;
  for (const auto& d : allot::check_files({policy}, dated).diagnostics) found.push_back(d.code + ": " + d.message);
  return found;
}

}  // namespace

TEST_CASE("an import beside the policy or in the import path is read", "[compiler][imports]") {
  TempFolder folder("allot-imports");
  put(folder.file("site/lib/helpers.allot"), "fn helper(x: number): number = x + 1\n");
  put(folder.file("site/policy.allot"), std::string("import \"lib/helpers.allot\"\n") + kPolicy);
  CHECK(check(folder.file("site/policy.allot")).empty());

  // A folder of the import path (`--import-path`).
  put(folder.file("shared/team.allot"), "fn helper(x: number): number = x * 2\n");
  put(folder.file("site/other.allot"), std::string("import \"team.allot\"\n") + kPolicy);
  allot::CheckOptions options;
  options.import_path.push_back(folder.file("shared"));
  CHECK(check(folder.file("site/other.allot"), options).empty());
}

TEST_CASE("an import outside the policy's folder and the import path is refused", "[compiler][imports]") {
  TempFolder folder("allot-imports");
  put(folder.file("outside.allot"), "fn helper(x: number): number = x\n");
  put(folder.file("site/up.allot"), std::string("import \"../outside.allot\"\n") + kPolicy);
  const auto up = check(folder.file("site/up.allot"));
  REQUIRE_FALSE(up.empty());
  CHECK_THAT(up[0], Catch::StartsWith("import_refused: `../outside.allot` is `"));
  CHECK_THAT(up[0], Catch::EndsWith("outside.allot`, outside the policy's folder and the import path"));

  // A symlink beside the policy that points out of it is followed to where it leads.
  fs::create_symlink(folder.file("outside.allot"), folder.file("site/link.allot"));
  put(folder.file("site/linked.allot"), std::string("import \"link.allot\"\n") + kPolicy);
  const auto linked = check(folder.file("site/linked.allot"));
  REQUIRE_FALSE(linked.empty());
  CHECK_THAT(linked[0], Catch::StartsWith("import_refused: `link.allot` is `"));

  // A trusted policy may, with the flag.
  allot::CheckOptions trusted;
  trusted.allow_outside_imports = true;
  CHECK(check(folder.file("site/up.allot"), trusted).empty());
  CHECK(check(folder.file("site/linked.allot"), trusted).empty());
}

TEST_CASE("a file that is not a policy library is never read, so never echoed", "[compiler][imports]") {
  TempFolder folder("allot-imports");
  put(folder.file("secret.txt"), "root:$6$hash-that-must-not-be-printed:19000:0:99999:7:::\n");
  put(folder.file("policy.allot"), std::string("import \"secret.txt\"\n") + kPolicy);
  allot::CheckOptions trusted;
  trusted.allow_outside_imports = true;  // even for a trusted policy
  const auto result = allot::check_files({folder.file("policy.allot")}, trusted);
  REQUIRE_FALSE(result.diagnostics.empty());
  CHECK(result.diagnostics[0].code == "import_refused");
  const std::string text = allot::render_text(result.diagnostics, result.sources, {});
  CHECK(text.find("hash-that-must-not-be-printed") == std::string::npos);
  CHECK(result.sources.count(folder.file("secret.txt")) == 0);
}

TEST_CASE("a planted stdlib/ above the policy's folder is not picked up", "[compiler][imports]") {
  // Before confinement, /tmp/x/policy.allot importing stdlib/... searched every
  // folder up to / and found a planted /tmp/stdlib/.
  TempFolder folder("allot-imports");
  put(folder.file("stdlib/fairshare.allot"), "fn fair_tree(a: account): number = 0 - 1000\n");
  put(folder.file("x/policy.allot"),
      std::string("import \"stdlib/fairshare.allot\"\n") +
          std::string(kPolicy).replace(std::string(kPolicy).find("helper(job.wait / 1h)"), 21, "fair_tree(account)"));
  const auto result = allot::check_files({folder.file("x/policy.allot")}, {});
  for (const auto& [path, text] : result.sources) CHECK(path.find(folder.file("stdlib")) == std::string::npos);
}
