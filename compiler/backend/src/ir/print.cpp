// The text of `allot compile --emit=ir`: the tables, then each entry point as
// one node per line (`%3 = add f64 %1, %2`). Stable: the same policy always
// prints the same text, so it can be diffed and kept as a golden file.
#include <fmt/format.h>

#include "allot/frontend.h"
#include "allot/gates.h"
#include "columns.h"
#include "ir.h"

namespace allot::ir {
namespace {

const char* type_name_of(SourceType type) {
  switch (type) {
    case SourceType::number:
      return "number";
    case SourceType::boolean:
      return "bool";
    case SourceType::duration:
      return "duration";
    case SourceType::percent:
      return "percent";
    case SourceType::date:
      return "date";
    case SourceType::class_id:
      return "class";
    case SourceType::label:
      return "label";
  }
  return "?";
}

// How an entry point names the job a field belongs to.
struct SubjectNames {
  const char* job;
  const char* requester;
};

std::string subject_name(Subject subject, SubjectNames names) {
  return subject == Subject::requester ? names.requester : names.job;
}

std::string load_text(const Node& node, SubjectNames names) {
  const std::string job = subject_name(node.subject, names);
  switch (node.op) {
    case Op::job_field:
      return fmt::format("{}.{}", job, column_name(Type::job, node.field));
    case Op::account_field: {
      const std::string account = job == "job" ? "account" : job + ".account";
      return fmt::format("{}.{}", account, column_name(Type::account, node.field));
    }
    case Op::cluster_field:
      return fmt::format("cluster.{}", column_name(Type::cluster, node.field));
    default:
      return fmt::format("account_row {}", job);
  }
}

std::string node_text(NodeId id, const Node& node, SubjectNames names) {
  const char* repr = node.repr == Repr::boolean ? "bool" : "f64";
  std::string text;
  if (node.op == Op::constant) {
    text = fmt::format("%{} = const {} {}", id, repr, node.value);
  } else if (arity(node.op) == 0) {
    text = fmt::format("%{} = {} {}", id, load_text(node, names), repr);
  } else {
    text = fmt::format("%{} = {} {} %{}", id, op_name(node.op), repr, node.a);
    if (arity(node.op) > 1) text += fmt::format(", %{}", node.b);
    if (arity(node.op) > 2) text += fmt::format(", %{}", node.c);
  }
  if (node.type != SourceType::number && node.type != SourceType::boolean) {
    text += fmt::format("  ; {}", type_name_of(node.type));
  }
  return text;
}

std::string function_text(const char* title, const Function& function, SubjectNames names) {
  std::string text = fmt::format("{}:\n", title);
  for (NodeId id = 0; id < function.nodes.size(); ++id) text += "  " + node_text(id, function.nodes[id], names) + "\n";
  return text + fmt::format("  return %{}\n", function.result);
}

// A policy string as LLVM IR writes one, quoted: printable ASCII as it is but
// `"` and `\\`, every other byte as `\\XX` (ESC is `\\1B`), so the IR never
// carries a control character or a bidi override raw, and reads back the same.
std::string ir_string(std::string_view text) {
  std::string out = "\"";
  for (const char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    if (byte >= 0x20 && byte < 0x7F && c != '"' && c != '\\') {
      out += c;
    } else {
      out += fmt::format("\\{:02X}", byte);
    }
  }
  return out + "\"";
}

std::string optional_seconds(const std::optional<double>& value) {
  return value ? fmt::format("{}s", *value) : std::string("none");
}

std::string account_text(std::size_t index, const AccountInfo& account) {
  std::string text = fmt::format("  #{} {}", index, account.path.empty() ? "(root)" : account.path);
  if (account.parent >= 0) text += fmt::format(" parent #{} share {}", account.parent, account.share);
  // Percentages are the default form; the others are printed as written.
  if (account.use_parent) text += " (share parent)";
  if (!account.use_parent && !account.percent_shares) text += fmt::format(" (shares {})", account.raw_shares);
  if (account.unallocated != 0) text += fmt::format(" unallocated {}", account.unallocated);
  if (!account.owner.empty()) text += " owner " + ir_string(account.owner);
  if (account.review) text += " review " + format_date(*account.review);
  return text + (account.leaf ? " leaf\n" : "\n");
}

std::string class_text(std::size_t index, const ClassInfo& info) {
  std::string text = fmt::format("  #{} {}", index, info.name);
  if (info.max_gpus) text += fmt::format(" max_gpus {}", info.max_gpus);
  if (info.max_nodes) text += fmt::format(" max_nodes {}", info.max_nodes);
  if (info.max_runtime) text += fmt::format(" max_runtime {}s", info.max_runtime);
  if (info.protect) text += fmt::format(" protect{} {}s", info.protect_up_to ? " up to" : "", info.protect);
  if (info.checkpoint_every) text += fmt::format(" checkpoint {}s", info.checkpoint_every);
  if (info.grace) text += fmt::format(" grace {}s", info.grace);
  text += info.resumable ? " resumable" : "";
  text += info.preemptible ? " preemptible" : "";
  text += info.deadline_required ? " deadline" : "";
  if (info.slo) text += fmt::format(" slo {}", *info.slo);
  if (info.fast_lane_gpus) text += fmt::format(" fast_lane {}", info.fast_lane_gpus);
  if (info.progress_every) {
    text += fmt::format(" progress {}s after {}s else {}", info.progress_every, info.progress_after,
                        stall_action_name(info.on_stall));
  }
  return text + "\n";
}

// Epoch seconds with the day they fall on, `1797724800 (2026-12-20)`.
std::string epoch_text(double seconds) {
  return fmt::format("{} ({})", seconds, format_date(Date{static_cast<int>(seconds / 86400)}));
}

std::string exception_text(const ExceptionInfo& exception) {
  std::string text = fmt::format("  {}: #{} {:+}", exception.name, exception.to, exception.delta);
  text += exception.from >= 0 ? fmt::format(" from #{}", exception.from) : " from unallocated";
  if (exception.starts != 0) text += " starts " + epoch_text(exception.starts);
  return text + " expires " + epoch_text(exception.expires) + "\n";
}

std::string gate_text(const GateInfo& gate) {
  const GateMetricInfo& metric = gate_metric_info(gate.metric);
  std::string text = fmt::format("  {}{}", metric.name, gate.subject.empty() ? "" : " " + gate.subject);
  const bool seconds = metric.unit == GateUnit::seconds;
  text += fmt::format(" {} {}{}", gate_op_text(gate.op), gate.threshold, seconds ? "s" : "");
  return text + (gate.window ? fmt::format(" over {}s\n", *gate.window) : "\n");
}

std::string tables_text(const PolicyTables& tables) {
  std::string text = fmt::format("unit {}", tables.unit.dominant ? "dominant" : "gpu_hours");
  for (const auto& [name, weight] : tables.unit.weights) text += fmt::format(" {}={}", name, weight);
  text += fmt::format("\nwindow {}s half_life {}\nfairshare {}\n", tables.window, optional_seconds(tables.half_life),
                      tables.fairshare);
  text += "accounts:\n";
  for (std::size_t i = 0; i < tables.accounts.size(); ++i) text += account_text(i, tables.accounts[i]);
  text += "classes:\n";
  for (std::size_t i = 0; i < tables.classes.size(); ++i) text += class_text(i, tables.classes[i]);
  text += "exceptions:\n";
  for (const auto& exception : tables.exceptions) text += exception_text(exception);
  text += "gates:\n";
  for (const auto& gate : tables.gates) text += gate_text(gate);
  return text;
}

std::string fields_read_text(const LoweredPolicy& policy) {
  std::string text = "reads:";
  for (auto field : policy.job_fields_read) text += fmt::format(" job.{}", column_name(Type::job, field));
  for (auto field : policy.account_fields_read) text += fmt::format(" account.{}", column_name(Type::account, field));
  return text + "\n";
}

}  // namespace

std::string print(const LoweredPolicy& policy) {
  std::string text = fmt::format("policy {}\nsource sha256:{}\n", policy.tables.name, policy.source_hash);
  text += tables_text(policy.tables) + fields_read_text(policy);
  text += function_text("rank", policy.rank, {"job", "job"});
  if (policy.preempt) text += function_text("preempt", *policy.preempt, {"victim", "requester"});
  return text;
}

}  // namespace allot::ir
