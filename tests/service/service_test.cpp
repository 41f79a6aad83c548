// `allot serve`'s Service and JSON API (service/include/allot/service.h): a
// real SQLite file, the saas policy compiled by the real compiler, and the
// real listener on 127.0.0.1 driven by httplib's client. Time is the test's:
// every call says when it happens, so each case is deterministic.
#include <catch2/catch.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <fstream>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <thread>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <httplib.h>
#include <nlohmann/json.hpp>

#include "allot/compile.h"
#include "allot/dates.h"
#include "allot/hot_swap.h"
#include "allot/http_server.h"
#include "allot/inventory.h"
#include "allot/line_diff.h"
#include "allot/metrics.h"
#include "allot/service.h"
#include "history_chart.h"
#include "runtime/temp_folder.h"

namespace allot::service {
namespace {

using nlohmann::json;
using namespace std::chrono_literals;

constexpr const char* kToken = "test-token-0123456789abcdef";
const Seconds kStart = *support::parse_timestamp("2026-12-02T09:00:00Z");

std::string saas_source() {
  std::ifstream file(ALLOT_SOURCE_DIR "/policies/saas.allot");
  return std::string(std::istreambuf_iterator<char>(file), {});
}

std::shared_ptr<const CompiledPolicy> compile_source(const std::string& text) {
  CompileOptions options;
  options.engine = Engine::interpreter;
  options.check.today = parse_date("2026-12-01");
  CompileResult result = compile_policy_source(ALLOT_SOURCE_DIR "/policies/saas.allot", text, options);
  REQUIRE(result.policy);
  return result.policy;
}

runtime::Inventory saas_cluster() {
  auto inventory = runtime::load_inventory(ALLOT_SOURCE_DIR "/examples/clusters/saas-8gpu.toml");
  REQUIRE(inventory);
  return *inventory;
}

// A service on a database in a temporary folder, its API on a port of 127.0.0.1.
class Served {
 public:
  // Rate limits as allot serve takes them (0: none).
  explicit Served(double write_rate = 0, double read_rate = 0, std::string source = saas_source())
      : write_rate_(write_rate), read_rate_(read_rate), source_(std::move(source)), policy_(compile_source(source_)) {
    open();
  }
  ~Served() { close(); }

  void open() {
    ServiceOptions options;
    options.database = folder_.file("serve.db");
    options.inventory = saas_cluster();
    options.durability = runtime::Durability::process_crash;
    auto opened = Service::open(options, policy_, source_, now);
    REQUIRE(opened);
    service_ = std::move(*opened);
    server_ = std::make_unique<http::HttpServer>(http::ServerOptions{2, 64 * 1024, 5000ms, false});
    http::serve_metrics_and_health(*server_, registry_, health_);
    ApiOptions api;
    api.token = kToken;
    api.clock = [this] { return now.load(); };
    api.write_rate = write_rate_;
    api.write_burst = write_rate_;
    api.read_rate = read_rate_;
    api.read_burst = read_rate_;
    api.compile = [this](const std::string& text) {
      CompileOptions options;
      options.engine = Engine::interpreter;
      options.check.today = parse_date("2026-12-01");
      return runtime::compile_candidate_source(folder_.file("posted/posted.allot"), text, options);
    };
    mount_api(*server_, *service_, std::move(api));
    REQUIRE_FALSE(server_->start("127.0.0.1:0"));
    client_ = std::make_unique<httplib::Client>("127.0.0.1", server_->bound_port());
  }
  void close() {
    client_.reset();
    if (server_) server_->stop();
    server_.reset();
    service_.reset();
  }
  void reopen() {
    close();
    open();
  }

  Service& service() { return *service_; }
  CycleReport cycle() {
    auto report = service_->run_cycle(now);
    REQUIRE(report);
    return *report;
  }

  httplib::Result post(const std::string& path, const std::string& body, const std::string& token = kToken) {
    httplib::Headers headers;
    if (!token.empty()) headers.emplace("Authorization", "Bearer " + token);
    return client_->Post(path, headers, body, "application/json");
  }
  httplib::Result remove(const std::string& path, const std::string& token = kToken) {
    httplib::Headers headers;
    if (!token.empty()) headers.emplace("Authorization", "Bearer " + token);
    return client_->Delete(path, headers);
  }
  httplib::Result get(const std::string& path) { return client_->Get(path); }
  httplib::Result post_policy(const std::string& path, const std::string& text, const std::string& token = kToken) {
    httplib::Headers headers;
    if (!token.empty()) headers.emplace("Authorization", "Bearer " + token);
    return client_->Post(path, headers, text, "text/plain");
  }
  httplib::Client& client() { return *client_; }
  int port() const { return server_->bound_port(); }
  json get_json(const std::string& path, int status = 200) {
    auto result = get(path);
    REQUIRE(result);
    CHECK(result->status == status);
    return json::parse(result->body);
  }
  // Submits a job; returns its id.
  std::string submit(const json& job) {
    auto result = post("/jobs", job.dump());
    REQUIRE(result);
    INFO(result->body);
    REQUIRE(result->status == 201);
    return json::parse(result->body).at("job").at("id").get<std::string>();
  }
  void event(const json& event, int status = 200) {
    auto result = post("/events", event.dump());
    REQUIRE(result);
    INFO(result->body);
    CHECK(result->status == status);
  }

  std::atomic<Seconds> now{kStart};

