// libFuzzer harness for every reader of operator and planner input beyond the
// policy front end: state snapshots, inventories, trace CSVs, replay maps,
// Slurm mapping files, sacctmgr dumps, the SQLite ledger and `allot serve`'s
// job bodies (POST /jobs) and job records. The first byte
// picks the reader; the rest is the file. Whatever the bytes, a reader returns
// a value or an error naming the file (never crashes, hangs or throws), every
// error is printable, and what the snapshot writer writes reads back the same.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <string_view>

#include "allot/durable_ledger.h"
#include "allot/inventory.h"
#include "allot/policy_test.h"
#include "allot/service.h"
#include "allot/simulator.h"
#include "allot/slurm.h"
#include "allot/slurm_import.h"
#include "allot/snapshot.h"
#include "job_json.h"

namespace {

[[noreturn]] void fail(const char* what, const std::string& detail) {
  std::fprintf(stderr, "fuzz_inputs: %s\n%s\n", what, detail.c_str());
  std::abort();
}

// An error message reaches a terminal: no raw control bytes in it.
void check_printable(const std::string& message) {
  for (const char c : message) {
    const auto byte = static_cast<unsigned char>(c);
    if ((byte < 0x20 && byte != '\t' && byte != '\n') || byte == 0x7F) fail("control byte in an error", message);
  }
}

void snapshot(std::string_view text) {
  auto first = allot::runtime::parse_snapshot(text, "fuzz.toml");
  if (!first) return check_printable(first.error().to_string());
  // Written, read back and written again: the same bytes (docs/STATE.md).
  const std::string written = allot::runtime::snapshot_text(*first, "fuzz.toml");
  auto second = allot::runtime::parse_snapshot(written, "fuzz.toml");
  if (!second) fail("a written snapshot does not read back", second.error().to_string() + "\n" + written);
  if (allot::runtime::snapshot_text(*second, "fuzz.toml") != written) fail("snapshot text is not stable", written);
}

void inventory(std::string_view text) {
  auto read = allot::runtime::parse_inventory(text, "fuzz.toml");
  if (!read) return check_printable(read.error().to_string());
  if (read->total_gpus() < 0) fail("negative GPU total", std::to_string(read->total_gpus()));
}

void trace(std::string_view text) {
  auto rows = allot::simulator::parse_trace(text, "fuzz.csv");
  if (!rows) check_printable(rows.error().to_string());
}

void trace_map(std::string_view text) {
  auto map = allot::simulator::parse_trace_map(text, "fuzz.toml");
  if (!map) check_printable(map.error().to_string());
}

void job_map(std::string_view text) {
  auto map = allot::slurm::parse_job_map(std::string(text), "fuzz.toml");
  if (!map) check_printable(map.error().to_string());
}

void dump(std::string_view text) {
  auto imported = allot::slurm::import_sacctmgr_dump(text, "fuzz.dump", {});
  if (!imported) check_printable(imported.error().message);
}

// The ledger loader on a database file of these bytes: refused with a reason,
// or opened with every row valid.
void ledger(std::string_view bytes) {
  static const std::string path = "/tmp/allot-fuzz-ledger-" + std::to_string(::getpid()) + ".db";
  for (const char* suffix : {"", "-wal", "-shm", "-journal"}) std::remove((path + suffix).c_str());
  std::ofstream(path, std::ios::binary).write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  auto opened = allot::runtime::DurableLedger::open(path, allot::runtime::LedgerConfig{});
  if (!opened) check_printable(opened.error().message);
}

// A POST /jobs body: refused with a printable reason naming a field, or read
// into a job whose JSON reads back into the same job; and the store's record
// of it reads back the same too.
void serve_job(std::string_view text) {
  const nlohmann::json body = nlohmann::json::parse(text, nullptr, false);
  if (body.is_discarded()) return;
  constexpr allot::runtime::Seconds kNow = 1'796'083'200;  // 2026-12-01
  auto job = allot::service::job_from_json(body, kNow);
  // Refused: the answer's JSON can always be written, as the API writes it.
  if (!job)
    return (void)allot::service::error_json(job.error()).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  const std::string written = allot::service::job_json(*job).dump();
  auto again = allot::service::job_from_json(nlohmann::json::parse(written), kNow);
  if (!again) fail("a written job does not read back", again.error().message + "\n" + written);
  if (allot::service::job_json(*again).dump() != written) fail("job JSON is not stable", written);
  if (job->id.empty()) return;  // the service names it before storing it
  allot::service::JobRecord record;
  record.request = *job;
  const allot::runtime::Inventory none;
  auto stored = allot::service::record_from_text(allot::service::record_text(record, none), 1, none);
  if (!stored) fail("a job record does not read back", stored.error());
  if (allot::service::job_json(stored->request).dump() != written) fail("a job record changes the job", written);
}

// A policy test file (docs/TESTING.md): refused with a printable reason, or read.
void policy_test(std::string_view text) {
  auto test = allot::policytest::parse_test_file(text, "fuzz_test.toml");
  if (!test) check_printable(test.error().to_string());
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const std::string_view text(reinterpret_cast<const char*>(data) + 1, size - 1);
  switch (data[0] % 9) {
    case 0:
      snapshot(text);
      break;
    case 1:
      inventory(text);
      break;
    case 2:
      trace(text);
      break;
    case 3:
      trace_map(text);
      break;
    case 4:
      job_map(text);
      break;
    case 5:
      dump(text);
      break;
    case 6:
      ledger(text);
      break;
    case 8:
      policy_test(text);
      break;
    default:
      serve_job(text);
      break;
  }
  return 0;
}
