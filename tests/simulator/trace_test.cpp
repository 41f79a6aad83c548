// Trace CSVs and mapping files: what a user gets when a row or a rule is
// wrong (file, line, field), and how rows become jobs.
#include <fmt/format.h>
#include <catch2/catch.hpp>

#include "replay_support.h"

namespace replay_test {
namespace {

const char* kHeader = "job_id,submit_s,duration_s,gpus,group,user,status\n";

std::string trace_error(const std::string& rows) {
  auto parsed = parse_trace(std::string(kHeader) + rows, "jobs.csv");
  REQUIRE_FALSE(parsed);
  return parsed.error().to_string();
}

std::string map_error(const std::string& toml) {
  auto parsed = parse_trace_map(toml, "map.toml");
  REQUIRE_FALSE(parsed);
  return parsed.error().to_string();
}

const char* kMap = R"(start = 2026-11-30T00:00:00Z
[[group]]
name = "g1"
account = "product"
label = "high"
[[group]]
name = "g2"
account = ["exploration/ana", "exploration/ben"]
[[class]]
name = "debug"
max_gpus = 1
max_duration = "15m"
[[class]]
name = "train"
protect = "2h"
)";

TraceMap saas_map() {
  auto map = parse_trace_map(kMap, "map.toml");
  REQUIRE(map);
  return *map;
}

}  // namespace

TEST_CASE("trace rows are read by the header's column names", "[simulator][trace]") {
  auto rows =
      parse_trace("gpus,job_id,submit_s,duration_s,group,user,status\r\n4,j1,10,600,g1,,completed\r\n", "t.csv");
  REQUIRE(rows);
  REQUIRE(rows->size() == 1);
  CHECK((*rows)[0].job_id == "j1");
  CHECK((*rows)[0].gpus == 4);
  CHECK((*rows)[0].submit == 10);
  CHECK((*rows)[0].duration == 600);
  CHECK((*rows)[0].line == 2);
  // A spreadsheet's byte-order mark is not part of the first column's name.
  auto marked =
      parse_trace("\xEF\xBB\xBFjob_id,submit_s,duration_s,gpus,group,user,status\nj1,0,60,1,g,,completed\n", "t.csv");
  REQUIRE(marked);
  CHECK((*marked)[0].job_id == "j1");
}

TEST_CASE("a trace header may have more columns than the named ones, anywhere", "[simulator][trace]") {
  // Extra columns first, in the middle and last: rows are read by the header's
  // positions and must have as many fields as it has.
  auto rows = parse_trace(
      "site,cluster,job_id,submit_s,vc,duration_s,gpus,group,user,status,note\n"
      "a,b,j1,10,x,600,4,g1,,completed,\"late, but fine\"\n",
      "t.csv");
  REQUIRE(rows);
  REQUIRE(rows->size() == 1);
  CHECK((*rows)[0].job_id == "j1");
  CHECK((*rows)[0].duration == 600);
  CHECK((*rows)[0].gpus == 4);
  auto short_row =
      parse_trace("site,job_id,submit_s,duration_s,gpus,group,user,status\nj1,10,600,4,g1,,completed\n", "t.csv");
  REQUIRE_FALSE(short_row);
  CHECK(short_row.error().to_string() == "t.csv:2: expected 8 fields as in the header, found 7");
  auto twice = parse_trace("job_id,submit_s,duration_s,gpus,group,user,status,gpus\n", "t.csv");
  REQUIRE_FALSE(twice);
  CHECK(twice.error().to_string() == "t.csv:1: gpus: the header names `gpus` twice");
}