 private:
  double write_rate_ = 0;
  double read_rate_ = 0;
  std::string source_;
  std::shared_ptr<const CompiledPolicy> policy_;
  TempFolder folder_{"allot-service"};
  metrics::Registry registry_;
  http::Health health_{std::chrono::seconds(60)};
  std::unique_ptr<Service> service_;
  std::unique_ptr<http::HttpServer> server_;
  std::unique_ptr<httplib::Client> client_;
};

json train(const std::string& account, int gpus) {
  return json{{"account", account}, {"class", "train"}, {"gpus_per_node", gpus}, {"expected_runtime", "2h"}};
}

std::vector<std::string> kinds_on_feed(Served& served, std::int64_t since = 0) {
  std::vector<std::string> kinds;
  const json feed = served.get_json("/decisions?since=" + std::to_string(since));
  for (const auto& decision : feed.at("decisions")) {
    kinds.push_back(decision.at("kind").get<std::string>() + " " + decision.at("job").get<std::string>());
  }
  return kinds;
}

}  // namespace

TEST_CASE("A submitted job waits unranked, the next cycle starts it, and the feed says where", "[service]") {
  Served served;
  const std::string id = served.submit(train("product", 4));
  CHECK(id == "job-1");
  json queue = served.get_json("/queue");
  CHECK(queue.at("total") == 1);
  CHECK(queue.at("jobs").at(0).at("position").is_null());  // not ranked before a cycle
  CHECK(served.get_json("/jobs/job-1").at("phase") == "pending");

  const CycleReport report = served.cycle();
  CHECK(report.starts == 1);
  CHECK(kinds_on_feed(served) == std::vector<std::string>{"start job-1"});
  const json feed = served.get_json("/decisions");
  CHECK(feed.at("decisions").at(0).at("nodes") == json::array({"gpu-01"}));
  CHECK(feed.at("decisions").at(0).at("seq") == 1);
  CHECK(feed.at("next_since") == 1);
  CHECK(served.get_json("/decisions?since=1").at("decisions").empty());

  const json job = served.get_json("/jobs/job-1");
  CHECK(job.at("phase") == "running");
  CHECK(job.at("contract").at("protected_until") == "2026-12-02T11:00:00Z");  // saas: train protects 2h
  CHECK(job.at("explain").at("state") == "running");
  CHECK(served.get_json("/queue").at("total") == 0);
}

TEST_CASE("Mutating calls need the bearer token; nothing is stored without it", "[service]") {
  Served served;
  for (const std::string token : {"", "wrong-token-0123456789abcdef"}) {
    auto result = served.post("/jobs", train("product", 1).dump(), token);
    REQUIRE(result);
    CHECK(result->status == 401);
    CHECK(result->get_header_value("WWW-Authenticate") == "Bearer");
    auto cancel = served.remove("/jobs/job-1", token);
    REQUIRE(cancel);
    CHECK(cancel->status == 401);
  }
  CHECK(served.get_json("/queue").at("total") == 0);
}

TEST_CASE("A bad job gets 400 naming the field, and is not stored", "[service]") {
  struct Case {
    std::string body;
    std::string field;       // "" when the body as a whole is wrong
    std::string message;     // part of the error
    std::string suggestion;  // did_you_mean, "" for none
  };
  const std::vector<Case> cases = {
      {R"({"account":)", "", "malformed JSON at byte", ""},
      {R"([1, 2])", "", "must be a JSON object", ""},
      {R"({"account":"product","class":"train","gpus_per_node":"four"})", "gpus_per_node", "integer", ""},
      {R"({"account":"product","class":"train","gpus_per_nod":4})", "gpus_per_nod", "did you mean `gpus_per_node`", ""},
      {R"({"account":"product","class":"train","gpus_per_node":2000})", "gpus_per_node", "between 0 and 1024", ""},
      {R"({"account":"exploraton/ana","class":"train","gpus_per_node":1})", "account", "not a leaf account",
       "exploration/ana"},
      {R"({"account":"product","class":"trian","gpus_per_node":1})", "class", "not a class", "train"},
      {R"({"account":"product","class":"train","gpus_per_node":1,"deadline":"tomorrow"})", "deadline", "RFC 3339", ""},
      {R"({"account":"product","class":"train","gpus_per_node":1,"submitted":"2026-12-03T00:00:00Z"})", "submitted",
       "after now", ""},
      {R"({"account":"product","class":"train","gpus_per_node":1,"features":{"ib":true}})", "features", "not an object",
       ""},
      {R"({"account":"product","class":"train","gpus_per_node":1,"features":["ib", 3]})", "features[1]",
       "must list strings", ""},
      {R"({"account":"product","class":"train","gpus_per_node":1,"restarts":18446744073709551615})", "restarts",
       "out of range", ""},
  };
  Served served;
  for (const Case& c : cases) {
    INFO(c.body);
    auto result = served.post("/jobs", c.body);
    REQUIRE(result);
    CHECK(result->status == 400);
    const json error = json::parse(result->body);
    CHECK(error.value("field", "") == c.field);
    CHECK_THAT(error.at("error").get<std::string>(), Catch::Contains(c.message));
    CHECK(error.value("did_you_mean", "") == c.suggestion);
  }
  CHECK(served.get_json("/queue").at("total") == 0);
}

TEST_CASE("An id is unique: a second submission with it is refused, even after the first ended", "[service]") {
  Served served;
  json job = train("product", 1);
  job["id"] = "eval-7";
  served.submit(job);
  auto again = served.post("/jobs", job.dump());
  REQUIRE(again);
  CHECK(again->status == 409);
  REQUIRE(served.remove("/jobs/eval-7")->status == 200);
  CHECK(served.post("/jobs", job.dump())->status == 409);
}

TEST_CASE("Unknown jobs get 404 with a suggestion; a job is cancelled once", "[service]") {
  Served served;
  json job = train("exploration/ana", 8);
  job["id"] = "ana-sweep-1";
  served.submit(job);
  const json missing = served.get_json("/jobs/ana-swep-1", 404);
  CHECK(missing.at("did_you_mean") == "ana-sweep-1");
  CHECK(served.remove("/jobs/ana-swep-1")->status == 404);

  served.cycle();  // it starts
  auto cancelled = served.remove("/jobs/ana-sweep-1");
  REQUIRE(cancelled);
  CHECK(cancelled->status == 200);
  CHECK(served.get_json("/jobs/ana-sweep-1").at("phase") == "cancelled");
  // A running job's cancellation is a stop on the feed.
  CHECK(kinds_on_feed(served) == std::vector<std::string>{"start ana-sweep-1", "cancel ana-sweep-1"});
  CHECK(served.remove("/jobs/ana-sweep-1")->status == 409);
}

TEST_CASE("Events move a running job: checkpoints forward only, times not in the future, a finish frees its GPUs",
          "[service]") {
  Served served;
  const std::string first = served.submit(train("product", 8));
  const std::string second = served.submit(train("platform", 8));
  served.event({{"kind", "checkpointed"}, {"job", first}}, 409);  // pending: never started
  served.cycle();
  served.now += 1800;
  served.event({{"kind", "started"}, {"job", first}});
  served.event({{"kind", "checkpointed"}, {"job", first}, {"at", "2026-12-02T09:20:00Z"}});
  served.event({{"kind", "checkpointed"}, {"job", first}, {"at", "2026-12-02T09:10:00Z"}}, 409);  // backwards
  served.event({{"kind", "progress"}, {"job", first}, {"at", "2026-12-02T10:00:00Z"}}, 400);      // future
  served.event({{"kind", "progress"}, {"job", first}, {"at", "2026-12-02T08:00:00Z"}}, 400);      // before its start
  served.event({{"kind", "progress"}, {"job", first}});
  served.event({{"kind", "progress"}, {"job", first}, {"at", "2026-12-02T09:25:00Z"}}, 409);  // backwards
  served.event({{"kind", "finishd"}, {"job", first}}, 400);
  served.event({{"kind", "finished"}, {"job", "nope"}}, 404);
  served.event({{"kind", "node_down"}, {"node", "gpu-1"}}, 404);
  const json running = served.get_json("/jobs/" + first);
  CHECK(running.at("last_checkpoint") == "2026-12-02T09:20:00Z");
  CHECK(running.at("last_progress") == "2026-12-02T09:30:00Z");
  CHECK(running.at("confirmed") == true);

  served.event({{"kind", "finished"}, {"job", first}});
  served.event({{"kind", "finished"}, {"job", first}});  // a retry changes nothing
  served.event({{"kind", "failed"}, {"job", first}}, 409);
  CHECK(served.get_json("/jobs/" + first).at("ended") == "2026-12-02T09:30:00Z");
  served.cycle();
  CHECK(served.get_json("/jobs/" + second).at("phase") == "running");
  // Half an hour of 8 GPUs for product, charged when it finished.
  const json shares = served.get_json("/shares");
  for (const auto& account : shares.at("accounts")) {
    if (account.at("path") == "product") CHECK(account.at("raw_usage").get<double>() == Approx(4.0));
  }
}

namespace {

// What a job is to the cycle, for comparing two states.
std::vector<std::string> jobs_of(const runtime::ClusterState& state) {
  std::vector<std::string> jobs;
  for (const runtime::JobRequest& job : state.pending) jobs.push_back("pending " + job.id);
  for (const runtime::RunningJob& job : state.running) {
    jobs.push_back(fmt::format("running {} from {} on {} checkpoint {} progress {} stop {}", job.request.id,
                               job.started, fmt::join(job.nodes, ","), job.last_checkpoint,
                               job.last_progress.value_or(-1), job.stopping_at.value_or(-1)));
  }
  std::sort(jobs.begin(), jobs.end());  // a cycle's starts come after the jobs that ran before it
  return jobs;
}

runtime::JobRequest direct_job(const std::string& id, const std::string& account, int gpus, Seconds now) {
  runtime::JobRequest job;
  job.id = id;
  job.account = account;
  job.job_class = "train";
  job.gpus_per_node = gpus;
  job.expected_runtime = 7200;
  job.submitted = now;
  return job;
}

}  // namespace

TEST_CASE("A cycle sees every change made since the last one, as the live state has it", "[service]") {
  // The cycle keeps its own copy of the jobs, brought up to date from a
  // journal of changes; after each cycle the view it publishes (its state with
  // its decisions applied) must be the live state, job for job.
  Served served;
  Service& service = served.service();
  auto check_cycle = [&](const char* when) {
    INFO(when);
    served.cycle();
    CHECK(jobs_of(service.view()->state) == jobs_of(service.state()));
  };
  for (int i = 0; i < 12; ++i) {
    REQUIRE(service.submit(direct_job(fmt::format("a{}", i), i % 2 ? "product" : "platform", 1 + i % 3, served.now),
                           served.now));
  }
  check_cycle("the first cycle, which copies every job");
  const auto running = service.jobs("", "running", 100);
  REQUIRE(running);
  REQUIRE(running->size() >= 3);
  served.now += 600;
  const std::string finished = running->at(0).request.id, progressing = running->at(1).request.id,
                    checkpointed = running->at(2).request.id;
  CHECK_FALSE(service.record_event(Event{"finished", finished, "", std::nullopt}, served.now));
  CHECK_FALSE(service.record_event(Event{"progress", progressing, "", std::nullopt}, served.now));
  CHECK_FALSE(service.record_event(Event{"checkpointed", checkpointed, "", std::nullopt}, served.now));
  const auto waiting = service.jobs("", "pending", 1);
  REQUIRE(waiting);
  REQUIRE(waiting->size() == 1);
  CHECK_FALSE(service.cancel(waiting->front().request.id, served.now));
  REQUIRE(service.submit(direct_job("b0", "product", 2, served.now), served.now));
  CHECK_FALSE(service.cancel("b0", served.now));  // in and out between two cycles
  REQUIRE(service.submit(direct_job("b1", "platform", 1, served.now), served.now));
  check_cycle("after an end, reports, cancellations and submissions");
  served.now += 60;
  check_cycle("after nothing");

  // More changes than jobs between two cycles: the journal is dropped, and
  // the next cycle copies the live state whole.
  for (int i = 0; i < 1100; ++i) {
    REQUIRE(service.submit(direct_job(fmt::format("c{}", i), "product", 1, served.now), served.now));
  }
  check_cycle("after 1,100 submissions");
  for (int i = 0; i < 1100; ++i) CHECK_FALSE(service.cancel(fmt::format("c{}", i), served.now));
  REQUIRE(service.submit(direct_job("d0", "platform", 1, served.now), served.now));
  check_cycle("after 1,100 cancellations");
  CHECK(service.queue(0, 10).total == service.state().pending.size());
}

TEST_CASE("A stalled job is on the feed when found and when it recovers, and its stalled time is held apart",
          "[service][progress]") {
  std::string source = saas_source();
  const std::string train_class = "  class train {\n    checkpoint every 30m\n";
  REQUIRE(source.find(train_class) != std::string::npos);
  source.replace(source.find(train_class), train_class.size(), train_class + "    progress every 20m after 10m\n");
  Served served(0, 0, source);
  const std::string id = served.submit(train("product", 8));
  served.cycle();
  REQUIRE(served.get_json("/jobs/" + id).at("phase") == "running");
  served.now += 35 * 60;  // 09:35, silent past its allowance and one interval: stalled since 09:30
  served.cycle();
  served.now += 5 * 60;
  served.cycle();  // 09:40, still stalled: not on the feed again
  CHECK(served.get_json("/jobs/" + id).at("stalled_since") == "2026-12-02T09:30:00Z");
  served.event({{"kind", "progress"}, {"job", id}});
  served.now += 60;
  served.reopen();  // the stalled set survives a restart
  served.cycle();
  const json feed = served.get_json("/decisions?since=0");
  CHECK(served.get_json("/jobs/" + id).at("stalled_since").is_null());
  std::vector<json> progress;
  for (const json& entry : feed.at("decisions")) {
    if (entry.at("kind") == "stalled" || entry.at("kind") == "recovered") progress.push_back(entry);
  }
  REQUIRE(progress.size() == 2);
  CHECK(progress[0].at("kind") == "stalled");
  CHECK(progress[0].at("job") == id);
  CHECK(progress[0].at("since") == "2026-12-02T09:30:00Z");
  CHECK(progress[0].at("on_stall") == "preempt");
  CHECK(progress[0].at("reason") ==
        "no progress reported since it started; its class requires progress every 20m: stalled since "
        "2026-12-02T09:30:00Z");
  CHECK(progress[1].at("kind") == "recovered");
  CHECK(progress[1].at("progress_at") == "2026-12-02T09:40:00Z");
  // Eight GPUs for 41 minutes, 09:30 to 09:40 of them stalled: held without progress apart.
  served.event({{"kind", "finished"}, {"job", id}});
  served.cycle();
  const json shares = served.get_json("/shares");
  for (const auto& account : shares.at("accounts")) {
    if (account.at("path") != "product") continue;
    CHECK(account.at("raw_usage").get<double>() == Approx(8.0 * 41 / 60));
    CHECK(account.at("without_progress").get<double>() == Approx(8.0 * 10 / 60));
  }
}

TEST_CASE("A node taken down takes no work until it is up again", "[service]") {
  Served served;
  served.event({{"kind", "node_down"}, {"node", "gpu-01"}});
  served.submit(train("product", 1));
  CHECK(served.cycle().starts == 0);
  served.reopen();  // the node's state is stored
  CHECK(served.cycle().starts == 0);
  served.event({{"kind", "node_up"}, {"node", "gpu-01"}});
  CHECK(served.cycle().starts == 1);
}

TEST_CASE("Queue pages: limit and cursor visit every waiting job once, best first", "[service]") {
  Served served;
  for (int i = 0; i < 250; ++i) served.submit(train(i % 2 ? "product" : "platform", 8));
  served.cycle();  // one starts; 249 wait, ranked
  std::set<std::string> seen;
  std::optional<std::size_t> last_position;
  std::string path = "/queue?limit=100";
  int pages = 0;
  while (true) {
    const json page = served.get_json(path);
    ++pages;
    CHECK(page.at("total") == 249);
    for (const auto& job : page.at("jobs")) {
      CHECK(seen.insert(job.at("id").get<std::string>()).second);
      const auto position = job.at("position").get<std::size_t>();
      if (last_position) CHECK(position > *last_position);
      last_position = position;
    }
    if (page.at("next_cursor").is_null()) break;
    path = "/queue?limit=100&cursor=" + page.at("next_cursor").get<std::string>();
  }
  CHECK(pages == 3);
  CHECK(seen.size() == 249);
  for (const std::string bad : {"/queue?limit=1001", "/queue?limit=0", "/queue?limit=ten", "/queue?cursor=-1"}) {
    INFO(bad);
    CHECK(served.get_json(bad, 400).contains("field"));
  }
}

TEST_CASE("A reopened service has every acknowledged job and contract, and charges nothing twice", "[service]") {
  Served served;
  const std::string first = served.submit(train("exploration/ana", 8));
  const std::string second = served.submit(train("product", 8));
  served.cycle();
  // product's larger share ranks it first: it runs, ana's job waits.
  CHECK(kinds_on_feed(served) == std::vector<std::string>{"start " + second});
  served.now += 600;
  const CycleReport charged = served.cycle();
  CHECK(charged.charged == Approx(8 * 600 / 3600.0));
  const json before = served.get_json("/jobs/" + second);

  served.reopen();
  const CycleReport again = served.cycle();  // the same time: nothing new to charge
  CHECK(again.charged == 0);
  CHECK(again.starts == 0);
  const json after = served.get_json("/jobs/" + second);
  CHECK(after.at("phase") == "running");
  CHECK(after.at("contract") == before.at("contract"));
  CHECK(served.get_json("/jobs/" + first).at("phase") == "pending");
  CHECK(kinds_on_feed(served) == std::vector<std::string>{"start " + second});
  // The next job gets the next number: ids are never reused.
  CHECK(served.submit(train("platform", 1)) == "job-3");
}

TEST_CASE("Every path of docs/openapi.yaml is served with the methods it lists, and no other", "[service]") {
  Served served;
  std::ifstream file(ALLOT_SOURCE_DIR "/docs/openapi.yaml");
  REQUIRE(file);
  std::map<std::string, std::set<std::string>> documented;
  std::string path, line;
  bool in_paths = false;
  while (std::getline(file, line)) {
    if (line == "paths:") in_paths = true;
    if (!in_paths) continue;
    // "  /jobs/{id}:" names a path; "    get:" one of its methods.
    if (line.size() > 3 && line.compare(0, 3, "  /") == 0 && line.back() == ':') path = line.substr(2, line.size() - 3);
    for (const std::string method : {"get", "post", "delete", "put"}) {
      if (line == "    " + method + ":") documented[path].insert(method);
    }
  }
  CHECK(documented.size() == 15);
  for (const auto& [documented_path, methods] : documented) {
    std::string concrete = documented_path;
    if (const auto open = concrete.find('{'); open != std::string::npos) {
      concrete.replace(open, concrete.find('}', open) - open + 1, "no-such-job");
    }
    for (const std::string method : {"get", "post", "delete", "put"}) {
      INFO(method << " " << concrete);
      httplib::Result result = method == "get"      ? served.client().Get(concrete)
                               : method == "post"   ? served.client().Post(concrete, "{}", "application/json")
                               : method == "delete" ? served.client().Delete(concrete)
                                                    : served.client().Put(concrete, "{}", "application/json");
      REQUIRE(result);
      if (methods.count(method)) {
        CHECK(result->status != 405);
        CHECK(result->body != "not found\n");  // the listener's own 404: no route there
      } else {
        CHECK(result->status == 405);
      }
    }
  }
}

TEST_CASE("POST /policy refuses a broken policy, dry-runs without swapping, and swaps with a diff", "[service]") {
  Served served;
  for (const char* account : {"exploration/ana", "product", "platform"}) served.submit(train(account, 8));
  served.cycle();
  const std::string source = saas_source();
  std::string changed = source;
  const std::string from = "debug => 500", to = "debug => 600";
  REQUIRE(changed.find(from) != std::string::npos);
  changed.replace(changed.find(from), from.size(), to);

  CHECK(served.post_policy("/policy", changed, "")->status == 401);
  auto broken = served.post_policy("/policy", "policy x {\n  window 7d\n  rank = job.nope\n}\n");
  REQUIRE(broken);
  CHECK(broken->status == 422);
  const json refusal = json::parse(broken->body);
  CHECK(refusal.at("swapped") == false);
  REQUIRE_FALSE(refusal.at("diagnostics").empty());
  CHECK(refusal.at("diagnostics").at(0).at("line").get<int>() > 0);
  CHECK(served.get_json("/policy").at("generation") == 1);

  auto dry = served.post_policy("/policy?dry_run=1", changed);
  REQUIRE(dry);
  CHECK(dry->status == 200);
  const json dry_run = json::parse(dry->body);
  CHECK(dry_run.at("dry_run") == true);
  CHECK(dry_run.at("swapped") == false);
  CHECK(dry_run.at("diff").at("ranked_by_both") == 2);
  CHECK(dry_run.at("diff").contains("kendall_tau"));
  CHECK(served.get_json("/policy").at("generation") == 1);

  auto swap = served.post_policy("/policy", changed);
  REQUIRE(swap);
  INFO(swap->body);
  CHECK(swap->status == 200);
  CHECK(json::parse(swap->body).at("generation") == 2);
  const json policy = served.get_json("/policy");
  CHECK(policy.at("generation") == 2);
  CHECK(policy.at("source") == changed);
  const json history = served.get_json("/policy/history");
  std::vector<std::string> outcomes;
  for (const auto& entry : history.at("policies")) outcomes.push_back(entry.at("outcome"));
  CHECK(outcomes == std::vector<std::string>{"swapped", "dry_run", "refused", "initial"});
  const std::string diff = history.at("last_swap_diff");
  CHECK_THAT(diff, Catch::Contains("-") && Catch::Contains(from) && Catch::Contains("+") && Catch::Contains(to));
  served.now += 60;
  CHECK(served.cycle().cycle == 2);  // the next cycle runs the new policy
  CHECK(served.get_json("/overview").at("policy").at("generation") == 2);
}

TEST_CASE("A posted policy imports only the stdlib and the import path", "[service]") {
  Served served;
  for (const std::string target : {"/etc/hostname", "../../../../../../etc/hostname", "beside.allot"}) {
    INFO(target);
    auto posted = served.post_policy("/policy", "import \"" + target + "\"\n" + saas_source());
    REQUIRE(posted);
    CHECK(posted->status == 422);
    const json answer = json::parse(posted->body);
    const std::string code = answer.at("diagnostics").at(0).at("code");
    CHECK((code == "import_refused" || code == "import_not_found"));
  }
  CHECK(served.get_json("/policy").at("generation") == 1);
}

TEST_CASE("The history samples every program's share, usage and delivery as cycles run", "[service]") {
  Served served;
  served.submit(train("product", 8));
  served.submit(train("exploration/ana", 4));
  for (int i = 0; i < 3; ++i) {
    served.cycle();
    served.now += 300;
  }
  const json history = served.get_json("/history");
  CHECK(history.at("programs") == json::array({"product", "platform", "exploration"}));
  REQUIRE(history.at("samples").size() == 3);
  const json& last = history.at("samples").at(2);
  CHECK(last.at("at") == "2026-12-02T09:10:00Z");
  CHECK(last.at("accounts").at("product").at("usage").get<double>() > 0);
  CHECK(last.at("accounts").at("product").at("share").get<double>() == Approx(0.5));  // 40% + 10 points lent
}

// The y of the grid line whose tick reads `label` ("60%"), and the first y of
// the path titled `title`: where a reader sees the line start on the y axis.
double tick_y(const std::string& svg, const std::string& label) {
  const std::size_t text = svg.find(">" + label + "</text>");
  REQUIRE(text != std::string::npos);
  const std::size_t y1 = svg.find("y1=\"", svg.rfind("<line", text));
  return std::stod(svg.substr(y1 + 4));
}
// GET `path`, which must answer 200 with `content_type`.
httplib::Result get_ok(Served& served, const std::string& path, const std::string& content_type) {
  auto result = served.get(path);
  REQUIRE(result);
  CHECK(result->status == 200);
  CHECK(result->get_header_value("Content-Type") == content_type);
  return result;
}
double first_y(const std::string& svg, const std::string& title) {
  const std::size_t titled = svg.find("<title>" + title + "</title>");
  REQUIRE(titled != std::string::npos);
  const std::size_t path = svg.rfind("<path d=\"M", titled);
  return std::stod(svg.substr(svg.find(' ', path + 10) + 1));
}

TEST_CASE("The chart over time draws each program's delivered and owed share of all owed", "[service]") {
  // At 09:00 product was owed 4 and delivered 3, exploration owed and delivered 1: of the 5 owed in
  // all, product was owed 80% and delivered 60%, exploration owed and delivered 20%.
  const std::vector<Sample> samples = {{kStart, "product", 0.4, 0, 4, 3, 1},
                                       {kStart, "exploration", 0.3, 0, 1, 1, 0},
                                       {kStart, "exploration/ana", 0.3, 0, 1, 1, 0},  // not a program
                                       {kStart + 3600, "product", 0.4, 0, 4, 4, 0},
                                       {kStart + 3600, "exploration", 0.3, 0, 1, 1, 0}};
  const std::vector<std::string> programs = {"product", "platform", "exploration"};
  const std::string svg = history_chart(samples, programs);
  CHECK(svg.rfind("<svg xmlns=\"http://www.w3.org/2000/svg\"", 0) == 0);
  CHECK_THAT(svg, Catch::Contains("<style>.chart{"));  // renders on its own, as an image
  CHECK(first_y(svg, "product") == Approx(tick_y(svg, "60%")));
  CHECK(first_y(svg, "product owed") == Approx(tick_y(svg, "80%")));
  CHECK(first_y(svg, "exploration") == Approx(tick_y(svg, "20%")));
  CHECK(first_y(svg, "exploration owed") == Approx(tick_y(svg, "20%")));
  CHECK_THAT(svg, !Catch::Contains("<title>platform</title>"));  // never owed anything: no line
  CHECK_THAT(svg, !Catch::Contains("exploration/ana"));
  // Told apart without colour: owed lines dashed, a key that says so, each line's name at its end.
  CHECK_THAT(svg, Catch::Contains(R"(stroke-dasharray="6 4"><title>product owed</title>)"));
  CHECK_THAT(svg, Catch::Contains(">dashed: owed</text>"));
  CHECK_THAT(svg, Catch::Contains(R"(class="end-label">product</text>)"));
  // An hour of samples: ticks at times of day, the unit says which day.
  CHECK_THAT(svg, Catch::Contains(">09:30<") && Catch::Contains(">date (UTC), Wed 12-02<"));
  CHECK_THAT(svg, Catch::Contains(">% of all owed<"));

  const std::string one = history_chart(samples, programs, "exploration");
  CHECK_THAT(one, !Catch::Contains("<title>product</title>"));
  CHECK(first_y(one, "exploration") == Approx(tick_y(one, "20%")));  // still a share of all owed

  const std::string empty = history_chart({}, programs);
  CHECK_THAT(empty, Catch::Contains(">no history yet</text>") && Catch::Contains("<style>"));
}

TEST_CASE("GET /history.svg serves the chart over time, one program's with account=", "[service]") {
  Served served;
  auto none = get_ok(served, "/history.svg", "image/svg+xml; charset=utf-8");
  CHECK_THAT(none->body, Catch::Contains("no history yet"));
  served.submit(train("product", 8));
  served.submit(train("exploration/ana", 4));
  for (int i = 0; i < 3; ++i) {
    served.cycle();
    served.now += 300;
  }
  auto chart = get_ok(served, "/history.svg", "image/svg+xml; charset=utf-8");
  CHECK_THAT(chart->body, Catch::Contains("<title>product</title>") && Catch::Contains("<title>product owed</title>"));
  CHECK_THAT(chart->body, !Catch::Contains("no history yet"));
  auto product = served.get("/history.svg?account=product");
  REQUIRE(product);
  CHECK_THAT(product->body,
             Catch::Contains("<title>product</title>") && !Catch::Contains("<title>exploration</title>"));
  const json unknown = served.get_json("/history.svg?account=prodcut", 404);
  CHECK(unknown.at("error") == "no program `prodcut`");
  CHECK(unknown.at("did_you_mean") == "product");
  CHECK(served.get_json("/history.svg?account=exploration/ana", 404).at("error") == "no program `exploration/ana`");
  CHECK(served.get_json("/history.svg?since=yesterday", 400).at("field") == "since");
  // Later samples only: since the last cycle's time, nothing yet.
  CHECK_THAT(served.get("/history.svg?since=" + std::to_string(served.now))->body, Catch::Contains("no history yet"));
}

TEST_CASE("Jobs are listed by account and by phase, ended ones too", "[service]") {
  Served served;
  const std::string ana = served.submit(train("exploration/ana", 8));
  served.submit(train("exploration/ben", 8));
  served.cycle();
  served.now += 60;
  const json running = served.get_json("/jobs?phase=running");
  REQUIRE(running.at("jobs").size() == 1);
  const std::string first = running.at("jobs").at(0).at("id");
  CHECK(running.at("jobs").at(0).at("nodes") == json::array({"gpu-01"}));
  served.event({{"kind", "finished"}, {"job", first}});
  const json mine = served.get_json("/jobs?account=exploration/ana");
  REQUIRE(mine.at("jobs").size() == 1);
  CHECK(mine.at("jobs").at(0).at("id") == ana);
  CHECK(served.get_json("/jobs?phase=finished").at("jobs").at(0).at("id") == first);
  CHECK(served.get_json("/jobs?phase=finishd", 400).at("did_you_mean") == "finished");
}

TEST_CASE("The dashboard is one page served by the binary, with nothing from elsewhere", "[service]") {
  Served served;
  auto page = get_ok(served, "/", "text/html; charset=utf-8");
  CHECK_THAT(page->get_header_value("Content-Security-Policy"), Catch::Contains("default-src 'none'"));
  CHECK_THAT(page->body, Catch::Contains("<title>Allot"));
  for (const std::string outside : {"src=\"http", "href=\"http", "url(http", "@import", "//cdn"}) {
    INFO(outside);
    CHECK(page->body.find(outside) == std::string::npos);
  }
  // Every endpoint the page fetches answers JSON.
  served.submit(train("product", 1));
  served.cycle();
  for (const std::string path : {"/overview", "/shares", "/history", "/policy", "/policy/history",
                                 "/queue?limit=50&terms=1", "/jobs?phase=running", "/decisions?tail=100"}) {
    INFO(path);
    CHECK_NOTHROW(served.get_json(path));
  }
}

TEST_CASE("Past its rate a token's writes and an address's reads get 429 with Retry-After", "[service]") {
  Served served(2, 3);  // 2 writes, 3 reads at once, then a second each at that rate
  CHECK(served.post("/jobs", train("product", 1).dump())->status == 201);
  CHECK(served.post("/jobs", train("product", 1).dump())->status == 201);
  auto refused = served.post("/jobs", train("product", 1).dump());
  REQUIRE(refused);
  CHECK(refused->status == 429);
  CHECK(refused->get_header_value("Retry-After") == "1");
  for (int i = 0; i < 3; ++i) CHECK(served.get("/queue")->status == 200);
  CHECK(served.get("/queue")->status == 429);
  CHECK(served.get("/metrics")->status == 200);  // probes and metrics are never limited
  CHECK(served.get("/healthz")->status != 429);
  // Only the two accepted submissions are stored.
  served.cycle();
  CHECK(served.service().jobs("product", "", 10)->size() == 2);
}

TEST_CASE("Submissions, events, reads and cycles at once: every acknowledged job is kept, once",
          "[service][concurrency]") {
  Served served;
  constexpr int kThreads = 4, kEach = 60;
  std::atomic<int> acknowledged{0};
  std::vector<std::thread> clients;
  for (int t = 0; t < kThreads; ++t) {
    // Straight to the Service, as the HTTP workers call it: the race detector
    // then watches our locks and group commits, not httplib's own workers
    // (an uninstrumented library, whose synchronisation it cannot see).
    clients.emplace_back([&, t] {
      for (int i = 0; i < kEach; ++i) {
        runtime::JobRequest job;
        job.id = "c" + std::to_string(t) + "-" + std::to_string(i);
        job.account = t % 2 ? "product" : "exploration/ana";
        job.job_class = "train";
        job.submitted = served.now;
        if (served.service().submit(job, served.now)) ++acknowledged;
        if (i % 10 == 0) served.service().queue(0, 100);
      }
    });
  }
  for (int cycle = 0; cycle < 20; ++cycle) {
    served.cycle();
    served.now += 60;
    // Finish whatever runs, as an executor would, while the submissions go on.
    const auto running = served.service().jobs("", "running", 100);
    REQUIRE(running);
    for (const JobRecord& record : *running) {
      served.service().record_event(Event{"finished", record.request.id, "", std::nullopt}, served.now);
    }
  }
  for (std::thread& client : clients) client.join();
  served.cycle();
  CHECK(acknowledged == kThreads * kEach);
  std::set<std::string> ids;
  const auto all = served.service().jobs("", "", 1000);
  REQUIRE(all);
  for (const JobRecord& record : *all) ids.insert(record.request.id);
  CHECK(ids.size() == kThreads * kEach);
  served.reopen();
  const auto stored = served.service().jobs("", "", 1000);
  REQUIRE(stored);
  CHECK(stored->size() == kThreads * kEach);
}

TEST_CASE("The feed is pushed to a webhook in order, retried until delivered, from where it stopped", "[service]") {
  std::mutex mutex;
  std::vector<std::int64_t> seqs;
  std::vector<std::string> kinds;
  std::string authorization;
  std::atomic<int> answer{200};
  http::ServerOptions options;
  options.worker_threads = 2;
  options.max_body_bytes = 1 << 20;
  http::HttpServer receiver(options);
  receiver.route("POST", "/hook", [&](const http::Request& request) {
    if (answer == 200) {
      std::lock_guard lock(mutex);
      authorization = request.header("authorization");
      const json batch = json::parse(request.body);
      for (const auto& entry : batch.at("decisions")) {
        seqs.push_back(entry.at("seq"));
        kinds.push_back(entry.at("kind"));
      }
    }
    return http::Response{answer.load(), "text/plain", "", {}};
  });
  REQUIRE_FALSE(receiver.start("127.0.0.1:0"));
  const auto wait_for = [](const WebhookPusher& pusher, std::int64_t seq) {
    for (int i = 0; i < 100 && pusher.delivered() < seq; ++i) std::this_thread::sleep_for(50ms);
    return pusher.delivered();
  };

  Served served;
  auto target = parse_webhook_url("http://127.0.0.1:" + std::to_string(receiver.bound_port()) + "/hook");
  REQUIRE(target);
  target->token = "hook-token-0123456789";
  const std::string first = served.submit(train("product", 4));
  served.submit(train("platform", 4));
  served.cycle();  // two starts: entries 1 and 2
  {
    WebhookPusher pusher(served.service(), *target, {});
    pusher.poke();
    CHECK(wait_for(pusher, 2) == 2);
  }
  {
    std::lock_guard lock(mutex);
    CHECK(seqs == std::vector<std::int64_t>{1, 2});
    CHECK(kinds == std::vector<std::string>{"start", "start"});
    CHECK(authorization == "Bearer hook-token-0123456789");
  }
  CHECK(served.service().webhook_position() == 2);

  // The receiver fails for a while: the entry waits, then arrives once it answers 200.
  answer = 503;
  REQUIRE(served.remove("/jobs/" + first)->status == 200);  // entry 3: its stop
  {
    WebhookPusher pusher(served.service(), *target, {});
    pusher.poke();
    std::this_thread::sleep_for(300ms);
    CHECK(pusher.delivered() == 2);
    answer = 200;
    CHECK(wait_for(pusher, 3) == 3);  // the retry after the first backoff (1 s)
  }
  {
    std::lock_guard lock(mutex);
    CHECK(seqs == std::vector<std::int64_t>{1, 2, 3});
    CHECK(kinds.back() == "cancel");
  }
  served.reopen();
  CHECK(served.service().webhook_position() == 3);  // a restart goes on after it

  for (const std::string bad : {"https://example.com:443/x", "http://example.com/x", "http://h:0/x", "ftp://h:1/x",
                                "http://h:70000/x", "http://h:9/a b"}) {
    INFO(bad);
    CHECK_FALSE(parse_webhook_url(bad));
  }
  auto bare = parse_webhook_url("http://127.0.0.1:9000");
  REQUIRE(bare);
  CHECK(bare->path == "/");
}

TEST_CASE("A unified diff shows each change with its context", "[service]") {
  CHECK(support::unified_diff("a\nb\nc\n", "a\nb\nc\n") == "");
  CHECK(support::unified_diff("a\nb\nc\n", "a\nB\nc\n", 1) == "@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n");
  CHECK(support::unified_diff("", "x\n") == "@@ -0,0 +1,1 @@\n+x\n");
  std::string long_before, long_after;
  for (int i = 0; i < 100; ++i) long_before += std::to_string(i) + "\n";
  long_after = long_before;
  long_after.replace(long_after.find("50\n"), 3, "fifty\n");
  CHECK(support::unified_diff(long_before, long_after, 2) == "@@ -49,5 +49,5 @@\n 48\n 49\n-50\n+fifty\n 51\n 52\n");
  std::string many;
  for (int i = 0; i < 3000; ++i) many += "line " + std::to_string(i) + "\n";
  CHECK_FALSE(support::unified_diff(many, "").has_value());  // 3,000 lines removed: too different to show
}

}  // namespace allot::service
