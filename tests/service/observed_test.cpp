// The read model of a driver whose scheduler owns the jobs (`allot slurm
// --serve`): passes published into an ObservedCluster, read through the same
// routes and dashboard as `allot serve` (mount_read_api) on a real listener.
// The passes are real cycles of the saas policy on the saas cluster.
#include <catch2/catch.hpp>

#include <chrono>
#include <fstream>
#include <memory>
#include <string>
#include <tuple>

#include <httplib.h>
#include <nlohmann/json.hpp>

#include "allot/compile.h"
#include "allot/dates.h"
#include "allot/hot_swap.h"
#include "allot/http_server.h"
#include "allot/inventory.h"
#include "allot/service.h"
#include "runtime/temp_folder.h"

namespace allot::service {
namespace {

using nlohmann::json;
using namespace std::chrono_literals;

const Seconds kStart = *support::parse_timestamp("2026-12-02T09:00:00Z");

std::string saas_source() {
  std::ifstream file(ALLOT_SOURCE_DIR "/policies/saas.allot");
  return std::string(std::istreambuf_iterator<char>(file), {});
}

// The saas policy, or its text with `from` replaced by `to`, compiled as a file of `folder`.
std::shared_ptr<const CompiledPolicy> compiled(const TempFolder& folder, const std::string& from = "",
                                               const std::string& to = "") {
  std::string text = saas_source();
  if (!from.empty()) {
    const auto at = text.find(from);
    REQUIRE(at != std::string::npos);
    text.replace(at, from.size(), to);
  }
  CompileOptions options;
  options.engine = Engine::interpreter;
  options.check.today = parse_date("2026-12-01");
  runtime::SwapCandidate candidate = runtime::compile_candidate_source(folder.file("p/saas.allot"), text, options);
  REQUIRE(candidate.policy);
  return candidate.policy;
}

runtime::JobRequest request(const std::string& id, const std::string& account, int gpus, Seconds submitted) {
  runtime::JobRequest job;
  job.id = id;
  job.account = account;
  job.job_class = "train";
  job.gpus_per_node = gpus;
  job.submitted = submitted;
  job.expected_runtime = 7200;
  return job;
}

// A pass as the Slurm adapter publishes one: the state it read (one job
// running on 4 GPUs, three waiting), the cycle on it, and what it did.
ObservedPass pass_at(Seconds at, const runtime::PolicySlot::Running& policy, std::vector<std::string> decisions) {
  ObservedPass pass;
  pass.at = at;
  auto inventory = runtime::load_inventory(ALLOT_SOURCE_DIR "/examples/clusters/saas-8gpu.toml");
  REQUIRE(inventory);
  pass.state.now = at;
  pass.state.inventory = *inventory;
  runtime::RunningJob running;
  running.request = request("100", "product", 4, kStart - 600);
  running.started = kStart - 300;
  running.last_checkpoint = running.started;
  running.nodes = {0};
  running.contract.protected_until = kStart + 3600;
  running.contract.preemptible = true;
  running.contract.policy_hash = policy.policy->source_hash();
  pass.state.running.push_back(running);
  pass.state.pending = {request("101", "platform", 8, kStart - 200), request("102", "product", 2, kStart - 100),
                        request("103", "platform", 1, kStart - 50)};
  pass.result = runtime::run_cycle(pass.state, *policy.policy);
  pass.policy = policy;
  pass.duration_seconds = 0.01;
  pass.decisions = std::move(decisions);
  return pass;
}

// An ObservedCluster and its reads on a port of 127.0.0.1.
struct Observed {
  explicit Observed(ObservedCluster::Limits limits = {})
      : policy{compiled(folder), 1}, cluster("slurm", policy, saas_source(), kStart - 60, limits) {
    ApiOptions api;
    api.clock = [] { return kStart; };
    mount_read_api(*listener, cluster, std::move(api));
    REQUIRE_FALSE(listener->start("127.0.0.1:0"));
    client = std::make_unique<httplib::Client>("127.0.0.1", listener->bound_port());
  }
  ~Observed() { listener->stop(); }

  json get(const std::string& path, int status = 200) {
    auto result = client->Get(path);
    REQUIRE(result);
    INFO(path << ": " << result->body);
    CHECK(result->status == status);
    return json::parse(result->body);
  }

