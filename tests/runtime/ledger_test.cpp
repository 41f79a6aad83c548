// The rolling usage ledger: what a charge costs in the policy's unit, how
// usage leaves the window and decays, parents summing their children, and
// replays that count nothing.
#include <catch2/catch.hpp>

#include <stdexcept>

#include "allot/ledger.h"

using allot::runtime::Charge;
using allot::runtime::config_problem;
using allot::runtime::LedgerConfig;
using allot::runtime::ResourceUse;
using allot::runtime::RollingLedger;
using allot::runtime::Seconds;
using allot::runtime::UnitWeights;

namespace {

constexpr Seconds kHour = 3600;
constexpr Seconds kDay = 24 * kHour;
constexpr Seconds kStart = 1'796'083'200;  // 2026-12-01T00:00:00Z

LedgerConfig gpu_hours() {
  LedgerConfig config;
  config.unit.gpu_type_weights = {{"h100", 1.0}, {"b300", 2.5}};
  return config;
}

Charge gpus(const char* account, const char* job, Seconds from, Seconds until, double count,
            const char* type = "h100") {
  return Charge{account, job, from, until, ResourceUse{type, count, 0, 0}};
}

}  // namespace

TEST_CASE("a charge costs GPU-hours weighted by GPU type", "[runtime][ledger]") {
  RollingLedger ledger(gpu_hours());
  CHECK(ledger.charge(gpus("product", "j1", kStart, kStart + kHour, 8)) == 8.0);
  CHECK(ledger.charge(gpus("product", "j2", kStart, kStart + kHour / 2, 2, "b300")) == 2.5);
  CHECK(ledger.charge(gpus("product", "j3", kStart, kStart + kHour, 1, "l40s")) == 1.0);  // unlisted: 1.0
  CHECK(ledger.usage("product", kStart + kHour) == 11.5);
}

TEST_CASE("a dominant-resource unit charges the largest weighted fraction held, in GPU-equivalents",
          "[runtime][ledger]") {
  LedgerConfig config;
  config.unit.kind = UnitWeights::Kind::dominant_resource;
  config.unit.total_gpus = 8;
  config.unit.total_cpus = 96;
  config.unit.total_memory_gib = 1024;
  RollingLedger ledger(config);
  // One GPU but every CPU: the job holds the whole cluster's CPU, worth 8 GPUs.
  CHECK(ledger.charge(Charge{"etl", "j1", kStart, kStart + kHour, {"h100", 1, 96, 64}}) == 8.0);
  // A GPU-only job costs exactly its GPU-hours.
  CHECK(ledger.charge(Charge{"train", "j2", kStart, kStart + kHour, {"h100", 4, 0, 0}}) == 4.0);
}

TEST_CASE("parents are the sum of their children, and \"\" is the whole cluster", "[runtime][ledger]") {
  RollingLedger ledger(gpu_hours());
  ledger.charge(gpus("exploration/ana", "a1", kStart, kStart + kHour, 3));
  ledger.charge(gpus("exploration/ben", "b1", kStart, kStart + kHour, 1));
  ledger.charge(gpus("product", "p1", kStart, kStart + kHour, 4));
  const Seconds now = kStart + kHour;
  CHECK(ledger.usage("exploration", now) == 4.0);
  CHECK(ledger.usage("exploration/ana", now) == 3.0);
  CHECK(ledger.usage("explo", now) == 0.0);  // a prefix of a name is not a parent
  CHECK(ledger.usage("", now) == 8.0);
  const auto all = ledger.usage_by_account(now);
  CHECK(all ==
        std::map<std::string, double>{
            {"", 8.0}, {"exploration", 4.0}, {"exploration/ana", 3.0}, {"exploration/ben", 1.0}, {"product", 4.0}});
}

TEST_CASE("usage leaves the rolling window a whole bucket at a time", "[runtime][ledger]") {
  LedgerConfig config = gpu_hours();
  config.window = 7 * kDay;
  config.bucket_width = kHour;
  RollingLedger ledger(config);
  ledger.charge(gpus("product", "j1", kStart, kStart + 2 * kHour, 8));  // two buckets of 8
  CHECK(ledger.usage("product", kStart + 7 * kDay - 1) == 16.0);
  CHECK(ledger.usage("product", kStart + 7 * kDay) == 8.0);  // the first hour left the window
  CHECK(ledger.usage("product", kStart + 7 * kDay + kHour) == 0.0);
}

TEST_CASE("a charge spanning buckets is split by the time in each", "[runtime][ledger]") {
  LedgerConfig config = gpu_hours();
  config.window = 4 * kHour;
  RollingLedger ledger(config);
  ledger.charge(gpus("product", "j1", kStart + kHour / 2, kStart + 3 * kHour / 2, 2));  // half an hour in each
  CHECK(ledger.usage("product", kStart + kHour) == 2.0);
  CHECK(ledger.usage("product", kStart + 4 * kHour) == 1.0);
}

TEST_CASE("a charge longer than the window counts only the window's part", "[runtime][ledger]") {
  LedgerConfig config = gpu_hours();
  config.window = 4 * kHour;
  RollingLedger ledger(config);
  ledger.charge(gpus("product", "j1", kStart, kStart + 10 * kHour, 1));
  CHECK(ledger.usage("product", kStart + 10 * kHour - 1) == 4.0);
}

TEST_CASE("with a half-life, usage decays by half every half-life", "[runtime][ledger]") {
  LedgerConfig config = gpu_hours();
  config.half_life_seconds = static_cast<double>(kDay);
  RollingLedger ledger(config);
  ledger.charge(gpus("product", "j1", kStart, kStart + kHour, 8));  // bucket middle: kStart + 30 min
  CHECK(ledger.usage("product", kStart + kHour / 2 + kDay) == 4.0);
  CHECK(ledger.usage("product", kStart + kHour / 2 + 2 * kDay) == 2.0);
}

TEST_CASE("charges are idempotent: a replay or an overlap counts only what is new", "[runtime][ledger]") {
  RollingLedger ledger(gpu_hours());
  const Charge first = gpus("product", "j1", kStart, kStart + kHour, 4);
  CHECK(ledger.charge(first) == 4.0);
  CHECK(ledger.charge(first) == 0.0);  // the same key again
  CHECK(ledger.charged_until("j1") == kStart + kHour);
  // A driver restarting from the job's start recounts nothing before the mark.
  CHECK(ledger.charge(gpus("product", "j1", kStart, kStart + 2 * kHour, 4)) == 4.0);
  CHECK(ledger.charge(gpus("product", "j1", kStart + kHour / 2, kStart + kHour, 4)) == 0.0);
  CHECK(ledger.usage("product", kStart + 2 * kHour) == 8.0);
  CHECK_FALSE(ledger.charged_until("j2"));
}

TEST_CASE("a ledger refuses a config it cannot honour", "[runtime][ledger]") {
  LedgerConfig config = gpu_hours();
  config.bucket_width = 5 * kHour;
  CHECK(config_problem(config) == "the window (604800s) must be a whole number of buckets (18000s)");
  CHECK_THROWS_AS(RollingLedger(config), std::invalid_argument);
  config = gpu_hours();
  config.half_life_seconds = 0.0;
  CHECK(config_problem(config) == "the half-life must be longer than 0");
  config = gpu_hours();
  config.unit.kind = UnitWeights::Kind::dominant_resource;
  CHECK(config_problem(config) == "a dominant-resource unit needs the cluster's GPU, CPU and memory totals");
  CHECK_FALSE(config_problem(gpu_hours()));
}
