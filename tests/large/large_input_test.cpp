// The largest inputs each reader accepts, built at its limits in the shape
// that costs the most memory, read by the real `allot` under an address-space
// limit of 4 GB (`prlimit --as=4000000000`): each must stay within 2 GiB of
// resident memory (docs/SECURITY.md "Every reader is bounded by what it
// builds"). CTest label `large`: they write hundreds of megabytes and are not
// run under the sanitizers. The peaks measured are printed, for docs/SECURITY.md.
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <iterator>
#include <string>

#include "allot/files.h"
#include "runtime/temp_folder.h"

namespace {

constexpr long kAddressSpace = 4'000'000'000L;
constexpr long kMostResidentKiB = 2L << 20;  // 2 GiB

struct Peak {
  int exit_code = -1;
  long resident_kib = 0;
};

// Runs `sh -c "exec allot ARGUMENTS"` with RLIMIT_AS at 4 GB, output discarded;
// the exit code and the child's peak resident memory.
Peak run_limited(const std::string& arguments) {
  const std::string command = "exec '" + std::string(ALLOT_BINARY) + "' " + arguments + " >/dev/null 2>&1";
  const pid_t child = fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    const rlimit limit{kAddressSpace, kAddressSpace};
    setrlimit(RLIMIT_AS, &limit);
    execl("/bin/sh", "sh", "-c", command.c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  int status = 0;
  rusage usage{};
  REQUIRE(wait4(child, &status, 0, &usage) == child);
  return Peak{WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status), usage.ru_maxrss};
}

// Writes `unit(i)` for i = 0, 1, ... after `head` until the file holds at most `bytes`.
template <typename Unit>
std::size_t fill(const std::string& path, const std::string& head, std::size_t bytes, Unit unit) {
  std::ofstream out(path, std::ios::binary);
  out << head;
  std::size_t size = head.size(), count = 0;
  for (std::string next = unit(0); size + next.size() <= bytes; next = unit(++count)) {
    out << next;
    size += next.size();
  }
  return count;
}

std::string padded(std::size_t i, std::size_t width) {
  std::string text = std::to_string(i);
  return std::string(width > text.size() ? width - text.size() : 0, 'x') + text;
}

void report(const char* what, const Peak& peak) {
  std::cout << what << ": exit " << peak.exit_code << ", peak " << peak.resident_kib / 1024 << " MiB\n";
}

}  // namespace

// The costliest command on a state is a cycle: every job read, ranked, and
// written back as a decision in the cycle's JSON document.
TEST_CASE("a cycle over a state snapshot at the byte limit, all small jobs, stays within 2 GiB", "[large]") {
  TempFolder folder("allot-large");
  const std::string state = folder.file("state.toml");
  const std::string head = "now = 2026-12-02T09:00:00Z\ninventory = \"" + std::string(ALLOT_SOURCE_DIR) +
                           "/examples/clusters/saas-8gpu.toml\"\n";
  const std::size_t jobs = fill(state, head, allot::support::kMaxStateBytes, [](std::size_t i) {
    return "[[job]]\nid=\"" + std::to_string(i) +
           "\"\naccount=\"product\"\nclass=\"train\"\ngpus_per_node=1\nsubmitted=2026-12-02T08:00:00Z\n";
  });
  const Peak peak =
      run_limited("cycle --policy '" + std::string(ALLOT_SOURCE_DIR) + "/policies/saas.allot' --state " + state);
  report(("snapshot of " + std::to_string(jobs) + " jobs").c_str(), peak);
  CHECK(peak.exit_code == 0);
  CHECK(peak.resident_kib < kMostResidentKiB);
}

