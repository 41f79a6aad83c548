// Reads the snapshot format (docs/STATE.md, "Snapshot file"): `now`, the
// inventory (inline or referenced), `[[job]]` (the queue), `[[running]]` with
// their contracts, `[[reservation]]`, `[usage]`, `[debt]`, `[owed]` and
// `[without_progress]`. Every problem is an error naming the file, line,
// column and field; toml++ exceptions stop here.
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <limits>
#include <map>
#include <string>
#include <unordered_map>

#include <fmt/format.h>

#include "allot/dates.h"
#include "allot/job_table.h"
#include "allot/snapshot.h"

#include "allot/accounting.h"
#include "allot/files.h"
#include "allot/nearest_name.h"
#include "state/inventory_tables.h"
#include "state/snapshot_format.h"

namespace allot::runtime {
namespace {

namespace fs = std::filesystem;
using Failure = Unexpected<SnapshotError>;

constexpr std::int64_t kMaxNodes = kMaxInventoryNodes;  // a job's nodes
constexpr std::int64_t kMaxRestarts = 1'000'000;
constexpr std::size_t kMaxBlockedBytes = 4096;  // a job's `blocked` sentence
constexpr double kNoMinimum = std::numeric_limits<double>::lowest();

// Fields a waiting job and a running job share (a running job lists its nodes by name).
const std::vector<std::string_view> kRequestKeys = {"id",
                                                    "account",
                                                    "class",
                                                    "gpus_per_node",
                                                    "gpu_type",
                                                    "cpus_per_node",
                                                    "memory_gib_per_node",
                                                    "submitted",
                                                    "queued",
                                                    "deadline",
                                                    "label",
                                                    "requested_protect",
                                                    "expected_runtime",
                                                    "requeueable",
                                                    "restarts",
                                                    "partitions",
                                                    "features",
                                                    "nodelist",
                                                    "exclude",
                                                    "reservation",
                                                    "exclusive",
                                                    "blocked"};

std::vector<std::string_view> with(std::vector<std::string_view> keys, std::initializer_list<std::string_view> more) {
  keys.insert(keys.end(), more);
  return keys;
}

int read_label(FieldReader& fields) {
  const auto name = fields.optional_text("label");
  if (!name) return 0;
  if (const auto label = snapshot::label_value(*name)) return *label;
  fields.fail("label", fmt::format("unknown label `{}`; expected `none`, `low`, `medium` or `high`", *name));
  return 0;
}

JobRequest read_request(FieldReader& fields) {
  JobRequest job;
  job.id = fields.text("id");
  job.account = fields.text("account");
  job.job_class = fields.text("class");
  job.gpus_per_node = static_cast<int>(fields.integer("gpus_per_node", 0, 1024));
  job.gpu_type = fields.optional_text("gpu_type").value_or("");
  job.cpus_per_node = fields.optional_number("cpus_per_node", 0).value_or(0);
  job.memory_gib_per_node = fields.optional_number("memory_gib_per_node", 0).value_or(0);
  job.submitted = fields.timestamp("submitted");
  job.queued = fields.optional_timestamp("queued").value_or(0);
  job.deadline = fields.optional_timestamp("deadline");
  job.label = read_label(fields);
  job.requested_protect = fields.optional_duration("requested_protect").value_or(0);
  job.expected_runtime = fields.optional_duration("expected_runtime").value_or(0);
  job.requeueable = fields.optional_boolean("requeueable").value_or(true);
  job.restarts = static_cast<int>(fields.optional_integer("restarts", 0, kMaxRestarts).value_or(0));
  for (auto [key, list] : {std::pair{"partitions", &job.partitions}, std::pair{"features", &job.features},
                           std::pair{"nodelist", &job.nodelist}, std::pair{"exclude", &job.exclude}}) {
    if (fields.has(key)) *list = fields.text_or_list(key);
  }
  job.reservation = fields.optional_text("reservation").value_or("");
  job.exclusive = fields.optional_boolean("exclusive").value_or(false);
  job.blocked = fields.optional_text("blocked", kMaxBlockedBytes).value_or("");
  return job;
}

// A `[[job]]` table: the request and its node count.
JobRequest read_pending_request(FieldReader& fields) {
  fields.reject_unknown_keys(with(kRequestKeys, {"nodes"}));
  JobRequest job = read_request(fields);
  job.nodes = static_cast<int>(fields.optional_integer("nodes", 1, kMaxNodes).value_or(1));
  return job;
}

// A contract's `on_stall`, as a policy writes the action.
StallAction read_stall_action(FieldReader& fields) {
  const auto name = fields.optional_text("on_stall");
  if (!name) return StallAction::preempt;
  for (const StallAction action : {StallAction::preempt, StallAction::keep, StallAction::stop}) {
    if (*name == stall_action_name(action)) return action;
  }
  fields.fail("on_stall", fmt::format("unknown `on_stall` `{}`; expected `preempt`, `keep` or `stop`", *name));
  return StallAction::preempt;
}

Contract read_contract(FieldReader& fields) {
  fields.reject_unknown_keys({"protected_until", "checkpoint_every", "grace", "resumable", "preemptible", "policy_hash",
                              "yields_at", "progress_every", "progress_after", "on_stall"});
  Contract contract;
  contract.protected_until = fields.timestamp("protected_until");
  contract.checkpoint_every = fields.optional_duration("checkpoint_every").value_or(0);
  contract.grace = fields.optional_duration("grace").value_or(0);
  contract.resumable = fields.optional_boolean("resumable").value_or(false);
  contract.preemptible = fields.optional_boolean("preemptible").value_or(true);
  contract.policy_hash = fields.optional_text("policy_hash").value_or("");
  contract.yields_at = fields.optional_timestamp("yields_at");
  contract.progress_every = fields.optional_duration("progress_every").value_or(0);
  contract.progress_after = fields.optional_duration("progress_after").value_or(0);
  contract.on_stall = read_stall_action(fields);
  if (contract.progress_every == 0 && (contract.progress_after != 0 || fields.optional_text("on_stall"))) {
    fields.fail("progress_every", "`progress_after` and `on_stall` belong to a progress rule: set `progress_every`");
  }
  return contract;
}

class Reader {
 public:
  Reader(const toml::table& root, const std::string& file, std::optional<Seconds> now)
      : root_(root), file_(file), top_(root, file, ""), now_override_(now) {}
  Expected<Snapshot, SnapshotError> read();

