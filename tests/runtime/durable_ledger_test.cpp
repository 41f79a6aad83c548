// The durable ledger: what is committed survives a restart, replays count
// nothing, and a file that is not a ledger is an error value.
#include <catch2/catch.hpp>

#include <sqlite3.h>

#include <filesystem>
#include <fstream>

#include "allot/durable_ledger.h"
#include "temp_folder.h"

using allot::runtime::Charge;
using allot::runtime::DurableLedger;
using allot::runtime::LedgerConfig;
using allot::runtime::ResourceUse;
using allot::runtime::Seconds;

namespace {

constexpr Seconds kHour = 3600;
constexpr Seconds kStart = 1'796'083'200;  // 2026-12-01T00:00:00Z

Charge gpus(const char* account, const char* job, Seconds from, Seconds until, double count) {
  return Charge{account, job, from, until, ResourceUse{"h100", count, 16, 128}};
}

std::unique_ptr<DurableLedger> open_ledger(const std::string& path, LedgerConfig config = {}) {
  auto ledger = DurableLedger::open(path, config);
  INFO((ledger ? "" : ledger.error().message));
  REQUIRE(ledger);
  return std::move(*ledger);
}

}  // namespace

TEST_CASE("a reopened ledger has the usage it had, rebuilt from the database", "[runtime][ledger][durable]") {
  TempFolder folder("allot-ledger");
  const std::string path = folder.file("ledger.db");
  {
    auto ledger = open_ledger(path);
    CHECK(*ledger->charge(gpus("exploration/ana", "a1", kStart, kStart + kHour, 6)) == 6.0);
    const std::vector<Charge> batch = {gpus("product", "p1", kStart, kStart + kHour, 2),
                                       gpus("exploration/ana", "a1", kStart + kHour, kStart + 2 * kHour, 6)};
    CHECK(*ledger->charge_batch(batch) == 8.0);
    CHECK(std::filesystem::exists(path + "-wal"));  // write-ahead logging is on
  }
  auto reopened = open_ledger(path);
  const Seconds now = kStart + 2 * kHour;
  CHECK(reopened->ledger().usage("exploration", now) == 12.0);
  CHECK(reopened->ledger().usage("", now) == 14.0);
  CHECK(reopened->ledger().charged_until("a1") == kStart + 2 * kHour);
  CHECK(reopened->stored_keys()->size() == 3);
}

TEST_CASE("after a restart, replaying charges counts nothing twice", "[runtime][ledger][durable]") {
  TempFolder folder("allot-ledger");
  const std::string path = folder.file("ledger.db");
  const Charge first = gpus("product", "p1", kStart, kStart + kHour, 4);
  open_ledger(path)->charge(first);
  auto reopened = open_ledger(path);
  CHECK(*reopened->charge(first) == 0.0);
  // The driver recharges the job from its start: only the new hour counts.
  CHECK(*reopened->charge(gpus("product", "p1", kStart, kStart + 2 * kHour, 4)) == 4.0);
  CHECK(reopened->ledger().usage("product", kStart + 2 * kHour) == 8.0);
  CHECK(reopened->stored_keys()->size() == 2);
}

TEST_CASE("a batch counts overlapping charges of one job once", "[runtime][ledger][durable]") {
  TempFolder folder("allot-ledger");
  auto ledger = open_ledger(folder.file("ledger.db"));
  const std::vector<Charge> batch = {gpus("product", "p1", kStart, kStart + kHour, 2),
                                     gpus("product", "p1", kStart, kStart + kHour, 2),
                                     gpus("product", "p1", kStart + kHour / 2, kStart + 2 * kHour, 2)};
  CHECK(*ledger->charge_batch(batch) == 4.0);
  CHECK(ledger->ledger().usage("product", kStart + 2 * kHour) == 4.0);
  const auto keys = ledger->stored_keys();
  CHECK(*keys == std::vector<std::pair<std::string, Seconds>>{{"p1", kStart + kHour}, {"p1", kStart + 2 * kHour}});
}

TEST_CASE("compaction deletes only intervals that left the window", "[runtime][ledger][durable]") {
  TempFolder folder("allot-ledger");
  const std::string path = folder.file("ledger.db");
  auto ledger = open_ledger(path);
  const Seconds now = kStart + 10 * 24 * kHour;
  ledger->charge(gpus("product", "old", kStart, kStart + kHour, 8));
  ledger->charge(gpus("product", "new", now - kHour, now, 8));
  const double before = ledger->ledger().usage("product", now);
  CHECK(*ledger->compact(now) == 1);
  CHECK(ledger->ledger().usage("product", now) == before);
  CHECK(open_ledger(path)->ledger().usage("product", now) == before);
}

TEST_CASE("a file that is not a ledger is an error naming it", "[runtime][ledger][durable]") {
  TempFolder folder("allot-ledger");
  const std::string path = folder.file("notes.txt");
  std::ofstream(path) << "these are not the rows you are looking for, padded to be longer than a header.......\n";
  auto ledger = DurableLedger::open(path, LedgerConfig{});
  REQUIRE_FALSE(ledger);
  CHECK(ledger.error().message == "ledger `" + path + "`: file is not a database");
}