// Replayed whole: ids as long as keeps the rows just under the 2,000,000 jobs
// a replay may have (each id is kept per job several times, so memory grows
// with id length times rows), arriving two a second on 1,000 GPUs so the
// queue stays short and nothing refuses the replay before it runs.
TEST_CASE("a replay of a trace at the byte limit stays within 2 GiB", "[large]") {
  TempFolder folder("allot-large");
  const std::string trace = folder.file("trace.csv");
  const std::string head = "job_id,submit_s,duration_s,gpus,group,user,status\n";
  const std::size_t rows = fill(trace, head, allot::support::kMaxTraceBytes, [](std::size_t i) {
    return padded(i, 38) + "," + std::to_string(i / 2) + ",60,1,ee9e8c,,completed\n";
  });
  const std::string root = ALLOT_SOURCE_DIR;
  const Peak peak = run_limited("replay --now 2026-12-01 --policy '" + root + "/policies/saas.allot' --cluster '" +
                                root + "/examples/clusters/research-1000gpu.toml' --trace " + trace + " --map '" +
                                root + "/examples/workloads/philly_map.toml' --days 12");
  report(("replay of a trace of " + std::to_string(rows) + " rows").c_str(), peak);
  CHECK(peak.exit_code == 0);
  CHECK(peak.resident_kib < kMostResidentKiB);
}

TEST_CASE("an inventory at the byte limit stays within 2 GiB", "[large]") {
  TempFolder folder("allot-large");
  const std::string cluster = folder.file("cluster.toml");
  const std::size_t nodes =
      fill(cluster, "[cluster]\nname = \"big\"\n", allot::support::kMaxInventoryBytes, [](std::size_t i) {
        return "[[node]]\nname=\"" + padded(i, 200) +
               "\"\ngpu_type=\"h100\"\ngpus=8\ncpus=96\nmemory_gib=1024\nblock=\"r\"\n";
      });
  const Peak peak = run_limited("replay --now 2026-12-01 --policy '" + std::string(ALLOT_SOURCE_DIR) +
                                "/policies/saas.allot' --cluster " + cluster + " --scenario normal --days 1");
  report(("inventory of " + std::to_string(nodes) + " node tables").c_str(), peak);
  CHECK(peak.exit_code == 1);  // more nodes than an inventory may have, found once it is read
  CHECK(peak.resident_kib < kMostResidentKiB);
}

TEST_CASE("a sacctmgr dump at the byte limit stays within 2 GiB", "[large]") {
  TempFolder folder("allot-large");
  const std::string dump = folder.file("site.dump");
  const std::size_t users =
      fill(dump, "Cluster - 'c'\nParent - 'root'\nAccount - 'lab'\nParent - 'lab'\n", allot::support::kMaxDumpBytes,
           [](std::size_t i) { return "User - '" + padded(i, 30) + "'\n"; });
  const Peak peak = run_limited("import slurm " + dump);
  report(("dump of " + std::to_string(users) + " users").c_str(), peak);
  CHECK(peak.exit_code == 1);  // its policy would be larger than a policy may be
  CHECK(peak.resident_kib < kMostResidentKiB);
}

// Every user's name becomes the same Allot identifier (`___`), so each is
// renamed `____2`, `____3`, ...: each name found in one step, not by trying
// every suffix taken before it (quadratic in the users), and every name unique.
TEST_CASE("a dump whose users all become one identifier imports in one pass", "[large]") {
  TempFolder folder("allot-large");
  const std::string dump = folder.file("site.dump");
  std::ofstream out(dump, std::ios::binary);
  out << "Cluster - 'c'\nParent - 'root'\nAccount - 'lab'\nParent - 'lab'\n";
  constexpr int kUsers = 20'000;
  for (int i = 0; i < kUsers; ++i) {
    const int code = 0x4E00 + i;  // CJK ideographs: three bytes, none a letter of an identifier
    out << "User - '" << static_cast<char>(0xE0 | (code >> 12)) << static_cast<char>(0x80 | ((code >> 6) & 0x3F))
        << static_cast<char>(0x80 | (code & 0x3F)) << "'\n";
  }
  out.close();
  const std::string policy = folder.file("site.allot");
  const Peak peak = run_limited("import slurm " + dump + " --output " + policy);
  REQUIRE(peak.exit_code == 0);
  std::ifstream in(policy);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  CHECK(text.find("user ___ ") != std::string::npos);
  CHECK(text.find("user ____2 ") != std::string::npos);
  CHECK(text.find("user ____" + std::to_string(kUsers) + " ") != std::string::npos);
  CHECK(text.find("user ____" + std::to_string(kUsers + 1) + " ") == std::string::npos);
}
