#include "schema.h"

#include <algorithm>
#include <array>

namespace allot {
namespace {

constexpr std::array kJobFields = {
    FieldSchema{"class", Type::job_class, "the job's class (execution contract)"},
    FieldSchema{"label", Type::label, "the priority label the job was submitted with"},
    FieldSchema{"gpus", Type::number, "GPUs the job uses or asks for, over all its nodes"},
    FieldSchema{"nodes", Type::number, "nodes the job spans"},
    FieldSchema{"gpus_per_node", Type::number, "GPUs on each of its nodes"},
    FieldSchema{"cpus", Type::number, "CPU cores the job asks for"},
    FieldSchema{"memory_gb", Type::number, "memory the job asks for, in GB"},
    FieldSchema{"wait", Type::duration, "time pending since submission, or since it was queued again"},
    FieldSchema{"runtime", Type::duration, "time running so far; 0 when pending"},
    FieldSchema{"since_checkpoint", Type::duration, "time since its last checkpoint (the work a preemption loses)"},
    FieldSchema{"protect", Type::duration, "the protected time it asked for or got"},
    FieldSchema{"has_deadline", Type::boolean, "true when the job carries a deadline"},
    FieldSchema{"deadline_slack", Type::duration, "deadline - now - remaining time; 1000d when it has no deadline"},
    FieldSchema{"resumable", Type::boolean, "true when it resumes from its last checkpoint after preemption"},
    FieldSchema{"restarts", Type::number, "times it was preempted and queued again"},
    FieldSchema{"submitted", Type::date, "the day it was submitted"},
    FieldSchema{"stalled", Type::boolean,
                "true when it runs past its class's progress rule without reporting progress"},
    FieldSchema{"since_progress", Type::duration,
                "time since its last reported progress or checkpoint, else since it started; 0 when pending"},
    FieldSchema{"account", Type::account, "the budget-tree node it is charged to"},
};

constexpr std::array kAccountFields = {
    FieldSchema{"share", Type::percent, "exception-adjusted share of the whole cluster"},
    FieldSchema{"level_share", Type::percent, "share among its siblings"},
    FieldSchema{"norm_share", Type::percent, "Slurm's normalised share"},
    FieldSchema{"usage", Type::number, "usage in the policy's unit over the window"},
    FieldSchema{"effective_usage", Type::percent, "share of all usage, after decay"},
    FieldSchema{"usage_ratio", Type::number, "effective_usage / norm_share; above 1 means over its share"},
    FieldSchema{"debt", Type::number, "owed - delivered, in unit-hours"},
    FieldSchema{"fair_tree", Type::number, "the Fair Tree factor, 0..1"},
    FieldSchema{"level_fs", Type::number, "Fair Tree's level fair-share value"},
    FieldSchema{"dominant_share", Type::percent, "its share of its dominant resource"},
    FieldSchema{"running_gpus", Type::number, "GPUs its jobs use now"},
    FieldSchema{"pending_jobs", Type::number, "its jobs waiting to start"},
    FieldSchema{"depth", Type::number, "its depth in the budget tree; programs are 1"},
};

constexpr std::array kClusterFields = {
    FieldSchema{"now", Type::date, "today"},
    FieldSchema{"total_gpus", Type::number, "GPUs in the cluster"},
    FieldSchema{"free_gpus", Type::number, "GPUs not running a job"},
    FieldSchema{"utilization", Type::percent, "share of GPUs running a job"},
    FieldSchema{"pending_jobs", Type::number, "jobs waiting to start"},
    FieldSchema{"running_jobs", Type::number, "jobs running"},
};

constexpr std::array kRankInputs = {
    InputSchema{"job", Type::job, "the pending job being ranked"},
    InputSchema{"account", Type::account, "the job's account (same as `job.account`)"},
    InputSchema{"cluster", Type::cluster, "the cluster"},
};

constexpr std::array kPreemptInputs = {
    InputSchema{"victim", Type::job, "the running job that might be preempted (already past its protection)"},
    InputSchema{"requester", Type::job, "the pending job that needs its GPUs"},
    InputSchema{"cluster", Type::cluster, "the cluster"},
};

constexpr std::array kBuiltins = {
    BuiltinSchema{"min", 2, std::nullopt, ArgumentRule::same_quantity, "min(a, b, ...)", "the smallest argument"},
    BuiltinSchema{"max", 2, std::nullopt, ArgumentRule::same_quantity, "max(a, b, ...)", "the largest argument"},
    BuiltinSchema{"clamp", 3, 3, ArgumentRule::same_quantity, "clamp(x, low, high)", "x limited to [low, high]"},
    BuiltinSchema{"abs", 1, 1, ArgumentRule::same_signed, "abs(x)", "the magnitude of x"},
    BuiltinSchema{"log", 1, 1, ArgumentRule::number_only, "log(x)", "the natural logarithm"},
    BuiltinSchema{"exp", 1, 1, ArgumentRule::number_only, "exp(x)", "e to the power x"},
    BuiltinSchema{"sqrt", 1, 1, ArgumentRule::number_only, "sqrt(x)", "the square root"},
};

constexpr std::array kQuantityTypes = {Type::number, Type::duration, Type::percent, Type::date};
constexpr std::array kSignedTypes = {Type::number, Type::duration, Type::percent};
constexpr std::array kNumberTypes = {Type::number};

template <typename Entry>
const Entry* find_by_name(std::span<const Entry> entries, std::string_view name) {
  auto it = std::find_if(entries.begin(), entries.end(), [&](const Entry& entry) { return entry.name == name; });
  return it == entries.end() ? nullptr : &*it;
}

}  // namespace

std::span<const FieldSchema> record_fields(Type record) {
  switch (record) {
    case Type::job:
      return kJobFields;
    case Type::account:
      return kAccountFields;
    case Type::cluster:
      return kClusterFields;
    default:
      return {};
  }
}

const FieldSchema* find_field(Type record, std::string_view name) { return find_by_name(record_fields(record), name); }

std::span<const InputSchema> rank_inputs() { return kRankInputs; }

std::span<const InputSchema> preempt_inputs() { return kPreemptInputs; }

std::span<const BuiltinSchema> builtin_functions() { return kBuiltins; }

const BuiltinSchema* find_builtin(std::string_view name) { return find_by_name(builtin_functions(), name); }

std::span<const Type> accepted_argument_types(ArgumentRule rule) {
  switch (rule) {
    case ArgumentRule::same_quantity:
      return kQuantityTypes;
    case ArgumentRule::same_signed:
      return kSignedTypes;
    case ArgumentRule::number_only:
      return kNumberTypes;
  }
  return {};
}

}  // namespace allot
