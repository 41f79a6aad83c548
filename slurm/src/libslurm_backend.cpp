// The real backend: libslurm (22.05, libslurm.so.38). Each call is one RPC to
// slurmctld, bounded by the cluster's MessageTimeout; nothing is held between
// calls, so the adapter never keeps slurmctld waiting. The only file that
// includes <slurm/slurm.h>.
#include <pwd.h>
#include <slurm/slurm.h>
#include <slurm/slurm_errno.h>

#include <cstdlib>
#include <filesystem>

#include <fmt/format.h>

#include "allot/slurm.h"
#include "gres_text.h"

namespace allot::slurm {
namespace {

std::string text(const char* value) { return value == nullptr ? std::string() : std::string(value); }

std::string last_error() { return slurm_strerror(slurm_get_errno()); }

std::optional<std::string> outcome(int status) {
  if (status == SLURM_SUCCESS) return std::nullopt;
  return last_error();
}

// Slurm's minutes, with INFINITE and NO_VAL as "not set".
Seconds minutes(std::uint32_t value) {
  return value == INFINITE || value == NO_VAL ? 0 : static_cast<Seconds>(value) * 60;
}

SlurmNode node_of(const node_info_t& info) {
  SlurmNode node;
  node.name = text(info.name);
  const GpuCount gpus = gpus_named(text(info.gres));
  node.gpus = gpus.count;
  node.gpu_type = gpus.type;
  node.gpus_used = gpus_named(text(info.gres_used)).count;
  node.cpus = info.cpus;
  node.memory_gib = static_cast<double>(info.real_memory) / 1024.0;
  const std::uint32_t base = info.node_state & NODE_STATE_BASE;
  node.down = info.name == nullptr || base == NODE_STATE_DOWN || base == NODE_STATE_FUTURE ||
              base == NODE_STATE_UNKNOWN || (info.node_state & (NODE_STATE_NO_RESPOND | NODE_STATE_FAIL)) != 0;
  node.drain = (info.node_state & NODE_STATE_DRAIN) != 0;
  return node;
}

JobPhase phase_of(std::uint32_t state) {
  if (state & JOB_COMPLETING) return JobPhase::completing;
  switch (state & JOB_STATE_BASE) {
    case JOB_PENDING:
      return JobPhase::pending;
    case JOB_RUNNING:
    case JOB_SUSPENDED:
      return JobPhase::running;
    default:
      return JobPhase::finished;
  }
}

// Node-table indexes from Slurm's (start, end) pairs ended by -1.
std::vector<int> node_indexes(const std::int32_t* ranges) {
  std::vector<int> indexes;
  for (int i = 0; ranges != nullptr && ranges[i] >= 0 && ranges[i + 1] >= 0; i += 2) {
    for (int node = ranges[i]; node <= ranges[i + 1]; ++node) indexes.push_back(node);
  }
  return indexes;
}

std::string user_name(const slurm_job_info_t& info) {
  if (info.user_name != nullptr) return info.user_name;
  const passwd* entry = ::getpwuid(info.user_id);
  return entry != nullptr ? entry->pw_name : std::to_string(info.user_id);
}

// GPUs per node: --gres / --gpus-per-node, else --gpus spread over the nodes.
int gpus_per_node(const slurm_job_info_t& info, int nodes) {
  const int per_node = gpus_named(text(info.tres_per_node)).count;
  if (per_node > 0) return per_node;
  const int per_job = gpus_named(text(info.tres_per_job)).count;
  return (per_job + nodes - 1) / std::max(nodes, 1);
}

SlurmJob job_of(const slurm_job_info_t& info) {
  SlurmJob job;
  job.id = info.job_id;
  job.name = text(info.name);
  job.account = text(info.account);
  job.user = user_name(info);
  job.partition = text(info.partition);
  job.qos = text(info.qos);
  job.comment = text(info.comment);
  job.phase = phase_of(info.job_state);
  job.priority = info.priority;
  job.node_indexes = node_indexes(info.node_inx);
  const bool ran = job.phase != JobPhase::pending || (info.job_state & JOB_COMPLETING);
  job.nodes = ran && !job.node_indexes.empty() ? static_cast<int>(job.node_indexes.size())
                                               : static_cast<int>(std::max<std::uint32_t>(info.num_nodes, 1));
  job.gpus_per_node = gpus_per_node(info, job.nodes);
  job.cpus_per_node = static_cast<double>(info.num_cpus) / job.nodes;
  if (info.pn_min_memory != NO_VAL64 && (info.pn_min_memory & MEM_PER_CPU) == 0) {
    job.memory_gib_per_node = static_cast<double>(info.pn_min_memory) / 1024.0;
  }
  job.submitted = info.submit_time;
  job.eligible = info.eligible_time;
  job.started = ran ? info.start_time : 0;
  job.ended = job.phase == JobPhase::finished || job.phase == JobPhase::completing ? info.end_time : 0;
  job.time_limit = minutes(info.time_limit);
  job.time_min = minutes(info.time_min);
  job.deadline = info.deadline;
  job.restarts = info.restart_cnt;
  job.requeueable = info.requeue != 0 && info.batch_flag != 0;
  return job;
}

class LibslurmBackend final : public SlurmBackend {
 public:
  LibslurmBackend() { slurm_init(nullptr); }
  ~LibslurmBackend() override { slurm_fini(); }

  Expected<std::vector<SlurmNode>, std::string> read_nodes() override {
    node_info_msg_t* message = nullptr;
    if (slurm_load_node(0, &message, SHOW_ALL) != SLURM_SUCCESS) return unexpected(last_error());
    std::vector<SlurmNode> nodes;
    nodes.reserve(message->record_count);
    for (std::uint32_t i = 0; i < message->record_count; ++i) nodes.push_back(node_of(message->node_array[i]));
    slurm_free_node_info_msg(message);
    return nodes;
  }

  Expected<std::vector<SlurmJob>, std::string> read_jobs() override {
    job_info_msg_t* message = nullptr;
    if (slurm_load_jobs(0, &message, SHOW_ALL) != SLURM_SUCCESS) return unexpected(last_error());
    std::vector<SlurmJob> jobs;
    jobs.reserve(message->record_count);
    for (std::uint32_t i = 0; i < message->record_count; ++i) jobs.push_back(job_of(message->job_array[i]));
    slurm_free_job_info_msg(message);
    return jobs;
  }

  std::optional<std::string> set_priority(std::uint32_t job, std::uint32_t priority) override {
    job_desc_msg_t update;
    slurm_init_job_desc_msg(&update);
    update.job_id = job;
    update.priority = priority;
    return outcome(slurm_update_job(&update));
  }

  std::optional<std::string> signal_batch(std::uint32_t job, int signal) override {
    return outcome(slurm_kill_job(job, static_cast<std::uint16_t>(signal), KILL_JOB_BATCH));
  }

  std::optional<std::string> requeue(std::uint32_t job) override { return outcome(slurm_requeue(job, 0)); }
};

}  // namespace

Expected<std::unique_ptr<SlurmBackend>, std::string> connect_libslurm() {
  // libslurm exits the process when it cannot read its configuration: check first.
  const char* configured = std::getenv("SLURM_CONF");
  const std::string path = configured != nullptr ? configured : "/etc/slurm/slurm.conf";
  std::error_code error;
  if (!std::filesystem::is_regular_file(path, error)) {
    return unexpected(fmt::format("no Slurm configuration at `{}`; set SLURM_CONF to the cluster's slurm.conf", path));
  }
  return std::unique_ptr<SlurmBackend>(new LibslurmBackend());
}

}  // namespace allot::slurm
