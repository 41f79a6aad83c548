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

// Squeue's text of a pending reason ("Dependency", "JobHeldUser"). Exported by
// libslurm.so.38 though its header does not declare it (src/common/
// slurm_protocol_defs.h declares job_reason_string, renamed by slurm_xlator.h;
// it returns a static string).
extern "C" char* slurm_job_reason_string(enum job_state_reason reason);

namespace allot::slurm {
namespace {

std::string text(const char* value) { return value == nullptr ? std::string() : std::string(value); }

// Names from a comma-separated list ("gpu,debug"); empty names are dropped.
std::vector<std::string> split_names(const char* value) {
  std::vector<std::string> names;
  std::string name;
  for (const char* c = value; c != nullptr && *c != '\0'; ++c) {
    if (*c != ',') {
      name += *c;
      continue;
    }
    if (!name.empty()) names.push_back(std::move(name));
    name.clear();
  }
  if (!name.empty()) names.push_back(std::move(name));
  return names;
}

// The node names of a host list expression ("n[1-3],gpu7").
std::vector<std::string> host_names(const char* expression) {
  std::vector<std::string> names;
  if (expression == nullptr || *expression == '\0') return names;
  hostlist_t list = slurm_hostlist_create(expression);
  if (list == nullptr) return names;
  while (char* host = slurm_hostlist_shift(list)) {
    names.emplace_back(host);
    std::free(host);
  }
  slurm_hostlist_destroy(list);
  return names;
}

// Whether a pending reason holds the job back whatever capacity is freed for
// it: a hold, a dependency, a begin time, a partition or licence that is not
// there, a QOS or association limit ("QOSGrpGRES", "AssocMaxJobsLimit", ...),
// a job array's task limit. Every other reason (Priority, Resources, None,
// ReqNodeNotAvail, Reservation, Cleaning, ...) is one freed capacity or a
// higher priority can change, so Allot may act for the job.
bool reason_holds_back(std::uint32_t reason, const std::string& name) {
  switch (reason) {
    case WAIT_DEPENDENCY:
    case WAIT_DEP_INVALID:
    case WAIT_HELD:
    case WAIT_HELD_USER:
    case WAIT_MAX_REQUEUE:
    case WAIT_TIME:
    case WAIT_PART_NODE_LIMIT:
    case WAIT_PART_TIME_LIMIT:
    case WAIT_PART_DOWN:
    case WAIT_PART_INACTIVE:
    case WAIT_LICENSES:
    case WAIT_ACCOUNT:
    case WAIT_QOS:
    case WAIT_ARRAY_TASK_LIMIT:
    case WAIT_BURST_BUFFER_RESOURCE:
    case WAIT_BURST_BUFFER_STAGING:
    case FAIL_DOWN_PARTITION:
    case FAIL_BAD_CONSTRAINTS:
    case FAIL_ACCOUNT:
    case FAIL_QOS:
    case FAIL_BURST_BUFFER_OP:
      return true;
    default:
      return name.rfind("QOS", 0) == 0 || name.rfind("Assoc", 0) == 0;
  }
}

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
  node.partitions = split_names(info.partitions);
  node.features = split_names(info.features_act != nullptr ? info.features_act : info.features);
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
  job.admin_comment = text(info.admin_comment);
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
  job.partitions = split_names(info.partition);
  job.constraint = text(info.features);
  job.required_nodes = host_names(info.req_nodes);
  job.excluded_nodes = host_names(info.exc_nodes);
  job.exclusive = info.shared == JOB_SHARED_NONE;
  job.reservation = text(info.resv_name);
  job.dependency = text(info.dependency);
  if (job.dependency == "(null)") job.dependency.clear();
  if (job.phase == JobPhase::pending) {
    const auto reason = static_cast<enum job_state_reason>(info.state_reason);
    const std::string name = text(slurm_job_reason_string(reason));
    job.wait_reason = name;
    if (info.state_desc != nullptr && *info.state_desc != '\0')
      job.wait_reason += fmt::format(" ({})", info.state_desc);
    job.waits_outside = reason_holds_back(info.state_reason, name);
    // A pending job's start time is its begin time while that holds it (squeue's START_TIME).
    if (info.state_reason == WAIT_TIME) job.begin = info.start_time;
  }
  return job;
}

class LibslurmBackend final : public SlurmBackend {
 public:
  LibslurmBackend() { slurm_init(nullptr); }
  ~LibslurmBackend() override { slurm_fini(); }

  Expected<std::vector<SlurmNode>, std::string> read_nodes() override {
    node_info_msg_t* message = nullptr;
    if (slurm_load_node(0, &message, SHOW_ALL) != SLURM_SUCCESS) return unexpected(last_error());
    // slurmctld does not send a node's partitions: like scontrol and sinfo,
    // read the partitions and fill them in.
    partition_info_msg_t* partitions = nullptr;
    if (slurm_load_partitions(0, &partitions, SHOW_ALL) != SLURM_SUCCESS) {
      const std::string error = last_error();
      slurm_free_node_info_msg(message);
      return unexpected(error);
    }
    slurm_populate_node_partitions(message, partitions);
    slurm_free_partition_info_msg(partitions);
    std::vector<SlurmNode> nodes;
    nodes.reserve(message->record_count);
    for (std::uint32_t i = 0; i < message->record_count; ++i) nodes.push_back(node_of(message->node_array[i]));
    slurm_free_node_info_msg(message);
    return nodes;
  }

  Expected<std::vector<SlurmReservation>, std::string> read_reservations() override {
    reserve_info_msg_t* message = nullptr;
    if (slurm_load_reservations(0, &message) != SLURM_SUCCESS) return unexpected(last_error());
    std::vector<SlurmReservation> reservations;
    for (std::uint32_t i = 0; i < message->record_count; ++i) {
      const reserve_info_t& info = message->reservation_array[i];
      reservations.push_back(
          SlurmReservation{text(info.name), node_indexes(info.node_inx), info.start_time, info.end_time});
    }
    slurm_free_reservation_info_msg(message);
    return reservations;
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

  // Safe from several threads at once: slurm_update_job builds its own messages and
  // opens its own connection (src/api/update_config.c, _slurm_update ->
  // slurm_send_recv_controller_rc_msg), and its error is errno, which is per thread.
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

  std::optional<std::string> set_admin_comment(std::uint32_t job, const std::string& text) override {
    job_desc_msg_t update;
    slurm_init_job_desc_msg(&update);
    update.job_id = job;
    std::string comment = text;  // libslurm takes a char*; it does not keep it
    update.admin_comment = comment.data();
    return outcome(slurm_update_job(&update));
  }
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