TEST_CASE("trace errors name the file, the line and the column", "[simulator][trace]") {
  CHECK(trace_error("j1,0,60,two,g1,,completed\n") == "jobs.csv:2: gpus: expected a whole number, found `two`");
  CHECK(trace_error("j1,0,60,1,g1,,completed\nj2,-5,60,1,g1,,completed\n") ==
        "jobs.csv:3: submit_s: `-5` is out of range; expected 0 to 316224000");
  // A far-future row or an endless job is refused, not replayed until memory runs out.
  CHECK(trace_error("j1,2305843009213693952,60,1,g1,,completed\n") ==
        "jobs.csv:2: submit_s: `2305843009213693952` is out of range; expected 0 to 316224000");
  CHECK(trace_error("j1,0,9223372036854775807,1,g1,,completed\n") ==
        "jobs.csv:2: duration_s: `9223372036854775807` is out of range; expected 0 to 3162240000");
  CHECK(trace_error("j1,0,60,0,g1,,completed\n") == "jobs.csv:2: gpus: `0` is out of range; expected 1 to 1000000");
  CHECK(trace_error("j1,0,60,1,g1\n") == "jobs.csv:2: expected 7 fields as in the header, found 5");
  CHECK(trace_error("j1,0,60,1,g1,,completed\n\nj1,5,60,1,g1,,completed\n") ==
        "jobs.csv:4: job_id: job `j1` appears twice (first on line 2)");
  CHECK(trace_error("\"j1,0,60,1,g1,,completed\n") == "jobs.csv:2: a quoted field is not closed");
  // Names are bounded, so that no row can hold a megabyte of them.
  CHECK(trace_error(std::string(257, 'j') + ",0,60,1,g1,,completed\n") ==
        "jobs.csv:2: job_id: the field is 257 bytes long; at most 256");
  CHECK(trace_error("j1,0,60,1," + std::string(300, 'g') + ",,completed\n") ==
        "jobs.csv:2: group: the field is 300 bytes long; at most 256");

  auto missing = parse_trace("job_id,submit_s,duration_s,group,user,status\n", "jobs.csv");
  REQUIRE_FALSE(missing);
  CHECK(missing.error().to_string() ==
        "jobs.csv:1: gpus: the header has no `gpus` column; a trace has the columns "
        "job_id,submit_s,duration_s,gpus,group,user,status");
  CHECK_FALSE(read_trace("/nonexistent/trace.csv"));
}

TEST_CASE("mapping errors name the line and the field, with a suggestion", "[simulator][trace]") {
  CHECK(map_error("[[group]]\nname = \"g1\"\naccunt = \"product\"\n") ==
        "map.toml:3:10: group[1].accunt: unknown field `accunt`; did you mean `account`?");
  // A start the replay could not add a trace's offsets to.
  CHECK(map_error("start = 9223372036854775807\n[[class]]\nname = \"x\"\n") ==
        "map.toml:1:9: start: `start` in seconds must be between 0 (1970) and 253402300799 (9999), not "
        "9223372036854775807");
  CHECK(map_error("start = 0001-01-01\n[[class]]\nname = \"x\"\n") ==
        "map.toml:1:9: start: `start` must be a time from 1970 to 9999, not 0001-01-01T00:00:00Z");
  CHECK(map_error("[[class]]\nname = \"debug\"\nmax_duration = \"15 minutes\"\n") ==
        "map.toml:3:16: class[1].max_duration: `max_duration` must be a duration such as \"30m\", \"1h30m\" or "
        "\"7d\", at most 100 years, not \"15 minutes\"");
  CHECK(map_error("[[group]]\nname = \"g1\"\naccount = \"product\"\nlabel = \"urgent\"\n[[class]]\nname = \"x\"\n") ==
        "map.toml:4:9: group[1].label: unknown label `urgent`; expected `high`, `medium`, `low` or `none`");
  CHECK(map_error("[[group]]\nname = \"g1\"\naccount = \"product\"\n") ==
        "map.toml:1: class: the map has no [[class]] rules; add one per class, the last without conditions");
  CHECK(map_error("start = \"monday\"\n") ==
        "map.toml:1:9: start: `start` must be a date-time such as 2026-12-02T06:00:00Z, not a string");
  CHECK_THAT(map_error("[[group]\n"), Catch::StartsWith("map.toml:1: "));
}

TEST_CASE("a mapping is checked against each policy's tree and classes", "[simulator][trace]") {
  const auto saas = compile_file("policies/saas.allot");
  CHECK_FALSE(check_trace_map(saas_map(), saas->tables()));

  auto map = saas_map();
  map.accounts[1].accounts[0] = "exploration/anna";
  const auto account = check_trace_map(map, saas->tables());
  REQUIRE(account);
  CHECK(account->to_string() ==
        "map.toml:6: group[2].account: policy `saas` has no leaf account `exploration/anna`; did you mean "
        "`exploration/ana`?");

  map = saas_map();
  map.accounts[0].accounts[0] = "exploration";
  const auto inner = check_trace_map(map, saas->tables());
  REQUIRE(inner);
  CHECK_THAT(inner->to_string(), Catch::Contains("policy `saas` has no leaf account `exploration`"));

  map = saas_map();
  map.classes[1].job_class = "trian";
  const auto job_class = check_trace_map(map, saas->tables());
  REQUIRE(job_class);
  CHECK(job_class->to_string() ==
        "map.toml:13: class[2].name: policy `saas` has no class `trian`; did you mean `train`?");
}