 private:
  std::optional<SnapshotError> read_inventory();
  void index_nodes();
  void read_pending(const toml::table& table, std::size_t index);
  void read_running(const toml::table& table, std::size_t index);
  void read_reservation(const toml::table& table, std::size_t index);
  void read_amounts(std::string_view key, double min, std::map<std::string, double>& amounts);
  void check_owed();
  void check_without_progress();
  std::optional<SnapshotError> read_list(std::string_view key,
                                         void (Reader::*read_one)(const toml::table&, std::size_t));
  std::vector<int> node_indexes(const toml::table& table, FieldReader& fields, const std::string& gpu_type);
  std::string unknown_node_message(const std::string& name) const;
  void check_times(FieldReader& fields, const JobRequest& job);
  void claim_id(FieldReader& fields, const std::string& id, const std::string& owner);
  void hold_gpus(const toml::table& table, FieldReader& fields, const RunningJob& job);
  void fail(const std::optional<SnapshotError>& error) {
    if (error && !error_) error_ = error;
  }
  // How errors name the time jobs are checked against: `--now` when it replaced the file's.
  std::string now_name() const {
    return fmt::format("{} ({})", now_override_ ? "`--now`" : "`now`", support::format_timestamp(snapshot_.state.now));
  }

  const toml::table& root_;
  const std::string& file_;
  FieldReader top_;
  std::optional<Seconds> now_override_;
  Snapshot snapshot_;
  std::unordered_map<std::string_view, int> node_index_;
  std::unordered_map<std::string, std::string> owner_of_id_;  // job id -> "job[2]" or "running[0]"
  std::vector<int> gpus_held_;                                // by node, by running jobs that have not stopped
  std::optional<SnapshotError> error_;
};

Expected<Snapshot, SnapshotError> Reader::read() {
  top_.reject_unknown_keys({"now", "inventory", "cluster", "node", "group", "partition", "advance_reservation", "job",
                            "running", "reservation", "usage", "debt", "owed", "without_progress"});
  snapshot_.state.now = top_.timestamp("now");
  if (top_.error()) return Failure{*top_.error()};
  // Set before any job is read, so every time is checked against the now the cycle will use.
  if (now_override_) snapshot_.state.now = *now_override_;
  if (auto error = read_inventory()) return Failure{*error};
  index_nodes();
  fail(read_list("job", &Reader::read_pending));
  fail(read_list("running", &Reader::read_running));
  fail(read_list("reservation", &Reader::read_reservation));
  if (!error_) read_amounts("usage", 0, snapshot_.state.usage);
  if (!error_) read_amounts("debt", kNoMinimum, snapshot_.state.debt);
  if (!error_) read_amounts("owed", 0, snapshot_.state.owed);
  if (!error_) check_owed();
  // Present, even empty, means the driver counts it (`allot shares` shows the column).
  if (!error_ && root_.contains("without_progress")) {
    read_amounts("without_progress", 0, snapshot_.state.without_progress.emplace());
  }
  if (!error_) check_without_progress();
  if (error_) return Failure{*error_};
  return std::move(snapshot_);
}

std::optional<SnapshotError> Reader::read_inventory() {
  const bool inline_tables = root_.contains("cluster") || root_.contains("node") || root_.contains("group");
  if (!root_.contains("inventory")) {
    if (!inline_tables) {
      top_.fail("inventory",
                "missing inventory; write `inventory = \"cluster.toml\"` or inline `[[node]]` and `[[group]]` tables");
      return top_.error();
    }
    auto inventory = read_inventory_tables(root_, file_);
    if (!inventory) return inventory.error();
    snapshot_.state.inventory = std::move(*inventory);
    return std::nullopt;
  }
  const std::string reference = top_.text("inventory", support::kMaxPathBytes);
  if (!top_.error() && inline_tables) {
    top_.fail("inventory", "set either `inventory = \"FILE\"` or inline `[[node]]`/`[[group]]` tables, not both");
  }
  if (top_.error()) return top_.error();
  const fs::path path = (fs::path(file_).parent_path() / reference).lexically_normal();
  auto inventory = load_inventory(path.string());
  if (!inventory && inventory.error().unreadable) {
    top_.fail("inventory", fmt::format("cannot read the inventory file `{}`", path.string()));
    return top_.error();
  }
  if (!inventory) return inventory.error();
  snapshot_.state.inventory = std::move(*inventory);
  snapshot_.inventory_file = path.string();
  return std::nullopt;
}

void Reader::index_nodes() {
  const auto& nodes = snapshot_.state.inventory.nodes;
  for (std::size_t i = 0; i < nodes.size(); ++i) node_index_.emplace(nodes[i].name, static_cast<int>(i));
  gpus_held_.assign(nodes.size(), 0);
}

// Reads every table of the array `[[key]]` with `read_one`, stopping at the first error.
std::optional<SnapshotError> Reader::read_list(std::string_view key,
                                               void (Reader::*read_one)(const toml::table&, std::size_t)) {
  const toml::node* node = root_.get(key);
  if (node == nullptr) return std::nullopt;
  if (!node->is_array_of_tables()) {
    top_.fail(key, fmt::format("`{}` must be a list of tables: write `[[{}]]`", key, key));
    return top_.error();
  }
  const toml::array& tables = *node->as_array();
  for (std::size_t i = 0; i < tables.size() && !error_; ++i) (this->*read_one)(*tables.get(i)->as_table(), i);
  return error_;
}

void Reader::claim_id(FieldReader& fields, const std::string& id, const std::string& owner) {
  if (fields.error()) return;
  const auto [it, inserted] = owner_of_id_.emplace(id, owner);
  if (!inserted) fields.fail("id", fmt::format("duplicate job id `{}`; {} has it already", id, it->second));
}

// Submission, queueing and (for running jobs) start and checkpoint times must
// not contradict `now` (or `--now`, which replaces it).
void Reader::check_times(FieldReader& fields, const JobRequest& job) {
  const Seconds now = snapshot_.state.now;
  if (job.submitted > now) {
    fields.fail("submitted", fmt::format("`submitted` ({}) is after {}{}", support::format_timestamp(job.submitted),
                                         now_override_ ? "" : "the snapshot's ", now_name()));
  }
  if (job.queued != 0 && (job.queued < job.submitted || job.queued > now)) {
    fields.fail("queued", fmt::format("`queued` ({}) must be between `submitted` ({}) and {}",
                                      support::format_timestamp(job.queued), support::format_timestamp(job.submitted),
                                      now_name()));
  }
}

void Reader::read_pending(const toml::table& table, std::size_t index) {
  const std::string name = fmt::format("job[{}]", index);
  FieldReader fields(table, file_, name);
  JobRequest job = read_pending_request(fields);
  check_times(fields, job);
  claim_id(fields, job.id, name);
  fail(fields.error());
  snapshot_.state.pending.push_back(std::move(job));
}

// The nodes named by `nodes`: known, distinct, and of the job's GPU type if it has one.
std::vector<int> Reader::node_indexes(const toml::table& table, FieldReader& fields, const std::string& gpu_type) {
  const std::vector<std::string> names = fields.text_list("nodes");
  if (!fields.error() && names.empty()) fields.fail("nodes", "`nodes` must name at least one node");
  if (fields.error()) return {};
  const toml::array& array = *table.get("nodes")->as_array();
  const Inventory& inventory = snapshot_.state.inventory;
  std::vector<int> indexes;
  for (std::size_t i = 0; i < names.size() && !fields.error(); ++i) {
    const toml::node& where = *array.get(i);
    const std::string field = fmt::format("nodes[{}]", i);
    const auto found = node_index_.find(names[i]);
    if (found == node_index_.end()) {
      fields.fail_at(where, field, unknown_node_message(names[i]));
      break;
    }
    const Node& node = inventory.nodes[static_cast<std::size_t>(found->second)];
    if (std::find(indexes.begin(), indexes.end(), found->second) != indexes.end()) {
      fields.fail_at(where, field, fmt::format("node `{}` is listed twice; a job holds each node once", names[i]));
    } else if (!gpu_type.empty() && inventory.gpu_types[static_cast<std::size_t>(node.gpu_type)] != gpu_type) {
      fields.fail_at(where, field,
                     fmt::format("node `{}` has {} GPUs; the job asks for `{}`", names[i],
                                 inventory.gpu_types[static_cast<std::size_t>(node.gpu_type)], gpu_type));
    }
    indexes.push_back(found->second);
  }
  return indexes;
}

std::string Reader::unknown_node_message(const std::string& name) const {
  std::vector<std::string_view> names;
  names.reserve(snapshot_.state.inventory.nodes.size());
  for (const Node& node : snapshot_.state.inventory.nodes) names.push_back(node.name);
  const std::string suggestion = support::nearest_name(name, names);
  const std::string cluster = snapshot_.state.inventory.name;
  return suggestion.empty()
             ? fmt::format("unknown node `{}`; the inventory `{}` has no node of that name", name, cluster)
             : fmt::format("unknown node `{}`; did you mean `{}`?", name, suggestion);
}

// A running job's GPUs count against each of its nodes; a node cannot hold more than it has.
void Reader::hold_gpus(const toml::table& table, FieldReader& fields, const RunningJob& job) {
  if (fields.error() || (job.stopping_at && *job.stopping_at <= snapshot_.state.now)) return;
  const toml::array& array = *table.get("nodes")->as_array();
  for (std::size_t i = 0; i < job.nodes.size(); ++i) {
    const Node& node = snapshot_.state.inventory.nodes[static_cast<std::size_t>(job.nodes[i])];
    int& held = gpus_held_[static_cast<std::size_t>(job.nodes[i])];
    held += job.request.gpus_per_node;
    if (held <= node.gpus) continue;
    fields.fail_at(
        *array.get(i), fmt::format("nodes[{}]", i),
        fmt::format("node `{}` has {} GPUs; running jobs up to this one hold {} of them", node.name, node.gpus, held));
    return;
  }
}

void Reader::read_running(const toml::table& table, std::size_t index) {
  const std::string name = fmt::format("running[{}]", index);
  FieldReader fields(table, file_, name);
  fields.reject_unknown_keys(with(kRequestKeys, {"nodes", "started", "last_checkpoint", "checkpoint_reported",
                                                 "last_progress", "stopping_at", "contract"}));
  RunningJob job;
  job.request = read_request(fields);
  job.started = fields.timestamp("started");
  job.last_checkpoint = fields.optional_timestamp("last_checkpoint").value_or(job.started);
  job.checkpoint_reported = fields.optional_boolean("checkpoint_reported").value_or(false);
  job.last_progress = fields.optional_timestamp("last_progress");
  job.stopping_at = fields.optional_timestamp("stopping_at");
  job.nodes = node_indexes(table, fields, job.request.gpu_type);
  job.request.nodes = static_cast<int>(job.nodes.size());
  if (const toml::node* contract = table.get("contract"); contract && !fields.error()) {
    if (contract->is_table()) {
      FieldReader contract_fields(*contract->as_table(), file_, name + ".contract");
      job.contract = read_contract(contract_fields);
      if (job.contract.yields_at && *job.contract.yields_at < job.started) {
        contract_fields.fail("yields_at", fmt::format("`yields_at` ({}) is before the job's `started` ({})",
                                                      support::format_timestamp(*job.contract.yields_at),
                                                      support::format_timestamp(job.started)));
      }
      fail(contract_fields.error());
    } else {
      fields.fail("contract",
                  fmt::format("`contract` must be a table: write `[running.contract]`, not {}", kind_name(*contract)));
    }
  }
  check_times(fields, job.request);
  const Seconds now = snapshot_.state.now;
  if (job.started < job.request.submitted || job.started > now) {
    fields.fail("started", fmt::format("`started` ({}) must be between `submitted` ({}) and {}",
                                       support::format_timestamp(job.started),
                                       support::format_timestamp(job.request.submitted), now_name()));
  }
  if (job.last_checkpoint < job.started || job.last_checkpoint > now) {
    fields.fail("last_checkpoint", fmt::format("`last_checkpoint` ({}) must be between `started` ({}) and {}",
                                               support::format_timestamp(job.last_checkpoint),
                                               support::format_timestamp(job.started), now_name()));
  }
  // A report from before the run or from the future contradicts the clock.
  if (job.last_progress && (*job.last_progress < job.started || *job.last_progress > now)) {
    fields.fail("last_progress", fmt::format("`last_progress` ({}) must be between `started` ({}) and {}",
                                             support::format_timestamp(*job.last_progress),
                                             support::format_timestamp(job.started), now_name()));
  }
  claim_id(fields, job.request.id, name);
  hold_gpus(table, fields, job);
  fail(fields.error());
  snapshot_.state.running.push_back(std::move(job));
}

void Reader::read_reservation(const toml::table& table, std::size_t index) {
  FieldReader fields(table, file_, fmt::format("reservation[{}]", index));
  fields.reject_unknown_keys({"job", "nodes", "until", "gpus_per_node", "cpus_per_node", "memory_gib_per_node"});
  Reservation reservation;
  reservation.job_id = fields.text("job");
  reservation.until = fields.timestamp("until");
  reservation.gpus_per_node = static_cast<int>(fields.integer("gpus_per_node", 0, 1024));
  reservation.cpus_per_node = fields.optional_number("cpus_per_node", 0).value_or(0);
  reservation.memory_gib_per_node = fields.optional_number("memory_gib_per_node", 0).value_or(0);
  reservation.nodes = node_indexes(table, fields, "");
  if (!fields.error()) {
    const auto owner = owner_of_id_.find(reservation.job_id);
    if (owner == owner_of_id_.end() || owner->second.rfind("job[", 0) != 0) {
      fields.fail("job", fmt::format("no waiting job `{}`; a reservation holds capacity for a job in `[[job]]`",
                                     reservation.job_id));
    }
  }
  fail(fields.error());
  snapshot_.state.reservations.push_back(std::move(reservation));
}

// What was delivered (owed - debt) cannot be negative: an account listed in
// `[owed]` owes at most what it was owed.
void Reader::check_owed() {
  const toml::node* node = root_.get("owed");
  if (node == nullptr) return;
  FieldReader fields(*node->as_table(), file_, "owed");
  for (const auto& [account, owed] : snapshot_.state.owed) {
    const auto debt = snapshot_.state.debt.find(account);
    if (debt != snapshot_.state.debt.end() && debt->second > owed) {
      fields.fail(account, fmt::format("`{}` owed {} is less than its debt {} in `[debt]`; debt is owed minus "
                                       "delivered, so it cannot exceed what was owed",
                                       account, owed, debt->second));
      return fail(fields.error());
    }
  }
}

// An account's usage as `[usage]` lists it: its own entry or, for an account
// left out, what the topmost listed accounts below it add up to (as an inner
// account left out counts, account_amounts).
double listed_usage(const std::map<std::string, double>& usage, const std::string& account) {
  if (const auto it = usage.find(account); it != usage.end()) return it->second;
  const std::string prefix = account.empty() ? "" : account + "/";
  const auto listed_between = [&](const std::string& path) {
    for (auto slash = path.find('/', prefix.size()); slash != std::string::npos; slash = path.find('/', slash + 1)) {
      if (usage.contains(path.substr(0, slash))) return true;
    }
    return false;
  };
  double total = 0;
  for (auto it = usage.lower_bound(prefix); it != usage.end() && it->first.starts_with(prefix); ++it) {
    if (!it->first.empty() && !listed_between(it->first)) total += it->second;
  }
  return total;
}

// Time held without progress is part of the usage, so an account's cannot
// exceed its `[usage]`. The driver's two ledgers add the same charges in
// other orders, so a rounding's difference is allowed.
void Reader::check_without_progress() {
  const auto& held = snapshot_.state.without_progress;
  if (!held) return;
  FieldReader fields(*root_.get("without_progress")->as_table(), file_, "without_progress");
  for (const auto& [account, amount] : *held) {
    const double usage = listed_usage(snapshot_.state.usage, account);
    if (amount <= usage + 1e-9 * std::max(1.0, usage)) continue;
    fields.fail(account, fmt::format("`{}` held {} without progress, more than its usage {} in `[usage]`; time "
                                     "held without progress is part of the usage",
                                     account, amount, usage));
    return fail(fields.error());
  }
}

// `[usage]`, `[debt]`, `[owed]` or `[without_progress]`: account path -> amount in the policy's unit.
void Reader::read_amounts(std::string_view key, double min, std::map<std::string, double>& amounts) {
  const toml::node* node = root_.get(key);
  if (node == nullptr) return;
  if (!node->is_table()) {
    top_.fail(key, fmt::format("`{}` must be a table of account = amount: write `[{}]`", key, key));
    return fail(top_.error());
  }
  FieldReader fields(*node->as_table(), file_, std::string(key));
  for (auto&& [account, value] : *node->as_table()) {
    if (const auto amount = fields.optional_number(account.str(), min)) amounts[std::string(account.str())] = *amount;
    const auto& where = value.source().begin;
    snapshot_.amount_keys.push_back(Snapshot::AmountKey{std::string(key), std::string(account.str()), file_,
                                                        static_cast<int>(where.line), static_cast<int>(where.column)});
  }
  fail(fields.error());
}

}  // namespace

Expected<Snapshot, SnapshotError> parse_snapshot(std::string_view text, const std::string& source_name,
                                                 std::optional<Seconds> now) {
  try {
    const toml::table root = toml::parse(text, source_name);
    return Reader(root, source_name, now).read();
  } catch (const toml::parse_error& error) {
    return Failure{located_error(error.source(), source_name, "", std::string(error.description()))};
  }
}

Expected<Snapshot, SnapshotError> read_snapshot_table(const toml::table& table, const std::string& source_name,
                                                      std::optional<Seconds> now) {
  return Reader(table, source_name, now).read();
}

Expected<JobRequest, SnapshotError> read_job_table(const toml::table& table, const std::string& source_name,
                                                   const std::string& name, Seconds now) {
  FieldReader fields(table, source_name, name);
  JobRequest job = read_pending_request(fields);
  if (!fields.error() && job.submitted > now) {
    fields.fail("submitted", fmt::format("`submitted` ({}) is after now ({})", support::format_timestamp(job.submitted),
                                         support::format_timestamp(now)));
  }
  if (!fields.error() && job.queued != 0 && (job.queued < job.submitted || job.queued > now)) {
    fields.fail("queued", fmt::format("`queued` ({}) must be between `submitted` ({}) and now ({})",
                                      support::format_timestamp(job.queued), support::format_timestamp(job.submitted),
                                      support::format_timestamp(now)));
  }
  if (fields.error()) return Failure{*fields.error()};
  return job;
}

Expected<Snapshot, SnapshotError> load_snapshot(const std::string& path, std::optional<Seconds> now) {
  // Bounded: a folder, FIFO or device is refused, a file over the limit is not read.
  auto contents = support::read_file(path, support::kMaxStateBytes);
  if (!contents) return Failure{SnapshotError::cannot_read(path, contents.error().reason)};
  return parse_snapshot(*contents, path, now);
}

namespace {

SnapshotError amount_key_error(const Snapshot::AmountKey& key, std::string message) {
  const std::string account = key.account.empty() ? "\"\"" : key.account;
  return SnapshotError{key.file, key.line, key.table + "." + account, std::move(message), key.column};
}

// An inner account's `[usage]` is its subtree's total, as the ledger lists it
// (RollingLedger::usage_by_account); its own usage is what the accounts below
// it do not explain. A total below theirs, or a root that differs from
// theirs (the root has no usage of its own), would be dropped without a word.
std::optional<SnapshotError> check_inner_usage(const Snapshot& snapshot, const PolicyTables& tables) {
  const std::vector<double> total = account_amounts(tables, snapshot.state.usage);
  std::vector<double> below(tables.accounts.size(), 0.0);
  for (std::size_t i = 1; i < tables.accounts.size(); ++i) {
    below[static_cast<std::size_t>(tables.accounts[i].parent)] += total[i];
  }
  for (const Snapshot::AmountKey& key : snapshot.amount_keys) {
    if (key.table != "usage") continue;
    const auto account = std::find_if(tables.accounts.begin(), tables.accounts.end(),
                                      [&](const AccountInfo& info) { return info.path == key.account; });
    const auto index = static_cast<std::size_t>(account - tables.accounts.begin());
    if (account == tables.accounts.end() || account->leaf) continue;
    const double listed = snapshot.state.usage.at(key.account);
    const double slack = 1e-9 * std::max(1.0, std::abs(below[index]));  // the ledger's sums, added in another order
    if (index == 0 && std::abs(listed - below[index]) > slack) {
      return amount_key_error(
          key, fmt::format("`[usage]` for the root must be what the accounts below it add up to ({}), not {}: the "
                           "root has no usage of its own, so the difference would count nowhere; leave it out",
                           snapshot::number(below[index]), snapshot::number(listed)));
    }
    if (listed < below[index] - slack) {
      return amount_key_error(
          key,
          fmt::format("usage {} of `{}` is less than its accounts below it list ({}); an inner account's usage "
                      "is its subtree's total, so {} cannot be kept",
                      snapshot::number(listed), key.account, snapshot::number(below[index]), snapshot::number(listed)));
    }
  }
  return std::nullopt;
}

}  // namespace

std::optional<SnapshotError> check_snapshot_accounts(const Snapshot& snapshot, const PolicyTables& tables) {
  std::vector<std::string_view> paths;
  for (const AccountInfo& account : tables.accounts) paths.push_back(account.path);
  for (const Snapshot::AmountKey& key : snapshot.amount_keys) {
    if (std::find(paths.begin(), paths.end(), key.account) != paths.end()) continue;
    std::string message = fmt::format("`{}` is not an account of policy `{}`", key.account, tables.name);
    const std::string nearest = support::nearest_name(key.account, paths);
    message += nearest.empty() ? "; keys are account paths such as `program/user`"
                               : fmt::format("; did you mean `{}`?", nearest);
    return amount_key_error(key, message);
  }
  return check_inner_usage(snapshot, tables);
}

}  // namespace allot::runtime
