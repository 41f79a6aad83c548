// Audit records, the audit log and the `allot cycle` document (docs/AUDIT.md);
// the JSON of one decision is audit_json.cpp's.
#include "allot/audit.h"
#include "allot/dates.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>
#include <string_view>
#include <utility>

#include <fmt/format.h>

#include "allot/audit_json.h"
#include "allot/files.h"
#include "allot/snapshot.h"
#include "allot/text.h"

namespace allot::runtime {
namespace {

using audit::add_decision;
using audit::finite;
using audit::Json;
using audit::node_names;

Json summary_json(const CycleResult& result) {
  std::size_t counts[3] = {0, 0, 0};  // by DecisionKind
  for (const Decision& decision : result.decisions) ++counts[static_cast<int>(decision.kind)];
  counts[static_cast<int>(DecisionKind::skip)] += result.skips.size();
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
  const std::string time = support::format_timestamp(result.now);
  std::string lines;
  for (const Decision& decision : result.all_decisions()) {
    Json record{{"time", time}, {"policy", result.policy_hash}};
    add_decision(record, decision, inventory);
    lines += audit::dump(record, -1);
    lines += '\n';
  }
  return lines;
}

std::string cycle_document(const CycleResult& result, const Inventory& inventory, const std::string& policy_name) {
  Json document{{"now", support::format_timestamp(result.now)},
                {"policy", Json{{"name", policy_name}, {"hash", result.policy_hash}}},
                {"summary", summary_json(result)}};
  Json& decisions = document["decisions"] = Json::array();
  for (const Decision& decision : result.all_decisions()) {
    Json record = Json::object();
    add_decision(record, decision, inventory);
    decisions.push_back(std::move(record));
  }
  Json& ranked = document["ranked"] = Json::array();
  for (std::size_t i = 0; i < result.ranked_job_ids.size(); ++i) {
    ranked.push_back(Json{{"job", result.ranked_job_ids[i]}, {"rank", audit::rank_json(result.ranks[i])}});
  }
  Json& reservations = document["reservations"] = Json::array();
  for (const Reservation& reservation : result.reservations) {
    reservations.push_back(Json{{"job", reservation.job_id},
                                {"nodes", node_names(inventory, reservation.nodes)},
                                {"until", support::format_timestamp(reservation.until)},
                                {"gpus_per_node", reservation.gpus_per_node}});
  }
  return audit::dump(document, 2) + "\n";
}

std::string cycle_text(const CycleResult& result, const Inventory& inventory, const std::string& policy_name) {
  std::size_t counts[3] = {0, 0, 0};  // by DecisionKind
  for (const Decision& decision : result.decisions) ++counts[static_cast<int>(decision.kind)];
  const auto plural = [](std::size_t count, const char* one, const char* many) {
    return fmt::format("{} {}", count, count == 1 ? one : many);
  };
  std::string out = fmt::format("Cycle at {}, policy `{}` ({}): {}, {}, {} ranked\n",
                                support::format_timestamp(result.now), policy_name, result.policy_hash.substr(0, 12),
                                plural(counts[static_cast<int>(DecisionKind::start)], "start", "starts"),
                                plural(counts[static_cast<int>(DecisionKind::preempt)], "preemption", "preemptions"),
                                result.ranked_job_ids.size());
  const auto names = [&](const std::vector<int>& nodes, const char* separator) {
    std::string text;
    for (int node : nodes) {
      const bool known = node >= 0 && static_cast<std::size_t>(node) < inventory.nodes.size();
      text += (text.empty() ? "" : separator) + (known ? inventory.nodes[static_cast<std::size_t>(node)].name : "?");
    }
    return text;
  };
  // Starts and skips in queue order (unranked last), then preemptions.
  const std::vector<Decision> all = result.all_decisions();
  std::vector<const Decision*> rows;
  for (const Decision& decision : all) rows.push_back(&decision);
  std::stable_sort(rows.begin(), rows.end(), [](const Decision* a, const Decision* b) {
    const auto key = [](const Decision* d) {
      return std::pair{d->kind == DecisionKind::preempt ? 2
                       : d->position < 0                ? 1
                                                        : 0,
                       d->position < 0 ? 0 : d->position};
    };
    return key(a) < key(b);
  });
  std::vector<std::array<std::string, 8>> table = {
      {"place", "job", "account", "class", "rank", "decision", "nodes", "why"}};
  for (const Decision* decision : rows) {
    const bool placed = decision->position >= 0 && decision->kind != DecisionKind::preempt;
    table.push_back({placed ? std::to_string(decision->position + 1) : "-", decision->job_id, decision->account,
                     decision->job_class, placed ? audit::rank_text(decision->rank) : "-",
                     decision_kind_name(decision->kind), decision->nodes.empty() ? "-" : names(decision->nodes, ","),
                     decision->reason});
  }
  std::array<std::size_t, 8> widths{};
  for (const auto& row : table) {
    for (std::size_t c = 0; c + 1 < row.size(); ++c) widths[c] = std::max(widths[c], row[c].size());
  }
  for (const auto& row : table) {
    std::string line = " ";
    for (std::size_t c = 0; c + 1 < row.size(); ++c) line += fmt::format(" {:<{}}", row[c], widths[c]);
    out += line + "  " + row.back() + "\n";
  }
  for (const Reservation& reservation : result.reservations) {
    out += fmt::format("Reserved for `{}`: {} GPU{} per node on {} until {}\n", reservation.job_id,
                       reservation.gpus_per_node, reservation.gpus_per_node == 1 ? "" : "s",
                       names(reservation.nodes, ", "), support::format_timestamp(reservation.until));
  }
  return support::printable(out);
}

namespace {

// How every record Allot appends begins (audit_lines, and the Slurm adapter's
// records): what tells an audit log from any other file.
constexpr std::string_view kRecordStart = "{\"time\":\"";

// Holds flock(2)'s exclusive lock on the log while it lives: writers append
// whole records under it, and the torn-line repair runs under it, so a repair
// can never cut a record another process is writing.
class LogLock {
 public:
  explicit LogLock(int descriptor) : descriptor_(descriptor) {
    while (::flock(descriptor_, LOCK_EX) != 0 && errno == EINTR) {
    }
  }
  LogLock(const LogLock&) = delete;
  LogLock& operator=(const LogLock&) = delete;
  ~LogLock() { ::flock(descriptor_, LOCK_UN); }

