// Issue 28's second probe, the readers: every reader is bounded by what it
// builds, not only by bytes (docs/SECURITY.md "Every reader is bounded by what
// it builds"). Each row is an input within the old byte limits that asked for
// gigabytes or hours (a million nodes named by a 5,000-character prefix, a
// 100,000-deep account chain, ten years of a tenfold load) and is now refused
// at once, with the limit it reached.
#include <sys/wait.h>

#include <catch2/catch.hpp>
#include <cstdio>
#include <fstream>
#include <string>

#include "cli/run_allot.h"
#include "runtime/temp_folder.h"

using allot_cli_test::run_allot;
using allot_cli_test::source;

namespace {

void write_text(const std::string& path, const std::string& text) { std::ofstream(path, std::ios::binary) << text; }

// A `sacctmgr dump` whose accounts form one chain `levels` deep.
std::string chain_dump(int levels) {
  std::string dump = "Cluster - 'c'\nParent - 'root'\nAccount - 'a1'\n";
  for (int level = 2; level <= levels; ++level) {
    dump += "Parent - 'a" + std::to_string(level - 1) + "'\nAccount - 'a" + std::to_string(level) + "'\n";
  }
  return dump;
}

// A dump with `users` users under one account.
std::string wide_dump(int users) {
  std::string dump = "Cluster - 'c'\nParent - 'root'\nAccount - 'lab'\nParent - 'lab'\n";
  for (int user = 0; user < users; ++user) dump += "User - 'user" + std::to_string(user) + "'\n";
  return dump;
}

struct Refusal {
  const char* what;
  std::string arguments;  // after `allot`
  int exit_code;
  std::string message;
};

}  // namespace

TEST_CASE("every reader refuses what would build too much, naming the limit", "[cli][probe]") {
  TempFolder folder("allot-probe-readers");
  const std::string long_prefix = folder.file("long-prefix.toml");
  write_text(long_prefix, "[cluster]\nname = \"c\"\n[[group]]\nprefix = \"" + std::string(5000, 'n') +
                              "\"\ncount = 1000000\ngpu_type = \"h100\"\ngpus = 8\nblock = \"r\"\n");
  const std::string many_nodes = folder.file("many-nodes.toml");
  write_text(many_nodes,
             "[cluster]\nname = \"c\"\n[[group]]\nprefix = \"n\"\ncount = 1000000\ngpu_type = \"h100\"\ngpus = "
             "8\nblock = \"r\"\n");
  const std::string two_groups = folder.file("two-groups.toml");
  write_text(
      two_groups,
      "[cluster]\nname = \"c\"\n[[group]]\nprefix = \"a\"\ncount = 60000\ngpu_type = \"h100\"\ngpus = 8\n"
      "cpus = 96\nmemory_gib = 1024\nblock = \"r\"\n[[group]]\nprefix = \"b\"\ncount = 60000\ngpu_type = \"h100\"\n"
      "gpus = 8\ncpus = 96\nmemory_gib = 1024\nblock = \"r\"\n");
  const std::string long_id = folder.file("long-id.csv");
  write_text(long_id,
             "job_id,submit_s,duration_s,gpus,group,user,status\n" + std::string(300, 'j') + ",0,60,1,g,,completed\n");
  const std::string deep = folder.file("deep.dump");
  write_text(deep, chain_dump(65));
  const std::string deeper = folder.file("deeper.dump");
  write_text(deeper, chain_dump(100000));
  const std::string wide = folder.file("wide.dump");
  write_text(wide, wide_dump(60000));
  const std::string saas = source("policies/saas.allot");
  const Refusal refusals[] = {
      {"a million nodes named by a 5,000-character prefix",
       "replay --policy " + saas + " --cluster " + long_prefix + " --scenario normal", 1,
       "group[0].prefix: `prefix` is 5000 bytes long; at most 256"},
      {"a million nodes", "replay --policy " + saas + " --cluster " + many_nodes + " --scenario normal", 1,
       "`count` must be between 1 and 100000, not 1000000"},
      {"two groups that together pass the node limit",
       "replay --policy " + saas + " --cluster " + two_groups + " --scenario normal", 1,
       "the group would make the inventory more than 100000 nodes"},
      {"a trace field longer than a name",
       "replay --policy " + saas + " --cluster " + source("examples/clusters/saas-8gpu.toml") + " --trace " + long_id +
           " --map " + source("examples/workloads/philly_map.toml"),
       1, "long-id.csv:2: job_id: the field is 300 bytes long; at most 256"},
      {"an account chain one level deeper than a tree may be", "import slurm " + deep, 1,
       "deep.dump:131: error: account `a65` would be level 65 of the tree; an Allot tree has at most 64"},
      {"a 100,000-deep account chain (it overflowed the stack)", "import slurm " + deeper, 1,
       "deeper.dump:131: error: account `a65` would be level 65"},
      {"a site whose policy no reader would take", "import slurm " + wide, 1,
       "more than the 1048576 a policy file may have"},
      {"ten years of ten times a 1,000-GPU cluster's capacity",
       "replay --now 2026-12-01 --policy " + source("policies/large_org.allot") + " --cluster " +
           source("examples/clusters/research-1000gpu.toml") + " --scenario normal --days 3660 --load 10",
       1, "more than the 2000000 a replay takes"},
      {"ten years of ten times an 8-GPU cluster's capacity",
       "replay --now 2026-12-01 --policy " + saas + " --cluster " + source("examples/clusters/saas-8gpu.toml") +
           " --scenario normal --days 3660 --load 10",
       1, "more than the 2000000 a replay takes"},
      {"a year of ten times an 8-GPU cluster's capacity (its queue grows all year)",
       "replay --now 2026-12-01 --policy " + saas + " --cluster " + source("examples/clusters/saas-8gpu.toml") +
           " --scenario normal --days 365 --load 10",
       1, "would still wait at the end"},
  };
  for (const Refusal& refusal : refusals) {
    INFO(refusal.what);
    const auto run = run_allot(refusal.arguments, true);
    CHECK(run.exit_code == refusal.exit_code);
    CHECK_THAT(run.out, Catch::Contains(refusal.message));
  }
}

TEST_CASE("an oversized policy is an input that cannot be read: exit 2 for every command", "[cli][probe]") {
  TempFolder folder("allot-probe-readers");
  const std::string big = folder.file("big.allot");
  std::string text;
  while (text.size() <= (std::size_t{1} << 20)) text += "// a comment line that pads the policy\n";
  write_text(big, text);
  for (const std::string& arguments :
       {"check " + big, "compile " + big, "fmt " + big, "fmt --check " + big,
        "cycle --policy " + big + " --state " + source("examples/states/saas-wednesday.toml")}) {
    INFO(arguments);
    const auto run = run_allot(arguments, true);
    CHECK(run.exit_code == 2);
    CHECK_THAT(run.out, Catch::Contains("more than the 1048576"));
  }
}

TEST_CASE("the deepest tree a policy may have still imports", "[cli][probe]") {
  TempFolder folder("allot-probe-readers");
  const std::string dump = folder.file("deep.dump");
  write_text(dump, chain_dump(64));
  const std::string policy = folder.file("deep.allot");
  const auto run = run_allot(
      "import slurm " + dump + " --owner o@example.com --review 2027-03-31 --hypothesis h" + " --output " + policy,
      true);
  REQUIRE(run.exit_code == 0);
  const auto checked = run_allot("check --now 2026-12-01 " + policy, true);
  CHECK(checked.exit_code == 0);
  INFO(checked.out);
}