  TempFolder folder{"allot-observed"};
  runtime::PolicySlot::Running policy;
  ObservedCluster cluster;
  std::unique_ptr<http::HttpServer> listener =
      std::make_unique<http::HttpServer>(http::ServerOptions{2, 64 * 1024, 5000ms, false});
  std::unique_ptr<httplib::Client> client;
};

std::string record(const std::string& kind, const std::string& job, const std::string& reason) {
  return json{{"kind", kind}, {"job", job}, {"reason", reason}}.dump();
}

}  // namespace

TEST_CASE("Before its first pass the dashboard's reads answer with an empty cluster", "[service][observed]") {
  Observed observed;
  const json overview = observed.get("/overview");
  CHECK(overview.at("driver") == "slurm");
  CHECK(overview.at("cycle") == 0);
  CHECK(overview.at("pending") == 0);
  CHECK(observed.get("/queue").at("jobs").empty());
  CHECK(observed.get("/decisions").at("decisions").empty());
  CHECK(observed.get("/policy").at("generation") == 1);  // a slot's first generation
}

TEST_CASE("A pass's queue, jobs and explanations are read as `allot serve` shows its own", "[service][observed]") {
  Observed observed;
  observed.cluster.publish(pass_at(kStart, observed.policy, {record("preempt", "100", "over its share")}));

  const json overview = observed.get("/overview");
  CHECK(overview.at("cycle") == 1);
  CHECK(overview.at("pending") == 3);
  CHECK(overview.at("running") == 1);
  CHECK(overview.at("cluster").at("gpus_busy") == 4);

  // The queue in the cycle's rank order, with each job's rank terms by name.
  const json queue = observed.get("/queue?limit=2");
  CHECK(queue.at("total") == 3);
  REQUIRE(queue.at("jobs").size() == 2);
  CHECK(queue.at("jobs").at(0).at("position") == 0);
  CHECK(queue.at("jobs").at(1).at("position") == 1);
  CHECK(queue.at("jobs").at(0).at("terms").is_object());
  CHECK(queue.at("next_cursor") == "2");
  const json rest = observed.get("/queue?limit=2&cursor=2");
  CHECK(rest.at("jobs").size() == 1);
  CHECK(rest.at("next_cursor").is_null());

  const json running = observed.get("/jobs/100");
  CHECK(running.at("phase") == "running");
  CHECK(running.at("nodes") == json::array({"gpu-01"}));
  CHECK(running.at("contract").at("protected_until") == "2026-12-02T10:00:00Z");
  CHECK(running.at("explain").at("state") == "running");
  const json waiting = observed.get("/jobs/101");
  CHECK(waiting.at("phase") == "pending");
  CHECK(waiting.at("explain_text").get<std::string>().find("101") != std::string::npos);

  // An ended job is the scheduler's to tell; a near id is suggested.
  const json unknown = observed.get("/jobs/1011", 404);
  CHECK(unknown.at("did_you_mean").get<std::string>().find("101") != std::string::npos);
  CHECK(unknown.at("error").get<std::string>().find("slurm scheduler keeps the jobs that ended") != std::string::npos);

  const json product = observed.get("/jobs?account=product");
  REQUIRE(product.at("jobs").size() == 2);
  CHECK(product.at("jobs").at(0).at("id") == "102");  // newest (the highest id) first
  CHECK(product.at("jobs").at(1).at("id") == "100");
  CHECK(observed.get("/jobs?account=product&phase=running").at("jobs").size() == 1);
  CHECK(observed.get("/jobs?phase=finished").at("jobs").empty());
  CHECK(observed.get("/jobs?account=prodcut", 404).at("did_you_mean") == "product");

  const json shares = observed.get("/shares");
  CHECK(shares.contains("accounts"));
  const json history = observed.get("/history");
  REQUIRE(history.at("samples").size() == 1);
  CHECK(history.at("samples").at(0).at("accounts").contains("product"));
}

TEST_CASE("Without a Service behind them the writes are not served", "[service][observed]") {
  Observed observed;
  // 405 where the path has reads, 404 for /events, which has none.
  for (const auto& [method, path, status] : std::vector<std::tuple<std::string, std::string, int>>{
           {"POST", "/jobs", 405}, {"DELETE", "/jobs/100", 405}, {"POST", "/events", 404}, {"POST", "/policy", 405}}) {
    INFO(method << " " << path);
    httplib::Result result =
        method == "POST" ? observed.client->Post(path, "{}", "application/json") : observed.client->Delete(path);
    REQUIRE(result);
    CHECK(result->status == status);
  }
  auto page = observed.client->Get("/");
  REQUIRE(page);
  CHECK(page->status == 200);
  CHECK(page->body.find("<!DOCTYPE html>") == 0);
}

TEST_CASE("The feed numbers what each pass did, keeps the newest entries, and pages by seq", "[service][observed]") {
  Observed observed(ObservedCluster::Limits{3, 300, 14 * 86400, 200});
  observed.cluster.publish(
      pass_at(kStart, observed.policy, {record("checkpoint_signal", "100", "a"), record("requeue", "100", "b")}));
  json feed = observed.get("/decisions?since=0");
  REQUIRE(feed.at("decisions").size() == 2);
  CHECK(feed.at("decisions").at(0).at("seq") == 1);
  CHECK(feed.at("decisions").at(0).at("cycle") == 1);
  CHECK(feed.at("decisions").at(0).at("at") == "2026-12-02T09:00:00Z");
  CHECK(feed.at("decisions").at(1).at("kind") == "requeue");
  CHECK(feed.at("next_since") == 2);

  observed.cluster.publish(
      pass_at(kStart + 60, observed.policy, {record("contract", "101", "c"), record("class_limit", "103", "d")}));
  // Three are kept: the first went.
  feed = observed.get("/decisions?since=0");
  REQUIRE(feed.at("decisions").size() == 3);
  CHECK(feed.at("decisions").at(0).at("seq") == 2);
  CHECK(feed.at("decisions").at(2).at("seq") == 4);
  CHECK(feed.at("decisions").at(2).at("cycle") == 2);
  CHECK(observed.get("/decisions?since=3").at("decisions").size() == 1);
  CHECK(observed.get("/decisions?since=4").at("decisions").empty());
  CHECK(observed.get("/decisions?since=9223372036854775807").at("decisions").empty());
  const json tail = observed.get("/decisions?tail=2");
  REQUIRE(tail.at("decisions").size() == 2);
  CHECK(tail.at("decisions").at(1).at("reason") == "d");

  // Samples every sample_every (300 s): the pass 60 s later added none.
  CHECK(observed.get("/history").at("samples").size() == 1);
  observed.cluster.publish(pass_at(kStart + 300, observed.policy, {}));
  CHECK(observed.get("/history").at("samples").size() == 2);
}

TEST_CASE("A reload the driver made is the policy in force; a refused one is only history", "[service][observed]") {
  Observed observed;
  const std::shared_ptr<const CompiledPolicy> next = compiled(observed.folder, "1000 * fair_tree", "900 * fair_tree");
  observed.cluster.record_policy(PolicyRecord{1, kStart, "0123456789abcdef", "refused", "error[parse]: at 3:1", ""},
                                 nullptr);
  CHECK(observed.get("/policy").at("hash") == observed.policy.policy->source_hash());
  std::string source = saas_source();
  source.replace(source.find("1000 * fair_tree"), 16, "900 * fair_tree");
  observed.cluster.record_policy(PolicyRecord{2, kStart + 10, next->source_hash(), "swapped", "reloaded", source},
                                 next);

  const json policy = observed.get("/policy");
  CHECK(policy.at("hash") == next->source_hash());
  CHECK(policy.at("generation") == 2);
  CHECK(policy.at("source").get<std::string>().find("900 * fair_tree") != std::string::npos);
  const json history = observed.get("/policy/history");
  REQUIRE(history.at("policies").size() == 3);
  CHECK(history.at("policies").at(0).at("outcome") == "swapped");
  CHECK(history.at("policies").at(1).at("outcome") == "refused");
  CHECK(history.at("policies").at(2).at("outcome") == "started");
  const std::string diff = history.at("last_swap_diff").get<std::string>();
  CHECK(diff.find("-      let share = 1000 * fair_tree") != std::string::npos);
  CHECK(diff.find("+      let share = 900 * fair_tree") != std::string::npos);
}

}  // namespace allot::service
