// Opening an adapter: its state file, locked against a second adapter (two
// writers would each charge from their own marks), or a private copy of it
// for a dry run so nothing the operator keeps is written.
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

#include <fmt/format.h>

#include "adapter_state.h"
#include "pass.h"

namespace allot::slurm {
namespace {

// Takes an exclusive lock on the database file itself without waiting, so no
// second adapter opens it however it is named (another path, a symlink, a hard
// link: the lock belongs to the file, flock(2)). SQLite's own locks are
// fcntl(2) locks, which flock does not touch. A missing file is created here
// (SQLite initialises an empty one); an existing empty file is refused, since
// it is a ledger that lost its contents, not a new one.
Expected<int, std::string> lock_state(const std::string& path) {
  bool created = false;
  int fd = ::open(path.c_str(), O_RDWR | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
  if (fd < 0 && errno == ENOENT) {
    fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    created = fd >= 0;
  }
  if (fd < 0) return unexpected(fmt::format("cannot open the ledger `{}`: {}", path, std::strerror(errno)));
  struct stat info {};
  if (::fstat(fd, &info) != 0 || !S_ISREG(info.st_mode)) {
    ::close(fd);
    return unexpected(fmt::format("the ledger `{}` is not a regular file", path));
  }
  if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
    ::close(fd);
    return unexpected(fmt::format("the ledger `{}` is in use by another adapter (it holds the file's lock)", path));
  }
  if (!created && info.st_size == 0) {
    ::close(fd);
    return unexpected(
        fmt::format("the ledger `{}` is an empty file, not an Allot ledger; a new ledger is created only where no file "
                    "exists (remove it to start a new ledger, or restore it from a backup)",
                    path));
  }
  return fd;
}

// A private folder for a dry run's copy of the state.
Expected<std::string, std::string> scratch_folder() {
  std::string pattern = (std::filesystem::temp_directory_path() / "allot-slurm-dry-run-XXXXXX").string();
  if (::mkdtemp(pattern.data()) == nullptr) {
    return unexpected(fmt::format("cannot create a folder for the dry run: {}", std::strerror(errno)));
  }
  return pattern;
}

}  // namespace

Adapter::State::~State() {
  store.reset();
  ledger.reset();
  if (lock >= 0) ::close(lock);
  if (scratch) {
    std::error_code ignored;
    std::filesystem::remove_all(*scratch, ignored);
  }
}

Adapter::Adapter(std::unique_ptr<State> state) : state_(std::move(state)) {}
Adapter::~Adapter() = default;

Expected<std::unique_ptr<Adapter>, std::string> Adapter::open(SlurmBackend& backend, JobMap map,
                                                              AdapterOptions options) {
  auto state = std::make_unique<State>();
  state->backend = &backend;
  state->map = std::move(map);
  state->options = std::move(options);
  state->database = state->options.state_path;
  if (state->options.dry_run) {
    auto folder = scratch_folder();
    if (!folder) return unexpected(folder.error());
    state->scratch = *folder;
    state->database = *folder + "/state.db";
    if (std::filesystem::exists(state->options.state_path)) {
      if (auto error = copy_database(state->options.state_path, state->database)) return unexpected(*error);
    }
  } else {
    auto lock = lock_state(state->database);
    if (!lock) return unexpected(lock.error());
    state->lock = *lock;
  }
  auto store = AdapterStore::open(state->database);
  if (!store) return unexpected(store.error());
  state->store = std::move(*store);
  return std::unique_ptr<Adapter>(new Adapter(std::move(state)));
}

Expected<PassReport, std::string> Adapter::reconcile(const CompiledPolicy& policy, Seconds now) {
  return run_pass(*state_, policy, now);
}

void Adapter::set_map(JobMap map) {
  state_->map = std::move(map);
  state_->noted.clear();
}

std::map<std::string, double> Adapter::usage(Seconds now) const {
  if (!state_->ledger) return {};
  return state_->ledger->ledger().usage_by_account(now);
}

}  // namespace allot::slurm