 private:
  int descriptor_;
};

// Refuses a non-empty file whose first line is not an audit record: `--audit`
// aimed at the wrong file must not cut or extend it.
std::optional<std::string> check_audit_log(int descriptor, off_t size, const std::string& path) {
  if (size == 0) return std::nullopt;
  char start[16] = {};
  const std::size_t wanted = std::min(sizeof start, static_cast<std::size_t>(size));
  ssize_t count = 0;
  do {
    count = ::pread(descriptor, start, wanted, 0);
  } while (count < 0 && errno == EINTR);
  if (count < 0) return system_error("read the audit log", path);
  const std::string_view head(start, static_cast<std::size_t>(count));
  // A log whose first record was cut after a few bytes is a log too.
  const bool torn_first = static_cast<std::size_t>(size) < kRecordStart.size() && kRecordStart.starts_with(head);
  if (head.starts_with(kRecordStart) || torn_first) return std::nullopt;
  return fmt::format(
      "`{}` is not an Allot audit log (its first line does not start with `{}`); name a new file or an existing "
      "audit log",
      path, kRecordStart);
}

// Cuts the file back to just after its last newline: what follows it is a
// record whose write never finished.
std::optional<std::string> cut_torn_line(int descriptor, const std::string& path) {
  const off_t size = ::lseek(descriptor, 0, SEEK_END);
  if (size < 0) return system_error("read the audit log", path);
  if (auto problem = check_audit_log(descriptor, size, path)) return problem;
  char buffer[4096];
  for (off_t end = size; end > 0;) {
    const off_t start = end > static_cast<off_t>(sizeof buffer) ? end - static_cast<off_t>(sizeof buffer) : 0;
    const ssize_t count = ::pread(descriptor, buffer, static_cast<std::size_t>(end - start), start);
    if (count < 0 && errno == EINTR) continue;
    if (count <= 0) return system_error("read the audit log", path);
    for (ssize_t i = count; i-- > 0;) {
      if (buffer[i] != '\n') continue;
      const off_t keep = start + i + 1;
      if (keep == size) return std::nullopt;
      if (::ftruncate(descriptor, keep) != 0) return system_error("repair the torn last line of", path);
      return std::nullopt;
    }
    end = start;
  }
  if (size > 0 && ::ftruncate(descriptor, 0) != 0) return system_error("repair the torn last line of", path);
  return std::nullopt;
}

}  // namespace

Expected<AuditLog, std::string> AuditLog::open(const std::string& path, bool sync) {
  auto opened = support::open_append(path);
  if (!opened) return unexpected(opened.error());
  AuditLog log(*opened, path, sync);
  const LogLock lock(*opened);
  if (auto problem = cut_torn_line(*opened, path)) return unexpected(*problem);
  return log;
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
  return append_lines(audit_lines(result, inventory));
}

std::optional<std::string> AuditLog::append_lines(std::string_view lines) {
  // O_APPEND makes each write land at the end even with other writers; a
  // short write (a full disk, a signal) continues where it stopped, under the
  // lock, so the records of two writers never interleave.
  const LogLock lock(descriptor_);
  if (auto problem = support::write_all(descriptor_, lines)) {
    return fmt::format("cannot append to the audit log `{}`: {}", path_, *problem);
  }
  if (sync_ && ::fdatasync(descriptor_) != 0) return system_error("sync the audit log", path_);
  return std::nullopt;
}

}  // namespace allot::runtime
