// Writes the canonical form of a snapshot (docs/STATE.md, "Snapshot file"):
// a fixed order of sections and keys, optional fields only when they differ
// from their defaults, times as UTC date-times, durations as the language
// writes them and numbers in their shortest exact form, so that reading the
// text back and writing it again gives the same bytes.
#include <filesystem>
#include <map>

#include <fmt/format.h>

#include "allot/dates.h"
#include "allot/snapshot.h"

#include "allot/duration.h"
#include "allot/files.h"
#include "state/snapshot_format.h"

namespace allot::runtime {
namespace {

namespace fs = std::filesystem;
using snapshot::key;
using snapshot::number;

class Writer {
 public:
  explicit Writer(const Inventory& inventory) : inventory_(inventory) {}

  void text(std::string_view name, std::string_view value) { line(name, snapshot::quoted(value)); }
  // Out of range (which save_snapshot refuses), as seconds: a date-time after
  // 9999 would not even be TOML.
  void time(std::string_view name, Seconds value) {
    line(name, in_range(name, value) ? support::format_timestamp(value) : std::to_string(value));
  }
  void duration(std::string_view name, Seconds value) { text(name, support::format_duration(value)); }
  void boolean(std::string_view name, bool value) { line(name, value ? "true" : "false"); }
  void integer(std::string_view name, std::int64_t value) { line(name, std::to_string(value)); }
  void amount(std::string_view name, double value) { line(name, number(value)); }
  void nodes(const std::vector<int>& indexes);
  // A list of names; nothing when it is empty (the reader's default).
  void names(std::string_view name, const std::vector<std::string>& values);
  void header(std::string_view header);
  void request(const JobRequest& job);
  void contract(const Contract& contract);
  void inline_inventory();
  // A table of account = amount; nothing when it is empty, unless `even_empty`.
  void amounts(std::string_view table, const std::map<std::string, double>& values, bool even_empty = false);
  std::string& out() { return out_; }
  // The first time written that the reader would refuse, as "FIELD: why"; empty when none.
  const std::string& problem() const { return problem_; }

 private:
  void line(std::string_view name, std::string_view value) { out_ += fmt::format("{} = {}\n", key(name), value); }
  bool in_range(std::string_view name, Seconds value);

