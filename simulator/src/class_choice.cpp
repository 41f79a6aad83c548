#include "class_choice.h"

#include <fmt/format.h>

#include <array>
#include <cmath>

namespace allot::simulator {
namespace {

std::string duration_text(double seconds) {
  const auto whole = static_cast<long long>(std::llround(seconds));
  if (whole % 86400 == 0) return fmt::format("{}d", whole / 86400);
  if (whole % 3600 == 0) return fmt::format("{}h", whole / 3600);
  if (whole % 60 == 0) return fmt::format("{}m", whole / 60);
  return fmt::format("{}s", whole);
}

// Preference keys per kind, compared lexicographically (higher is better).
using Keys = std::array<int, 5>;

Keys keys_for(const ClassInfo& info, JobKind kind) {
  const bool checkpoints = info.resumable && info.checkpoint_every > 0;
  const bool short_class = info.max_runtime > 0 && info.max_runtime <= 3600;
  const int named = info.name == job_kind_name(kind) ? 1 : 0;
  switch (kind) {
    case JobKind::debug:
      return {named, short_class, info.max_gpus == 1, info.resumable, -static_cast<int>(info.max_runtime / 60)};
    case JobKind::eval:
      return {named, info.deadline_required, !info.preemptible, info.max_runtime > 0, 0};
    case JobKind::train:
      return {named, checkpoints, info.protect_up_to, info.max_gpus == 0, info.max_nodes == 0};
    case JobKind::large:
      return {info.max_nodes > 1, checkpoints, info.protect_up_to, info.max_gpus == 0, named};
  }
  return {};
}

}  // namespace

std::optional<std::string> admission_problem(const ClassInfo& info, const WorkloadJob& job) {
  const int gpus = job.nodes * job.gpus_per_node;
  if (info.max_gpus > 0 && gpus > info.max_gpus) {
    return fmt::format("asks for {} GPUs; class `{}` allows at most {}", gpus, info.name, info.max_gpus);
  }
  if (info.max_nodes > 0 && job.nodes > info.max_nodes) {
    return fmt::format("asks for {} nodes; class `{}` allows at most {}", job.nodes, info.name, info.max_nodes);
  }
  if (info.max_runtime > 0 && static_cast<double>(job.work) > info.max_runtime) {
    return fmt::format("runs {}; class `{}` allows at most {}", duration_text(static_cast<double>(job.work)), info.name,
                       duration_text(info.max_runtime));
  }
  if (info.deadline_required && !job.deadline) {
    return fmt::format("has no deadline; class `{}` requires one", info.name);
  }
  return std::nullopt;
}

std::optional<int> class_for_kind(const PolicyTables& tables, const WorkloadJob& job) {
  std::optional<int> best;
  Keys best_keys{};
  for (std::size_t i = 0; i < tables.classes.size(); ++i) {
    if (admission_problem(tables.classes[i], job)) continue;
    const Keys keys = keys_for(tables.classes[i], job.kind);
    if (!best || keys > best_keys) {
      best = static_cast<int>(i);
      best_keys = keys;
    }
  }
  return best;
}

std::optional<int> preferred_class(const PolicyTables& tables, JobKind kind) {
  std::optional<int> best;
  Keys best_keys{};
  for (std::size_t i = 0; i < tables.classes.size(); ++i) {
    if (kind != JobKind::eval && tables.classes[i].deadline_required) continue;
    const Keys keys = keys_for(tables.classes[i], kind);
    if (!best || keys > best_keys) {
      best = static_cast<int>(i);
      best_keys = keys;
    }
  }
  return best;
}

}  // namespace allot::simulator
