// Helpers of the integration test against a real Slurm (integration_test.cpp):
// submitting jobs with sbatch, reading the queue with squeue --json and the
// nodes with sinfo, running the `allot slurm` daemon as a child process, and
// waiting for things by polling with a timeout. Every poll also checks that no
// node has more GPUs in use than it has.
//
// The sandbox is started and stopped by tests/slurm/integration.sh, which
// exports SLURM_CONF and ALLOT_SLURM_WORK (a scratch folder jobs can write to).
#pragma once

#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace integration {

// Runs a shell command; its standard output. Fails the test when it exits non-zero.
std::string shell(const std::string& command);

// One job as `squeue --json` shows it.
struct QueuedJob {
  std::uint32_t id = 0;
  std::string state;  // PENDING, RUNNING, COMPLETING, COMPLETED, CANCELLED, ...
  std::string account;
  std::string name;
  std::uint32_t priority = 0;
  int restarts = 0;
  std::int64_t start = 0;
  std::int64_t end = 0;
};

// Every job slurmctld holds, by id.
std::map<std::uint32_t, QueuedJob> queue();
QueuedJob job(std::uint32_t id);

// Submits a batch job of `account` asking for `gpus` GPUs, running `script`
// (bash) under the name `name`, with further sbatch `options` ("-p small"); its id.
std::uint32_t submit(const std::string& account, int gpus, const std::string& name, const std::string& script,
                     const std::string& options = "");

// The nodes a job runs on, as squeue writes them ("n1", "n[1-2]"); "" when none.
std::string nodes_of(std::uint32_t id);

// A script that traps the checkpoint signal (SIGUSR1), writing the time (ns)
// to <work>/<job id>.usr1, and otherwise sleeps for a long time.
std::string checkpointing_script();

// Cancels every job and waits until none holds resources.
void cancel_all();

// GPUs in use per node never exceed the node's GPUs; fails the test otherwise.
void check_gpus_not_overallocated();

// Polls `ready` every 200 ms (checking GPUs each time) until it holds or `timeout` passes.
void wait_until(const std::string& what, std::chrono::seconds timeout, const std::function<bool()>& ready);

// The scratch folder shared with the jobs, and a fresh folder inside it for one test.
std::string work_folder();
std::string fresh_folder(const std::string& name);

// The `allot slurm` daemon, started as a child process; its output goes to `log`.
class Adapter {
 public:
  Adapter(std::vector<std::string> arguments, std::string log);
  ~Adapter();
  Adapter(const Adapter&) = delete;
  Adapter& operator=(const Adapter&) = delete;

  void start();
  // Sends `signal`; for SIGKILL and SIGTERM, waits for the process to end.
  void signal(int signal);
  // Passes completed since the process started (lines "pass:" in its log).
  int passes() const;
  // The log so far.
  std::string log() const;
  // Waits until `passes` more passes than now have completed.
  void wait_passes(int passes);
  // Waits up to `timeout` for the process to end on its own; the signal that
  // ended it (0 for an exit), or nullopt if it still runs.
  std::optional<int> wait_end(std::chrono::seconds timeout);

 private:
  std::vector<std::string> arguments_;
  std::string log_;
  pid_t pid_ = -1;
};

// Runs the `allot` binary to completion with `arguments`; its exit code, with stdout in `output`.
int run_allot(const std::vector<std::string>& arguments, std::string& output);

// Each stored charge (job id, from, until, held without progress) of a ledger file.
struct StoredCharge {
  std::string job;
  std::int64_t from = 0;
  std::int64_t until = 0;
  bool without_progress = false;
};
std::vector<StoredCharge> stored_charges(const std::string& ledger);

}  // namespace integration
