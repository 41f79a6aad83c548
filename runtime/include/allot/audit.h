// Audit records: every decision of a cycle (start, preempt, skip) as one JSON
// object per line, with the time, the policy's source hash, the rank and its
// terms, and the reason in words, so that a person or a tool can later tell
// why each job ran, waited or was stopped. The schema is in docs/AUDIT.md.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "allot/cycle.h"
#include "allot/expected.h"
#include "allot/inventory.h"

namespace allot::runtime {

// "start", "preempt" or "skip".
const char* decision_kind_name(DecisionKind kind);

// Every decision of `result`, one JSON object per line, each line ending in
// "\n". Node indexes are named from `inventory` (the state the cycle ran on).
std::string audit_lines(const CycleResult& result, const Inventory& inventory);

// The document `allot cycle` prints (docs/AUDIT.md, "Cycle document"): the
// time, the policy, a summary, the decisions, the ranked queue and the
// reservations in force after the cycle. Indented JSON ending in "\n".
std::string cycle_document(const CycleResult& result, const Inventory& inventory, const std::string& policy_name);

// The same cycle for a person (`allot cycle --format text`): a line of totals,
// then a table of the decisions in queue order (place, job, account, class,
// rank, decision, nodes, reason), preemptions after, and the reservations.
std::string cycle_text(const CycleResult& result, const Inventory& inventory, const std::string& policy_name);

// An append-only audit file. A cycle's records go to the operating system in
// one write (continued only after a short write) before append returns, so a
// crash of the process loses no appended cycle; with `sync` they are also on
// disk (fdatasync) before it returns.
class AuditLog {
 public:
  // Opens (creating if needed) the regular file `path` for appending, never
  // through a symlink. A non-empty file that is not an audit log (its first
  // line does not start with `{"time":"`) is refused, never changed. A torn
  // last line (a crash in the middle of a write) is cut off, so the next record
  // starts on a line of its own; the cut and every append hold flock(2)'s lock
  // on the file, so several writers (two `allot cycle --audit`, an adapter)
  // never cut or interleave each other's records. The reason on failure.
  static Expected<AuditLog, std::string> open(const std::string& path, bool sync = false);
  AuditLog(AuditLog&& other) noexcept;
  AuditLog& operator=(AuditLog&& other) noexcept;
  AuditLog(const AuditLog&) = delete;
  AuditLog& operator=(const AuditLog&) = delete;
  ~AuditLog();

  // Appends the records of one cycle; the reason on failure.
  std::optional<std::string> append(const CycleResult& result, const Inventory& inventory);
  // Appends whole lines (each ending in "\n") in one write; the reason on failure.
  std::optional<std::string> append_lines(std::string_view lines);

 private:
  AuditLog(int descriptor, std::string path, bool sync)
      : descriptor_(descriptor), path_(std::move(path)), sync_(sync) {}

  int descriptor_ = -1;
  std::string path_;
  bool sync_ = false;
};

}  // namespace allot::runtime