TEST_CASE("trace rows become jobs: accounts, classes, whole nodes, left-out jobs", "[simulator][trace]") {
  const auto cluster = cluster_file("examples/clusters/research-1000gpu.toml");
  auto rows = parse_trace(std::string(kHeader) +
                              "small,0,600,1,g1,,completed\n"
                              "wide,60,7200,16,g1,,completed\n"
                              "odd,120,7200,12,g2,,failed\n"
                              "huge,180,7200,4096,g2,,completed\n"
                              "late,999999,60,1,g1,,completed\n",
                          "jobs.csv");
  REQUIRE(rows);
  auto workload = trace_workload(*rows, saas_map(), cluster, "jobs.csv", 1);
  REQUIRE(workload);
  REQUIRE(workload->jobs.size() == 3);
  const WorkloadJob& small = workload->jobs[0];
  CHECK(small.job_class == "debug");
  CHECK(small.account == "product");
  CHECK(small.label == 3);
  CHECK(small.submitted == kDefaultStart);
  CHECK(small.origin == "jobs.csv:2");
  const WorkloadJob& wide = workload->jobs[1];
  CHECK(wide.job_class == "train");
  CHECK(wide.nodes == 2);
  CHECK(wide.gpus_per_node == 8);
  CHECK(wide.requested_protect == 2 * kHour);
  const WorkloadJob& odd = workload->jobs[2];
  CHECK(odd.nodes == 2);  // 12 GPUs take two whole nodes
  CHECK((odd.account == "exploration/ana" || odd.account == "exploration/ben"));
  REQUIRE(workload->notes.size() == 2);
  CHECK(workload->notes[0] == "1 jobs need more GPUs than cluster `research` holds and were left out");
  CHECK(workload->notes[1] == "1 jobs submitted after the replay's end were left out");
}

TEST_CASE("a trace row the mapping cannot place is an error at its line", "[simulator][trace]") {
  const auto cluster = cluster_file("examples/clusters/saas-8gpu.toml");
  auto rows = parse_trace(std::string(kHeader) + "a,0,60,1,g1,,completed\nb,0,60,1,g9,,completed\n", "jobs.csv");
  REQUIRE(rows);
  auto unmapped = trace_workload(*rows, saas_map(), cluster, "jobs.csv", std::nullopt);
  REQUIRE_FALSE(unmapped);
  CHECK(unmapped.error().to_string() ==
        "jobs.csv:3: group: group `g9` is not mapped; add a [[group]] with name = \"g9\" or a [default] to "
        "map.toml");

  auto map = saas_map();
  map.classes.pop_back();  // only `debug` (1 GPU, 15 minutes) is left
  auto rows_long = parse_trace(std::string(kHeader) + "a,0,3600,1,g1,,completed\n", "jobs.csv");
  auto no_class = trace_workload(*rows_long, map, cluster, "jobs.csv", std::nullopt);
  REQUIRE_FALSE(no_class);
  CHECK_THAT(no_class.error().to_string(), Catch::StartsWith("jobs.csv:2: gpus: no [[class]] rule of map.toml"));
}

TEST_CASE("a job its class cannot take is named with its trace line", "[simulator][trace]") {
  const auto saas = compile_file("policies/saas.allot");
  auto map = saas_map();
  map.classes[0].max_gpus = 2;  // debug allows 1
  auto rows = parse_trace(std::string(kHeader) + "pair,0,60,2,g1,,completed\n", "jobs.csv");
  auto workload = trace_workload(*rows, map, cluster_file("examples/clusters/saas-8gpu.toml"), "jobs.csv", 1);
  REQUIRE(workload);
  auto resolved = resolve_jobs(*workload, saas->tables());
  REQUIRE_FALSE(resolved);
  CHECK(resolved.error() == "jobs.csv:2: job `pair`: asks for 2 GPUs; class `debug` allows at most 1 (policy `saas`)");
}

TEST_CASE("the example mappings fit the policies they are written for", "[simulator][trace]") {
  auto saas_map_file = load_trace_map(std::string(ALLOT_SOURCE_DIR) + "/examples/workloads/philly_map.toml");
  REQUIRE(saas_map_file);
  CHECK_FALSE(check_trace_map(*saas_map_file, compile_file("policies/saas.allot")->tables()));
  CHECK_FALSE(check_trace_map(*saas_map_file, compile_file("policies/baseline_labels.allot")->tables()));
  auto large = load_trace_map(std::string(ALLOT_SOURCE_DIR) + "/examples/workloads/philly_large_org_map.toml");
  REQUIRE(large);
  CHECK_FALSE(check_trace_map(*large, compile_file("policies/large_org.allot")->tables()));
  CHECK_FALSE(check_trace_map(*large, compile_file("policies/large_org_labels.allot")->tables()));
}

