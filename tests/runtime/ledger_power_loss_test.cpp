// Power loss, simulated exactly. A child process writes a planned sequence of
// charge batches to the ledger through a VFS shim that (1) journals, before
// every write and truncate, the bytes it replaces, and marks every sync, and
// (2) SIGKILLs the process at its N-th write or sync: inside a transaction, at
// a point chosen by N, not by timer luck. The parent then undoes every write
// that no sync made durable (what a power cut would lose), reopens the ledger
// and checks that every batch the child saw committed is there, whole, once.
//
// The test has power: with Durability::process_crash (synchronous=NORMAL, no
// fsync per commit) the same kills lose committed batches, and the test says so.
#include <catch2/catch.hpp>

#include <fcntl.h>
#include <sqlite3.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "allot/durable_ledger.h"
#include "temp_folder.h"

using allot::runtime::Charge;
using allot::runtime::Durability;
using allot::runtime::DurableLedger;
using allot::runtime::LedgerConfig;
using allot::runtime::ResourceUse;
using allot::runtime::Seconds;

namespace {

constexpr Seconds kStart = 1'796'083'200;  // 2026-12-01T00:00:00Z
constexpr Seconds kInterval = 900;
constexpr int kJobs = 6;
constexpr int kIntervals = 8;
constexpr std::size_t kBatch = 4;  // the plan is charged 4 charges a commit

std::vector<Charge> planned_charges() {
  std::vector<Charge> plan;
  for (int step = 0; step < kIntervals; ++step) {
    for (int job = 0; job < kJobs; ++job) {
      const Seconds from = kStart + step * kInterval;
      plan.push_back(Charge{fmt::format("program-{}/user-{}", job % 2, job % 3), fmt::format("job-{}", job), from,
                            from + kInterval, ResourceUse{"h100", 1.0 + job, 8, 64}});
    }
  }
  return plan;
}

// --- the VFS shim (runs in the child only) ----------------------------------------------

struct Shim {
  sqlite3_vfs vfs{};
  sqlite3_vfs* base = nullptr;
  sqlite3_io_methods methods{};
  int journal = -1;  // undo records, appended with write(2): they survive SIGKILL
  long calls = 0;    // writes and syncs so far
  long kill_at = 0;  // SIGKILL at this call (0: never)
};
Shim shim;

struct ShimFile {
  sqlite3_file base;
  sqlite3_file* real;  // the default VFS's file, allocated right after this struct
  char name[512];
};

sqlite3_file* real_of(sqlite3_file* file) { return reinterpret_cast<ShimFile*>(file)->real; }

void journal_bytes(const void* data, std::size_t size) {
  const char* bytes = static_cast<const char*>(data);
  while (size > 0) {
    const ssize_t n = ::write(shim.journal, bytes, size);
    if (n <= 0) _exit(7);
    bytes += n;
    size -= static_cast<std::size_t>(n);
  }
}

// A record: kind ('W' undo of a write or truncate, 'S' sync), the file's name,
// the file's size before, the offset, and the bytes that were there.
void journal_record(char kind, const char* name, std::int64_t old_size, std::int64_t offset, const std::string& old) {
  const std::uint32_t name_length = static_cast<std::uint32_t>(std::strlen(name));
  const std::uint32_t length = static_cast<std::uint32_t>(old.size());
  journal_bytes(&kind, 1);
  journal_bytes(&name_length, sizeof name_length);
  journal_bytes(name, name_length);
  journal_bytes(&old_size, sizeof old_size);
  journal_bytes(&offset, sizeof offset);
  journal_bytes(&length, sizeof length);
  journal_bytes(old.data(), old.size());
}

void count_call() {
  if (++shim.calls == shim.kill_at) ::kill(::getpid(), SIGKILL);
}

std::int64_t size_of(sqlite3_file* real) {
  sqlite3_int64 size = 0;
  real->pMethods->xFileSize(real, &size);
  return size;
}

// The bytes in [offset, offset + length) that exist now (a short read is cut).
std::string bytes_at(sqlite3_file* real, std::int64_t offset, std::int64_t length, std::int64_t size) {
  const std::int64_t end = std::min(offset + length, size);
  if (end <= offset) return {};
  std::string old(static_cast<std::size_t>(end - offset), '\0');
  real->pMethods->xRead(real, old.data(), static_cast<int>(old.size()), offset);
  return old;
}

int shim_write(sqlite3_file* file, const void* data, int amount, sqlite3_int64 offset) {
  count_call();
  sqlite3_file* real = real_of(file);
  const std::int64_t size = size_of(real);
  journal_record('W', reinterpret_cast<ShimFile*>(file)->name, size, offset, bytes_at(real, offset, amount, size));
  return real->pMethods->xWrite(real, data, amount, offset);
}

int shim_truncate(sqlite3_file* file, sqlite3_int64 new_size) {
  sqlite3_file* real = real_of(file);
  const std::int64_t size = size_of(real);
  journal_record('W', reinterpret_cast<ShimFile*>(file)->name, size, new_size,
                 bytes_at(real, new_size, size - new_size, size));
  return real->pMethods->xTruncate(real, new_size);
}

int shim_sync(sqlite3_file* file, int flags) {
  count_call();
  sqlite3_file* real = real_of(file);
  const int status = real->pMethods->xSync(real, flags);
  if (status == SQLITE_OK) journal_record('S', reinterpret_cast<ShimFile*>(file)->name, 0, 0, {});
  return status;
}

// Every other method passes through to the real file.
int shim_close(sqlite3_file* f) {
  sqlite3_file* real = real_of(f);
  return real->pMethods ? real->pMethods->xClose(real) : SQLITE_OK;
}
int shim_read(sqlite3_file* f, void* d, int n, sqlite3_int64 o) {
  return real_of(f)->pMethods->xRead(real_of(f), d, n, o);
}
int shim_file_size(sqlite3_file* f, sqlite3_int64* s) { return real_of(f)->pMethods->xFileSize(real_of(f), s); }
int shim_lock(sqlite3_file* f, int l) { return real_of(f)->pMethods->xLock(real_of(f), l); }
int shim_unlock(sqlite3_file* f, int l) { return real_of(f)->pMethods->xUnlock(real_of(f), l); }
int shim_check_lock(sqlite3_file* f, int* r) { return real_of(f)->pMethods->xCheckReservedLock(real_of(f), r); }
int shim_control(sqlite3_file* f, int op, void* a) { return real_of(f)->pMethods->xFileControl(real_of(f), op, a); }
int shim_sector(sqlite3_file* f) { return real_of(f)->pMethods->xSectorSize(real_of(f)); }
int shim_device(sqlite3_file* f) { return real_of(f)->pMethods->xDeviceCharacteristics(real_of(f)); }
int shim_shm_map(sqlite3_file* f, int i, int s, int e, void volatile** p) {
  return real_of(f)->pMethods->xShmMap(real_of(f), i, s, e, p);
}
int shim_shm_lock(sqlite3_file* f, int o, int n, int fl) {
  return real_of(f)->pMethods->xShmLock(real_of(f), o, n, fl);
}
void shim_shm_barrier(sqlite3_file* f) { real_of(f)->pMethods->xShmBarrier(real_of(f)); }
int shim_shm_unmap(sqlite3_file* f, int d) { return real_of(f)->pMethods->xShmUnmap(real_of(f), d); }

int shim_open(sqlite3_vfs*, sqlite3_filename name, sqlite3_file* file, int flags, int* out_flags) {
  auto* shim_file = reinterpret_cast<ShimFile*>(file);
  shim_file->real = reinterpret_cast<sqlite3_file*>(shim_file + 1);
  std::memset(shim_file->real, 0, static_cast<std::size_t>(shim.base->szOsFile));
  std::snprintf(shim_file->name, sizeof shim_file->name, "%s", name ? name : "");
  const int status = shim.base->xOpen(shim.base, name, shim_file->real, flags, out_flags);
  file->pMethods = status == SQLITE_OK ? &shim.methods : nullptr;
  return status;
}

int shim_delete(sqlite3_vfs*, const char* name, int sync_dir) { return shim.base->xDelete(shim.base, name, sync_dir); }
int shim_access(sqlite3_vfs*, const char* name, int flags, int* out) {
  return shim.base->xAccess(shim.base, name, flags, out);
}
int shim_full_path(sqlite3_vfs*, const char* name, int n, char* out) {
  return shim.base->xFullPathname(shim.base, name, n, out);
}
int shim_randomness(sqlite3_vfs*, int n, char* out) { return shim.base->xRandomness(shim.base, n, out); }
int shim_sleep(sqlite3_vfs*, int micros) { return shim.base->xSleep(shim.base, micros); }
int shim_time(sqlite3_vfs*, double* out) { return shim.base->xCurrentTime(shim.base, out); }
int shim_time64(sqlite3_vfs*, sqlite3_int64* out) { return shim.base->xCurrentTimeInt64(shim.base, out); }
int shim_last_error(sqlite3_vfs*, int n, char* out) { return shim.base->xGetLastError(shim.base, n, out); }

// Makes the shim the default VFS of this process.
void install_shim(int journal, long kill_at) {
  shim.base = sqlite3_vfs_find(nullptr);
  shim.journal = journal;
  shim.kill_at = kill_at;
  shim.methods = sqlite3_io_methods{2,
                                    shim_close,
                                    shim_read,
                                    shim_write,
                                    shim_truncate,
                                    shim_sync,
                                    shim_file_size,
                                    shim_lock,
                                    shim_unlock,
                                    shim_check_lock,
                                    shim_control,
                                    shim_sector,
                                    shim_device,
                                    shim_shm_map,
                                    shim_shm_lock,
                                    shim_shm_barrier,
                                    shim_shm_unmap,
                                    nullptr,
                                    nullptr};
  shim.vfs = *shim.base;
  shim.vfs.iVersion = 2;
  shim.vfs.szOsFile = static_cast<int>(sizeof(ShimFile)) + shim.base->szOsFile;
  shim.vfs.zName = "allot-power-loss";
  shim.vfs.pAppData = nullptr;
  shim.vfs.xOpen = shim_open;
  shim.vfs.xDelete = shim_delete;
  shim.vfs.xAccess = shim_access;
  shim.vfs.xFullPathname = shim_full_path;
  shim.vfs.xDlOpen = nullptr;
  shim.vfs.xDlError = nullptr;
  shim.vfs.xDlSym = nullptr;
  shim.vfs.xDlClose = nullptr;
  shim.vfs.xRandomness = shim_randomness;
  shim.vfs.xSleep = shim_sleep;
  shim.vfs.xCurrentTime = shim_time;
  shim.vfs.xGetLastError = shim_last_error;
  shim.vfs.xCurrentTimeInt64 = shim_time64;
  sqlite3_vfs_register(&shim.vfs, 1);
}

// --- the child and the power cut (the parent) -------------------------------------------

// Charges the plan in batches through the shim; reports each committed prefix,
// then, at the end, how many calls a whole run makes. Never returns.
[[noreturn]] void run_writer(const std::string& path, Durability durability, int journal, long kill_at, int report) {
  install_shim(journal, kill_at);
  auto opened = DurableLedger::open(path, LedgerConfig{}, durability);
  if (!opened) _exit(2);
  const std::vector<Charge> plan = planned_charges();
  for (std::size_t next = 0; next < plan.size(); next += kBatch) {
    if (!(*opened)->charge_batch(std::span<const Charge>(plan.data() + next, kBatch))) _exit(3);
    const std::int64_t committed = static_cast<std::int64_t>(next + kBatch);
    if (::write(report, &committed, sizeof committed) != sizeof committed) _exit(4);
  }
  const std::int64_t total = -shim.calls;  // negative: the call count, not a prefix
  if (::write(report, &total, sizeof total) != sizeof total) _exit(4);
  _exit(0);
}

struct Run {
  std::int64_t committed = 0;  // the longest prefix the child saw committed
  long calls = 0;              // a whole run's writes and syncs (when it was not killed)
  bool killed = false;
};

Run run_child(const std::string& path, const std::string& journal_path, Durability durability, long kill_at) {
  const int journal = ::open(journal_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  REQUIRE(journal >= 0);
  int pipe_fds[2];
  REQUIRE(::pipe(pipe_fds) == 0);
  const pid_t pid = ::fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    ::close(pipe_fds[0]);
    run_writer(path, durability, journal, kill_at, pipe_fds[1]);
  }
  ::close(pipe_fds[1]);
  ::close(journal);
  Run run;
  for (std::int64_t value = 0; ::read(pipe_fds[0], &value, sizeof value) == sizeof value;) {
    if (value < 0)
      run.calls = static_cast<long>(-value);
    else
      run.committed = value;
  }
  ::close(pipe_fds[0]);
  int status = 0;
  ::waitpid(pid, &status, 0);
  run.killed = WIFSIGNALED(status);
  if (!run.killed) REQUIRE((WIFEXITED(status) && WEXITSTATUS(status) == 0));
  return run;
}

// Undoes, file by file, every journalled write after that file's last sync,
// newest first: what the disk would hold after a power cut.
void cut_power(const std::string& journal_path) {
  struct Undo {
    std::int64_t old_size, offset;
    std::string old;
  };
  std::map<std::string, std::vector<Undo>> unsynced;
  const int journal = ::open(journal_path.c_str(), O_RDONLY | O_CLOEXEC);
  REQUIRE(journal >= 0);
  const auto take = [&](void* out, std::size_t size) {
    return ::read(journal, out, size) == static_cast<ssize_t>(size);
  };
  for (char kind = 0; take(&kind, 1);) {
    std::uint32_t name_length = 0, length = 0;
    std::int64_t old_size = 0, offset = 0;
    REQUIRE(take(&name_length, sizeof name_length));
    std::string name(name_length, '\0');
    REQUIRE(take(name.data(), name_length));
    REQUIRE(take(&old_size, sizeof old_size));
    REQUIRE(take(&offset, sizeof offset));
    REQUIRE(take(&length, sizeof length));
    std::string old(length, '\0');
    REQUIRE(take(old.data(), length));
    if (kind == 'S')
      unsynced[name].clear();
    else
      unsynced[name].push_back(Undo{old_size, offset, std::move(old)});
  }
  ::close(journal);
  for (auto& [name, undos] : unsynced) {
    const int file = ::open(name.c_str(), O_RDWR | O_CLOEXEC);
    if (file < 0) continue;
    for (auto undo = undos.rbegin(); undo != undos.rend(); ++undo) {
      if (!undo->old.empty())
        REQUIRE(::pwrite(file, undo->old.data(), undo->old.size(), undo->offset) ==
                static_cast<ssize_t>(undo->old.size()));
      REQUIRE(::ftruncate(file, undo->old_size) == 0);
    }
    ::close(file);
  }
}

// The prefix of the plan the ledger holds, after a power cut; fails the test
// if it holds anything but a prefix made of whole batches.
std::size_t stored_prefix(const std::string& path) {
  auto reopened = DurableLedger::open(path, LedgerConfig{});
  REQUIRE(reopened);
  const auto keys = (*reopened)->stored_keys();
  REQUIRE(keys);
  const std::set<std::pair<std::string, Seconds>> stored(keys->begin(), keys->end());
  CHECK(stored.size() == keys->size());  // nothing twice
  const std::vector<Charge> plan = planned_charges();
  std::size_t prefix = 0;
  while (prefix < plan.size() && stored.count({plan[prefix].job_id, plan[prefix].until}) == 1) ++prefix;
  CHECK(stored.size() == prefix);  // nothing beyond the prefix
  CHECK(prefix % kBatch == 0);     // batches commit whole
  return prefix;
}

void remove_ledger(const std::string& path) {
  for (const char* suffix : {"", "-wal", "-shm", "-journal"}) std::filesystem::remove(path + suffix);
}

// Kills a writer at each of about 80 calls spread over a whole run (every
// call, for short runs), cuts the power, and counts the runs that lost a batch
// the writer had seen committed.
int lost_commits(Durability durability, TempFolder& folder) {
  const std::string path = folder.file("ledger.db"), journal = folder.file("undo.journal");
  remove_ledger(path);
  const Run whole = run_child(path, journal, durability, 0);
  REQUIRE(whole.committed == static_cast<std::int64_t>(planned_charges().size()));
  REQUIRE(whole.calls > 20);
  const long step = std::max(1L, whole.calls / 80);
  int lost = 0, killed = 0;
  for (long kill_at = 1; kill_at <= whole.calls; kill_at += step) {
    INFO("killed at call " << kill_at << " of " << whole.calls);
    remove_ledger(path);
    const Run run = run_child(path, journal, durability, kill_at);
    killed += run.killed ? 1 : 0;
    cut_power(journal);
    std::filesystem::remove(path + "-shm");  // shared memory does not survive a power cut
    const std::size_t prefix = std::filesystem::exists(path) ? stored_prefix(path) : 0;
    CHECK(prefix <= static_cast<std::size_t>(run.committed) + kBatch);  // at most the batch being committed
    if (prefix < static_cast<std::size_t>(run.committed)) ++lost;
  }
  CHECK(killed > 10);
  return lost;
}

}  // namespace

TEST_CASE("with power-loss durability, a power cut inside any write or sync loses no committed batch",
          "[runtime][ledger][durable][crash]") {
  TempFolder folder("allot-ledger-power");
  CHECK(lost_commits(Durability::power_loss, folder) == 0);
}

TEST_CASE("without an fsync per commit, the same power cuts lose committed batches: the test can fail",
          "[runtime][ledger][durable][crash]") {
  TempFolder folder("allot-ledger-power");
  CHECK(lost_commits(Durability::process_crash, folder) > 0);
}
