// Audit records, the audit log and the `allot cycle` document (docs/AUDIT.md);
// the JSON of one decision is audit_json.cpp's.
#include "allot/audit.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <utility>

#include <fmt/format.h>

#include "allot/snapshot.h"
#include "audit_json.h"

namespace allot::runtime {
namespace {

using audit::add_decision;
using audit::finite;
using audit::Json;
using audit::node_names;

Json summary_json(const CycleResult& result) {
  std::size_t counts[3] = {0, 0, 0};  // by DecisionKind
  for (const Decision& decision : result.decisions) ++counts[static_cast<int>(decision.kind)];
  return Json{{"starts", counts[static_cast<int>(DecisionKind::start)]},
              {"preemptions", counts[static_cast<int>(DecisionKind::preempt)]},
              {"skips", counts[static_cast<int>(DecisionKind::skip)]},
              {"ranked", result.ranked_job_ids.size()}};
}

std::string system_error(const std::string& what, const std::string& path) {
  return fmt::format("cannot {} `{}`: {}", what, path, std::strerror(errno));
}

}  // namespace

const char* decision_kind_name(DecisionKind kind) {
  switch (kind) {
    case DecisionKind::start:
      return "start";
    case DecisionKind::preempt:
      return "preempt";
    default:
      return "skip";
  }
}

std::string audit_lines(const CycleResult& result, const Inventory& inventory) {
  const std::string time = format_timestamp(result.now);
  std::string lines;
  for (const Decision& decision : result.decisions) {
    Json record{{"time", time}, {"policy", result.policy_hash}};
    add_decision(record, decision, inventory);
    lines += audit::dump(record, -1);
    lines += '\n';
  }
  return lines;
}

std::string cycle_document(const CycleResult& result, const Inventory& inventory, const std::string& policy_name) {
  Json document{{"now", format_timestamp(result.now)},
                {"policy", Json{{"name", policy_name}, {"hash", result.policy_hash}}},
                {"summary", summary_json(result)}};
  Json& decisions = document["decisions"] = Json::array();
  for (const Decision& decision : result.decisions) {
    Json record = Json::object();
    add_decision(record, decision, inventory);
    decisions.push_back(std::move(record));
  }
  Json& ranked = document["ranked"] = Json::array();
  for (std::size_t i = 0; i < result.ranked_job_ids.size(); ++i) {
    ranked.push_back(Json{{"job", result.ranked_job_ids[i]}, {"rank", finite(result.ranks[i])}});
  }
  Json& reservations = document["reservations"] = Json::array();
  for (const Reservation& reservation : result.reservations) {
    reservations.push_back(Json{{"job", reservation.job_id},
                                {"nodes", node_names(inventory, reservation.nodes)},
                                {"until", format_timestamp(reservation.until)},
                                {"gpus_per_node", reservation.gpus_per_node}});
  }
  return audit::dump(document, 2) + "\n";
}

Expected<AuditLog, std::string> AuditLog::open(const std::string& path, bool sync) {
  const int descriptor = ::open(path.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
  if (descriptor < 0) return unexpected(system_error("open the audit log", path));
  return AuditLog(descriptor, path, sync);
}

AuditLog::AuditLog(AuditLog&& other) noexcept
    : descriptor_(std::exchange(other.descriptor_, -1)), path_(std::move(other.path_)), sync_(other.sync_) {}

AuditLog& AuditLog::operator=(AuditLog&& other) noexcept {
  if (this != &other) {
    if (descriptor_ >= 0) ::close(descriptor_);
    descriptor_ = std::exchange(other.descriptor_, -1);
    path_ = std::move(other.path_);
    sync_ = other.sync_;
  }
  return *this;
}

AuditLog::~AuditLog() {
  if (descriptor_ >= 0) ::close(descriptor_);
}

std::optional<std::string> AuditLog::append(const CycleResult& result, const Inventory& inventory) {
  const std::string lines = audit_lines(result, inventory);
  // O_APPEND makes each write land at the end even with other writers; a
  // short write (a full disk, a signal) continues where it stopped.
  for (std::size_t written = 0; written < lines.size();) {
    const ssize_t count = ::write(descriptor_, lines.data() + written, lines.size() - written);
    if (count < 0 && errno == EINTR) continue;
    if (count <= 0) return system_error("append to the audit log", path_);
    written += static_cast<std::size_t>(count);
  }
  if (sync_ && ::fdatasync(descriptor_) != 0) return system_error("sync the audit log", path_);
  return std::nullopt;
}

}  // namespace allot::runtime
