// The registry's text exposition (metrics/include/allot/metrics.h): golden
// text per kind, escaping, numbers, and the names refused at registration.
#include <catch2/catch.hpp>

#include <cmath>
#include <functional>
#include <limits>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "allot/metrics.h"
#include "text_format.h"

using allot::metrics::Registry;

TEST_CASE("a counter family renders one sample per label value, in label order", "[metrics]") {
  Registry registry;
  auto& actions = registry.counter_family("allot_slurm_actions_total", "Actions taken in Slurm.", {"kind"});
  actions.with({"requeue"}).inc();
  actions.with({"priority"}).inc(41);
  actions.with({"priority"}).inc();
  actions.with({"signal"});  // made, never incremented: 0
  CHECK(registry.exposition() ==
        "# HELP allot_slurm_actions_total Actions taken in Slurm.\n"
        "# TYPE allot_slurm_actions_total counter\n"
        "allot_slurm_actions_total{kind=\"priority\"} 42\n"
        "allot_slurm_actions_total{kind=\"requeue\"} 1\n"
        "allot_slurm_actions_total{kind=\"signal\"} 0\n");
}

TEST_CASE("families render in name order, and a gauge is set and added to", "[metrics]") {
  Registry registry;
  registry.gauge("allot_queue_jobs", "Jobs waiting.").set(7);
  auto& shares = registry.gauge_family("allot_account_share", "Share in force.", {"account", "cluster"});
  shares.with({"research", "c1"}).set(0.25);
  shares.with({"research", "c1"}).add(0.5);
  shares.with({"product", "c1"}).add(-1.5);
  CHECK(registry.exposition() ==
        "# HELP allot_account_share Share in force.\n"
        "# TYPE allot_account_share gauge\n"
        "allot_account_share{account=\"product\",cluster=\"c1\"} -1.5\n"
        "allot_account_share{account=\"research\",cluster=\"c1\"} 0.75\n"
        "# HELP allot_queue_jobs Jobs waiting.\n"
        "# TYPE allot_queue_jobs gauge\n"
        "allot_queue_jobs 7\n");
}

TEST_CASE("a histogram's buckets are cumulative and +Inf equals _count", "[metrics]") {
  Registry registry;
  auto& pass = registry.histogram("allot_pass_seconds", "Pass duration.", {0.5, 1, 5});
  for (double seconds : {0.25, 0.5, 0.75, 3.0, 10.0}) pass.observe(seconds);  // 0.5 counts in le="0.5"
  CHECK(registry.exposition() ==
        "# HELP allot_pass_seconds Pass duration.\n"
        "# TYPE allot_pass_seconds histogram\n"
        "allot_pass_seconds_bucket{le=\"0.5\"} 2\n"
        "allot_pass_seconds_bucket{le=\"1\"} 3\n"
        "allot_pass_seconds_bucket{le=\"5\"} 4\n"
        "allot_pass_seconds_bucket{le=\"+Inf\"} 5\n"
        "allot_pass_seconds_sum 14.5\n"
        "allot_pass_seconds_count 5\n");
}

TEST_CASE("a labelled histogram puts le after its own labels", "[metrics]") {
  Registry registry;
  auto& family = registry.histogram_family("allot_rpc_seconds", "RPC duration.", {1}, {"call"});
  family.with({"read_jobs"}).observe(2);
  CHECK(registry.exposition() ==
        "# HELP allot_rpc_seconds RPC duration.\n"
        "# TYPE allot_rpc_seconds histogram\n"
        "allot_rpc_seconds_bucket{call=\"read_jobs\",le=\"1\"} 0\n"
        "allot_rpc_seconds_bucket{call=\"read_jobs\",le=\"+Inf\"} 1\n"
        "allot_rpc_seconds_sum{call=\"read_jobs\"} 2\n"
        "allot_rpc_seconds_count{call=\"read_jobs\"} 1\n");
}

TEST_CASE("label values escape backslash, double quote and newline, and HELP backslash and newline", "[metrics]") {
  Registry registry;
  registry.counter_family("allot_errors_total", "Errors, by \"message\":\n one \\ line.", {"message"})
      .with({"path C:\\x \"quoted\"\nnext"})
      .inc();
  CHECK(registry.exposition() ==
        "# HELP allot_errors_total Errors, by \"message\":\\n one \\\\ line.\n"
        "# TYPE allot_errors_total counter\n"
        "allot_errors_total{message=\"path C:\\\\x \\\"quoted\\\"\\nnext\"} 1\n");
}