TEST_CASE("the label baseline of the large organisation has large_org's tree, classes and gates",
          "[simulator][trace]") {
  // The same budgets and contracts, so a replay of the two measures only the queue order.
  const auto budget = compile_file("policies/large_org.allot");
  const auto labels = compile_file("policies/large_org_labels.allot");
  const PolicyTables& a = budget->tables();
  const PolicyTables& b = labels->tables();
  REQUIRE(a.accounts.size() == b.accounts.size());
  for (std::size_t i = 0; i < a.accounts.size(); ++i) {
    CHECK(a.accounts[i].path == b.accounts[i].path);
    CHECK(a.accounts[i].share == b.accounts[i].share);
  }
  REQUIRE(a.classes.size() == b.classes.size());
  for (std::size_t i = 0; i < a.classes.size(); ++i) CHECK(a.classes[i].name == b.classes[i].name);
  REQUIRE(a.exceptions.size() == b.exceptions.size());
  REQUIRE(a.gates.size() == b.gates.size());
  for (std::size_t i = 0; i < a.gates.size(); ++i) {
    CHECK(a.gates[i].metric == b.gates[i].metric);
    CHECK(a.gates[i].subject == b.gates[i].subject);
    CHECK(a.gates[i].threshold == b.gates[i].threshold);
  }
  CHECK(a.window == b.window);
  CHECK_FALSE(labels->has_preempt());
}

namespace {

// Three nodes of 8 H100s: `a` and `b` in rack-1, `c` in rack-2.
std::string two_racks() {
  std::string text = "[cluster]\nname = \"lab\"\n";
  for (const auto& [name, block] : {std::pair{"a", "rack-1"}, {"b", "rack-1"}, {"c", "rack-2"}}) {
    text += fmt::format(
        "[[node]]\nname = \"{}\"\ngpu_type = \"h100\"\ngpus = 8\ncpus = 64\nmemory_gib = 512\nblock = \"{}\"\n", name,
        block);
  }
  return text;
}

std::string node_names(const runtime::Inventory& inventory) {
  std::string names;
  for (const runtime::Node& node : inventory.nodes) {
    names += (names.empty() ? "" : " ") + node.name + "@" + inventory.blocks[static_cast<std::size_t>(node.block)];
  }
  return names;
}

}  // namespace

TEST_CASE("a cluster scaled by F has round(nodes x F) nodes: the first ones, or copies in racks of their own",
          "[simulator][trace][sweep]") {
  const auto cluster = cluster_text(two_racks());
  struct Case {
    double factor;
    std::string nodes;
  };
  const Case cases[] = {
      {1.0, "a@rack-1 b@rack-1 c@rack-2"},
      {0.5, "a@rack-1 b@rack-1"},  // round(1.5) = 2
      {0.01, "a@rack-1"},          // at least one node
      {2.0, "a@rack-1 b@rack-1 c@rack-2 a+2@rack-1+2 b+2@rack-1+2 c+2@rack-2+2"},
      {1.4, "a@rack-1 b@rack-1 c@rack-2 a+2@rack-1+2"},
  };
  for (const Case& test : cases) {
    INFO(test.factor);
    const auto scaled = scale_cluster(cluster, test.factor);
    CHECK(node_names(scaled) == test.nodes);
    CHECK(scaled_node_count(cluster.nodes.size(), test.factor) == static_cast<long long>(scaled.nodes.size()));
    CHECK(scaled.schedulable_gpus() == 8 * static_cast<int>(scaled.nodes.size()));
  }
}

TEST_CASE("a trace's load at a scale is its offered GPU-hours over the scaled capacity", "[simulator][trace][sweep]") {
  const auto cluster = cluster_text(two_racks());
  // 24 GPU-hours a day on 24 GPUs: load 1/24 on the cluster as it is.
  auto rows = parse_trace(std::string(kHeader) +
                              "j1,0,3600,8,g1,,completed\n"
                              "j2,600,7200,8,g2,,completed\n"
                              "wide,1200,3600,24,g1,,completed\n",
                          "jobs.csv");
  REQUIRE(rows);
  auto full = trace_workload(*rows, saas_map(), cluster, "jobs.csv", 1);
  REQUIRE(full);
  CHECK(offered_load(*full, cluster) == Approx(48.0 / (24 * 24)));
  // On one node the 24-GPU job can never run: it is left out, the rest offers three times the load.
  const auto small = scale_cluster(cluster, 0.3);
  auto scaled = trace_workload(*rows, saas_map(), small, "jobs.csv", 1);
  REQUIRE(scaled);
  CHECK(scaled->jobs.size() == 2);
  CHECK(offered_load(*scaled, small) == Approx(24.0 / (8 * 24)));
  CHECK_THAT(scaled->notes.front(), Catch::Matchers::Contains("1 jobs need more GPUs"));
}

}  // namespace replay_test