TEST_CASE("a ledger row no adapter could have written is refused on load, naming it", "[runtime][ledger][durable]") {
  TempFolder folder("allot-ledger");
  const std::string path = folder.file("ledger.db");
  const auto edit = [&](const char* sql) {
    sqlite3* db = nullptr;
    REQUIRE(sqlite3_open(path.c_str(), &db) == SQLITE_OK);
    CHECK(sqlite3_exec(db, sql, nullptr, nullptr, nullptr) == SQLITE_OK);
    sqlite3_close(db);
  };
  const std::vector<std::pair<const char*, const char*>> damage = {
      {"UPDATE charges SET gpus = -1e308",
       "its resources (-1e+308 GPUs, 16 CPUs, 128 GiB) are not between 0 and 1000000"},
      {"UPDATE charges SET cpus = 1e400", "its resources (2 GPUs, inf CPUs, 128 GiB) are not between 0 and 1000000"},
      {"UPDATE charges SET charged_from = charged_until", "is empty or outside 1970 to 9999"},
      {"UPDATE charges SET charged_until = 9223372036854775807", "is empty or outside 1970 to 9999"},
      {"UPDATE charges SET account = ''", "it has no account"},
  };
  for (const auto& [sql, problem] : damage) {
    INFO(sql);
    std::filesystem::remove(path);
    {
      auto ledger = open_ledger(path);
      REQUIRE(ledger->charge(gpus("exploration/ana", "j1", kStart, kStart + kHour, 2)));
    }
    edit(sql);
    auto reopened = DurableLedger::open(path, LedgerConfig{});
    REQUIRE_FALSE(reopened);
    CHECK_THAT(reopened.error().message, Catch::Contains("charge row 1 (job `j1`) cannot be right"));
    CHECK_THAT(reopened.error().message, Catch::Contains(problem));
  }
}

TEST_CASE("a ledger with an impossible config is not opened", "[runtime][ledger][durable]") {
  TempFolder folder("allot-ledger");
  LedgerConfig config;
  config.bucket_width = 0;
  auto ledger = DurableLedger::open(folder.file("ledger.db"), config);
  REQUIRE_FALSE(ledger);
  CHECK(ledger.error().message ==
        "ledger `" + folder.file("ledger.db") + "`: the bucket width must be longer than 0 seconds");
}

TEST_CASE("time held without progress is counted as usage and apart, and survives a reopen",
          "[runtime][ledger][durable]") {
  TempFolder folder("allot-ledger");
  const std::string path = folder.file("ledger.db");
  Charge stalled = gpus("exploration/ana", "a1", kStart + kHour, kStart + 2 * kHour, 4);
  stalled.without_progress = true;
  {
    auto ledger = open_ledger(path);
    const std::vector<Charge> batch = {gpus("exploration/ana", "a1", kStart, kStart + kHour, 4), stalled,
                                       gpus("product", "p1", kStart, kStart + 2 * kHour, 1)};
    CHECK(*ledger->charge_batch(batch) == 10.0);
    CHECK(*ledger->charge(stalled) == 0.0);  // a replay counts nothing, apart either
  }
  auto reopened = open_ledger(path);
  const Seconds now = kStart + 2 * kHour;
  CHECK(reopened->ledger().usage("exploration", now) == 8.0);
  CHECK(reopened->without_progress().usage("exploration", now) == 4.0);
  CHECK(reopened->without_progress().usage("product", now) == 0.0);
  CHECK(reopened->without_progress().usage("", now) == 4.0);
}

TEST_CASE("a ledger of schema 1 is upgraded in place, its rows held with progress", "[runtime][ledger][durable]") {
  TempFolder folder("allot-ledger");
  const std::string path = folder.file("ledger.db");
  {
    sqlite3* db = nullptr;
    REQUIRE(sqlite3_open(path.c_str(), &db) == SQLITE_OK);
    const char* version_1 = R"sql(
      CREATE TABLE charges (job_id TEXT NOT NULL, charged_until INTEGER NOT NULL, charged_from INTEGER NOT NULL,
        account TEXT NOT NULL, gpu_type TEXT NOT NULL, gpus REAL NOT NULL, cpus REAL NOT NULL,
        memory_gib REAL NOT NULL, amount REAL NOT NULL, UNIQUE (job_id, charged_until));
      INSERT INTO charges VALUES ('a1', 1796086800, 1796083200, 'exploration/ana', 'h100', 2, 16, 128, 2);
      PRAGMA user_version = 1;)sql";
    CHECK(sqlite3_exec(db, version_1, nullptr, nullptr, nullptr) == SQLITE_OK);
    sqlite3_close(db);
  }
  auto ledger = open_ledger(path);
  const Seconds now = kStart + kHour;
  CHECK(ledger->ledger().usage("exploration/ana", now) == 2.0);
  CHECK(ledger->without_progress().usage("", now) == 0.0);
  Charge stalled = gpus("exploration/ana", "a1", kStart + kHour, kStart + 2 * kHour, 2);
  stalled.without_progress = true;
  CHECK(*ledger->charge(stalled) == 2.0);
  auto reopened = open_ledger(path);
  CHECK(reopened->without_progress().usage("exploration/ana", kStart + 2 * kHour) == 2.0);
  CHECK(reopened->stored_keys()->size() == 2);
}