TEST_CASE("numbers are written so Prometheus parses them back exactly", "[metrics]") {
  using allot::metrics::format_value;
  const double infinity = std::numeric_limits<double>::infinity();
  const std::vector<std::pair<double, std::string>> cases = {
      {0, "0"},
      {1, "1"},
      {-3, "-3"},
      {0.1, "0.1"},
      {1.0 / 3, "0.3333333333333333"},
      {2.5e-7, "2.5e-07"},
      {1e16, "10000000000000000"},  // integral: no exponent
      {123456789012345678.0, "123456789012345680"},
      {1e20, "1e+20"},  // beyond 64-bit integers
      {infinity, "+Inf"},
      {-infinity, "-Inf"},
      {std::nan(""), "NaN"},
  };
  for (const auto& [value, text] : cases) {
    INFO(text);
    CHECK(format_value(value) == text);
  }
}

TEST_CASE("bad names and conventions are refused at registration, naming the culprit", "[metrics]") {
  struct Case {
    std::function<void(Registry&)> register_it;
    std::string message;
  };
  const std::vector<Case> cases = {
      {[](Registry& r) { r.counter("9lives_total", "h"); }, "metric name `9lives_total` is not"},
      {[](Registry& r) { r.counter("bad-name_total", "h"); }, "metric name `bad-name_total` is not"},
      {[](Registry& r) { r.gauge("", "h"); }, "metric name `` is not"},
      {[](Registry& r) { r.counter("allot_passes", "h"); }, "counter `allot_passes` must be named `*_total`"},
      {[](Registry& r) { r.gauge("allot_jobs_total", "h"); }, "gauge `allot_jobs_total` may not end in `_total`"},
      {[](Registry& r) { r.gauge("allot_jobs_count", "h"); }, "`allot_jobs_count` may not end in `_count`"},
      {[](Registry& r) { r.histogram("allot_pass_seconds_bucket", "h", {}); }, "may not end in `_bucket`"},
      {[](Registry& r) { r.gauge("allot_jobs", ""); }, "metric `allot_jobs` has no help text"},
      {[](Registry& r) { r.gauge_family("allot_jobs", "h", {"bad-label"}); }, "label name `bad-label` of `allot_jobs`"},
      {[](Registry& r) { r.gauge_family("allot_jobs", "h", {"0kind"}); }, "label name `0kind` of `allot_jobs`"},
      {[](Registry& r) { r.gauge_family("allot_jobs", "h", {"__name"}); },
       "label name `__name` of `allot_jobs` is reserved"},
      {[](Registry& r) {
         r.gauge_family("allot_jobs", "h", {"a", "b", "a"});
       },
       "label name `a` of `allot_jobs` repeats"},
      {[](Registry& r) { r.histogram_family("allot_seconds", "h", {1}, {"le"}); }, "may not have a label `le`"},
      {[](Registry& r) {
         r.histogram("allot_seconds", "h", {1, 1});
       },
       "strictly increasing"},
      {[](Registry& r) {
         r.histogram("allot_seconds", "h", {2, 1});
       },
       "strictly increasing"},
      {[](Registry& r) {
         r.histogram("allot_seconds", "h", {1, std::nan("")});
       },
       "must be finite"},
      {[](Registry& r) {
         r.histogram("allot_seconds", "h", {1, HUGE_VAL});
       },
       "must be finite"},
      {[](Registry& r) { r.gauge("allot_jobs", "h"), r.gauge("allot_jobs", "again"); },
       "`allot_jobs` is registered twice"},
      {[](Registry& r) {
         r.gauge_family("allot_jobs", "h", {"a", "b"}).with({"x"});
       },
       "has 2 labels, given 1 values"},
      {[](Registry& r) { r.counter("allot_passes_total", "h").inc(-1); }, "a counter cannot grow by -1"},
      {[](Registry& r) { r.counter("allot_passes_total", "h").inc(std::nan("")); }, "a counter cannot grow by nan"},
  };
  for (const Case& c : cases) {
    INFO(c.message);
    Registry registry;
    CHECK_THROWS_WITH(c.register_it(registry), Catch::Contains(c.message));
  }
}

TEST_CASE("names Prometheus allows are accepted, colons in metric names included", "[metrics]") {
  Registry registry;
  CHECK_NOTHROW(registry.counter("job:allot_passes:rate_total", "h"));
  CHECK_NOTHROW(registry.gauge_family("_private", "h", {"_x", "Camel1"}));
}

TEST_CASE("updates from many threads all count", "[metrics]") {
  Registry registry;
  auto& counter = registry.counter("allot_events_total", "h");
  auto& histogram = registry.histogram("allot_event_seconds", "h", {1});
  auto& family = registry.gauge_family("allot_level", "h", {"thread"});
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 10000; ++i) {
        counter.inc();
        histogram.observe(i % 2 == 0 ? 0.5 : 2);
        family.with({std::to_string(t % 2)}).add(1);
        if (i % 1000 == 0) (void)registry.exposition();  // rendering while others update
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  CHECK(counter.value() == 40000);
  const auto reading = histogram.read();
  CHECK(reading.count == 40000);
  CHECK(reading.bucket_counts == std::vector<std::uint64_t>{20000, 20000});
  CHECK(family.with({"0"}).value() + family.with({"1"}).value() == 40000);
}