  const Inventory& inventory_;
  std::string out_;
  std::string where_;                  // the field path of the current table: "running[2].contract"
  std::string list_item_;              // the last `[[list]]` item: "running[2]"
  std::map<std::string, int> counts_;  // `[[list]]` items written so far, by list
  std::string problem_;
};

// Follows the tables written so far, so a problem names its field as the reader would.
void Writer::header(std::string_view header) {
  out_ += fmt::format("\n{}\n", header);
  const bool list = header.starts_with("[[");
  std::string name(header.substr(list ? 2 : 1, header.size() - (list ? 4 : 2)));
  if (list) {
    where_ = list_item_ = fmt::format("{}[{}]", name, counts_[name]++);
  } else if (const auto dot = name.find('.'); dot != std::string::npos && !list_item_.empty()) {
    where_ = list_item_ + name.substr(dot);
  } else {
    where_ = name;
  }
}

// Times are 1970 to 9999 in every reader (support/duration.h); the first one
// outside is the problem, named by its field.
bool Writer::in_range(std::string_view name, Seconds value) {
  if (value >= 0 && value <= support::kLatestEpochSeconds) return true;
  if (problem_.empty()) {
    const std::string field = where_.empty() ? std::string(name) : fmt::format("{}.{}", where_, name);
    problem_ = fmt::format("{}: `{}` ({} seconds since 1970) is {}; a snapshot holds times from 1970 to 9999", field,
                           name, value, value < 0 ? "before 1970" : "after 9999-12-31T23:59:59Z");
  }
  return false;
}

void Writer::nodes(const std::vector<int>& indexes) {
  std::string list;
  for (const int node : indexes) {
    if (!list.empty()) list += ", ";
    list += snapshot::quoted(inventory_.nodes[static_cast<std::size_t>(node)].name);
  }
  line("nodes", "[" + list + "]");
}

void Writer::names(std::string_view name, const std::vector<std::string>& values) {
  if (values.empty()) return;
  std::string list;
  for (const std::string& value : values) list += (list.empty() ? "" : ", ") + snapshot::quoted(value);
  line(name, "[" + list + "]");
}

// The fields of a job that waits or runs; `nodes` is the caller's (a count or names).
void Writer::request(const JobRequest& job) {
  text("id", job.id);
  text("account", job.account);
  text("class", job.job_class);
  integer("gpus_per_node", job.gpus_per_node);
  if (!job.gpu_type.empty()) text("gpu_type", job.gpu_type);
  if (job.cpus_per_node != 0) amount("cpus_per_node", job.cpus_per_node);
  if (job.memory_gib_per_node != 0) amount("memory_gib_per_node", job.memory_gib_per_node);
  time("submitted", job.submitted);
  if (job.queued != 0) time("queued", job.queued);
  if (job.deadline) time("deadline", *job.deadline);
  if (job.label != 0) text("label", snapshot::label_name(job.label));
  if (job.requested_protect != 0) duration("requested_protect", job.requested_protect);
  if (job.expected_runtime != 0) duration("expected_runtime", job.expected_runtime);
  if (!job.requeueable) boolean("requeueable", false);
  if (job.restarts != 0) integer("restarts", job.restarts);
  names("partitions", job.partitions);
  names("features", job.features);
  names("nodelist", job.nodelist);
  names("exclude", job.exclude);
  if (!job.reservation.empty()) text("reservation", job.reservation);
  if (job.exclusive) boolean("exclusive", true);
  if (!job.blocked.empty()) text("blocked", job.blocked);
}

void Writer::contract(const Contract& contract) {
  header("[running.contract]");
  time("protected_until", contract.protected_until);
  if (contract.checkpoint_every != 0) duration("checkpoint_every", contract.checkpoint_every);
  if (contract.grace != 0) duration("grace", contract.grace);
  boolean("resumable", contract.resumable);
  boolean("preemptible", contract.preemptible);
  if (!contract.policy_hash.empty()) text("policy_hash", contract.policy_hash);
  if (contract.yields_at) time("yields_at", *contract.yields_at);
  if (contract.progress_every != 0) {
    duration("progress_every", contract.progress_every);
    if (contract.progress_after != 0) duration("progress_after", contract.progress_after);
    text("on_stall", stall_action_name(contract.on_stall));
  }
}

// One `[[node]]` per node, whether the file it came from used groups or not.
void Writer::inline_inventory() {
  header("[cluster]");
  if (!inventory_.name.empty()) text("name", inventory_.name);
  for (const Node& node : inventory_.nodes) {
    header("[[node]]");
    text("name", node.name);
    text("gpu_type", inventory_.gpu_types[static_cast<std::size_t>(node.gpu_type)]);
    integer("gpus", node.gpus);
    integer("cpus", node.cpus);
    amount("memory_gib", node.memory_gib);
    text("block", inventory_.blocks[static_cast<std::size_t>(node.block)]);
    if (node.state != NodeState::up) text("state", node_state_name(node.state));
    if (node.drain_deadline) time("drain_deadline", *node.drain_deadline);
    names("features", node.features);
  }
  for (auto [table, sets] : {std::pair{"[[partition]]", &inventory_.partitions},
                             std::pair{"[[advance_reservation]]", &inventory_.advance_reservations}}) {
    for (const NodeSet& set : *sets) {
      header(table);
      text("name", set.name);
      nodes(set.nodes);
    }
  }
}

void Writer::amounts(std::string_view table, const std::map<std::string, double>& values, bool even_empty) {
  if (values.empty() && !even_empty) return;
  header(fmt::format("[{}]", table));
  for (const auto& [account, value] : values) amount(account, value);
}

// `inventory_file` as written in a snapshot at `path`: relative to its folder,
// or absolute when the two share nothing below the root (a snapshot in /tmp
// referring to /srv/...: "../../srv/..." would only obscure it).
std::string inventory_reference(const std::string& inventory_file, const std::string& path) {
  const fs::path target = fs::absolute(inventory_file).lexically_normal();
  const fs::path folder = fs::absolute(path).lexically_normal().parent_path();
  const auto top = [](const fs::path& p) {
    return std::next(p.begin()) == p.end() ? fs::path() : *std::next(p.begin());
  };
  const fs::path relative = target.lexically_relative(folder);
  if (relative.empty() || top(target) != top(folder)) return target.generic_string();
  return relative.generic_string();
}

void write_snapshot(const Snapshot& snapshot, const std::string& path, Writer& writer) {
  const ClusterState& state = snapshot.state;
  writer.out() = "# An Allot state snapshot (docs/STATE.md, \"Snapshot file\").\n";
  writer.time("now", state.now);
  if (snapshot.inventory_file.empty()) {
    writer.inline_inventory();
  } else {
    writer.text("inventory", inventory_reference(snapshot.inventory_file, path));
  }
  writer.amounts("usage", state.usage);
  writer.amounts("debt", state.debt);
  writer.amounts("owed", state.owed);
  // Even empty: the table's presence says the driver's ledger counts it.
  if (state.without_progress) writer.amounts("without_progress", *state.without_progress, true);
  for (const JobRequest& job : state.pending) {
    writer.header("[[job]]");
    writer.request(job);
    if (job.nodes != 1) writer.integer("nodes", job.nodes);
  }
  for (const RunningJob& job : state.running) {
    writer.header("[[running]]");
    writer.request(job.request);
    writer.nodes(job.nodes);
    writer.time("started", job.started);
    if (job.last_checkpoint != job.started) writer.time("last_checkpoint", job.last_checkpoint);
    if (job.checkpoint_reported) writer.boolean("checkpoint_reported", true);
    if (job.last_progress) writer.time("last_progress", *job.last_progress);
    if (job.stopping_at) writer.time("stopping_at", *job.stopping_at);
    writer.contract(job.contract);
  }
  for (const Reservation& reservation : state.reservations) {
    writer.header("[[reservation]]");
    writer.text("job", reservation.job_id);
    writer.nodes(reservation.nodes);
    writer.time("until", reservation.until);
    writer.integer("gpus_per_node", reservation.gpus_per_node);
    if (reservation.cpus_per_node != 0) writer.amount("cpus_per_node", reservation.cpus_per_node);
    if (reservation.memory_gib_per_node != 0) writer.amount("memory_gib_per_node", reservation.memory_gib_per_node);
  }
}

}  // namespace

std::string snapshot_text(const Snapshot& snapshot, const std::string& path) {
  Writer writer(snapshot.state.inventory);
  write_snapshot(snapshot, path, writer);
  return std::move(writer.out());
}

std::optional<std::string> save_snapshot(const Snapshot& snapshot, const std::string& path) {
  Writer writer(snapshot.state.inventory);
  write_snapshot(snapshot, path, writer);
  const std::string& text = writer.out();
  // Never write what the reader refuses (a protection past 9999, say): the next
  // cycle could not start from it. A time out of range is named by its field;
  // anything else the reader is the one definition of valid.
  std::string problem = writer.problem();
  if (problem.empty()) {
    if (auto read_back = parse_snapshot(text, path); !read_back) problem = read_back.error().to_string();
  }
  if (!problem.empty()) {
    return fmt::format("not writing `{}`: the state would not read back: {}", path, problem);
  }
  // Atomic and symlink-safe (`--apply` may write over the state it read).
  return support::write_file_atomic(path, text);
}

}  // namespace allot::runtime
