// Reads mapping files (docs/SLURM.md "The mapping file"). toml++ exceptions
// stop here; callers get a MapError naming the file, line and field.
#include "job_map.h"

#include "allot/text.h"

#include "allot/files.h"

#include <fnmatch.h>

#include <algorithm>
#include <csignal>

#include <fmt/format.h>

#include "allot/nearest_name.h"
#include "allot/toml_fields.h"
#include "progress_comment.h"

namespace allot::slurm {
namespace {

using support::FieldReader;

// Slurm names a signal by number or by name ("USR1", "SIGUSR1").
std::optional<int> signal_number(const std::string& text) {
  static constexpr std::pair<std::string_view, int> kSignals[] = {
      {"USR1", SIGUSR1}, {"USR2", SIGUSR2}, {"TERM", SIGTERM}, {"INT", SIGINT}, {"HUP", SIGHUP}, {"CONT", SIGCONT}};
  const std::string_view name = std::string_view(text).substr(text.rfind("SIG", 0) == 0 ? 3 : 0);
  for (const auto& [known, number] : kSignals) {
    if (name == known) return number;
  }
  return std::nullopt;
}

void read_settings(FieldReader& fields, AdapterSettings& settings) {
  fields.reject_unknown_keys({"priority_floor", "priority_ceiling", "charge_every", "max_writes_per_pass",
                              "write_threads", "checkpoint_signal", "default_gpu_type", "max_accounting_gap"});
  constexpr std::int64_t kHighest = 4'000'000'000;  // below NO_VAL (0xfffffffe) and INFINITE
  settings.priority_floor = static_cast<std::uint32_t>(
      fields.optional_integer("priority_floor", 2, kHighest).value_or(settings.priority_floor));
  settings.priority_ceiling = static_cast<std::uint32_t>(
      fields.optional_integer("priority_ceiling", 2, kHighest).value_or(settings.priority_ceiling));
  if (settings.priority_ceiling < settings.priority_floor + 1000) {
    fields.fail("priority_ceiling", "`priority_ceiling` must exceed `priority_floor` by at least 1000");
  }
  settings.charge_every = fields.optional_duration("charge_every").value_or(settings.charge_every);
  settings.max_writes_per_pass = static_cast<int>(
      fields.optional_integer("max_writes_per_pass", 1, 1'000'000).value_or(settings.max_writes_per_pass));
  settings.write_threads =
      static_cast<int>(fields.optional_integer("write_threads", 1, 64).value_or(settings.write_threads));
  if (auto name = fields.optional_text("checkpoint_signal")) {
    if (auto number = signal_number(*name)) {
      settings.checkpoint_signal = *number;
    } else {
      fields.fail("checkpoint_signal",
                  fmt::format("unknown signal `{}`; use USR1, USR2, TERM, INT, HUP or CONT", *name));
    }
  }
  settings.default_gpu_type = fields.optional_text("default_gpu_type").value_or(settings.default_gpu_type);
  settings.max_accounting_gap = fields.optional_duration("max_accounting_gap").value_or(settings.max_accounting_gap);
}

MapRule read_rule(FieldReader& fields, const toml::table& table, std::string_view target_key) {
  std::vector<std::string_view> known(std::begin(kConditionKeys), std::end(kConditionKeys));
  known.push_back(target_key);
  fields.reject_unknown_keys(known);
  MapRule rule;
  rule.line = static_cast<int>(table.source().begin.line);
  rule.target = fields.text(target_key);
  for (std::string_view key : kConditionKeys) condition(rule.match, key) = fields.optional_text(key);
  return rule;
}

std::optional<MapError> read_rules(const toml::table& root, const std::string& file, std::string_view key,
                                   std::string_view target_key, std::vector<MapRule>& rules) {
  const toml::node* node = root.get(key);
  if (node == nullptr) return std::nullopt;
  const toml::array* array = node->as_array();
  if (array == nullptr || !array->is_array_of_tables()) {
    return MapError{file, static_cast<int>(node->source().begin.line), std::string(key),
                    fmt::format("expected [[{}]] tables", key)};
  }
  for (std::size_t i = 0; i < array->size(); ++i) {
    const toml::table& table = *array->get(i)->as_table();
    FieldReader fields(table, file, fmt::format("{}[{}]", key, i + 1));
    rules.push_back(read_rule(fields, table, target_key));
    if (fields.error()) return *fields.error();
  }
  return std::nullopt;
}

Expected<JobMap, MapError> read_map(const toml::table& root, const std::string& file) {
  JobMap map;
  map.file = file;
  FieldReader top(root, file, "");
  top.reject_unknown_keys({"adapter", "account", "class"});
  if (top.error()) return unexpected(*top.error());
  if (const toml::node* node = root.get("adapter")) {
    if (!node->is_table()) {
      return unexpected(
          MapError{file, static_cast<int>(node->source().begin.line), "adapter", "expected an [adapter] table"});
    }
    FieldReader fields(*node->as_table(), file, "adapter");
    read_settings(fields, map.settings);
    if (fields.error()) return unexpected(*fields.error());
  }
  if (auto error = read_rules(root, file, "account", "account", map.accounts)) return unexpected(*error);
  if (auto error = read_rules(root, file, "class", "class", map.classes)) return unexpected(*error);
  if (map.accounts.empty()) {
    return unexpected(MapError{file, 1, "account", "the map has no [[account]] rules; jobs would charge no account"});
  }
  if (map.classes.empty()) {
    return unexpected(
        MapError{file, 1, "class", "the map has no [[class]] rules; add one, the last without conditions"});
  }
  return map;
}

bool glob_matches(const std::optional<std::string>& pattern, const std::string& value) {
  return !pattern || fnmatch(pattern->c_str(), value.c_str(), 0) == 0;
}

const MapRule* first_match(const std::vector<MapRule>& rules, const SlurmJob& job) {
  const auto found =
      std::find_if(rules.begin(), rules.end(), [&](const MapRule& rule) { return matches(rule.match, job); });
  return found == rules.end() ? nullptr : &*found;
}

void replace_all(std::string& text, std::string_view from, const std::string& to) {
  for (std::size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size())) {
    text.replace(at, from.size(), to);
  }
}

bool is_template(const std::string& target) { return target.find('{') != std::string::npos; }

std::string nearest_listed(const std::string& name, const std::vector<std::string>& names) {
  return support::nearest_name(name, names);
}

}  // namespace

std::optional<std::string>& condition(JobMatch& match, std::string_view key) {
  if (key == "slurm_account") return match.slurm_account;
  if (key == "user") return match.user;
  if (key == "partition") return match.partition;
  if (key == "qos") return match.qos;
  if (key == "name") return match.name;
  return match.comment;
}

const std::optional<std::string>& condition(const JobMatch& match, std::string_view key) {
  return condition(const_cast<JobMatch&>(match), key);
}

Expected<JobMap, MapError> parse_job_map(const std::string& text, const std::string& file) {
  try {
    const toml::table root = toml::parse(text, file);
    return read_map(root, file);
  } catch (const toml::parse_error& error) {
    return unexpected(
        MapError{file, static_cast<int>(error.source().begin.line), "", std::string(error.description())});
  }
}

Expected<JobMap, MapError> load_job_map(const std::string& path) {
  // Bounded: a folder, FIFO or device is refused, a file over the limit is not read.
  auto contents = support::read_file(path, support::kMaxMapBytes);
  if (!contents) return unexpected(MapError::cannot_read(path, contents.error().reason));
  return parse_job_map(*contents, path);
}

std::optional<MapError> check_job_map(const JobMap& map, const PolicyTables& tables) {
  std::vector<std::string> leaves, classes;
  for (const AccountInfo& account : tables.accounts) {
    if (account.leaf && !account.path.empty()) leaves.push_back(account.path);
  }
  for (const ClassInfo& info : tables.classes) classes.push_back(info.name);
  const auto check = [&](const std::vector<MapRule>& rules, const char* key, const std::vector<std::string>& names,
                         const char* what) -> std::optional<MapError> {
    for (std::size_t i = 0; i < rules.size(); ++i) {
      const std::string& target = rules[i].target;
      if (is_template(target) || std::find(names.begin(), names.end(), target) != names.end()) continue;
      const std::string near = nearest_listed(target, names);
      return MapError{map.file, rules[i].line, fmt::format("{}[{}].{}", key, i + 1, key),
                      fmt::format("policy `{}` has no {} `{}`{}", tables.name, what, target,
                                  near.empty() ? "" : fmt::format("; did you mean `{}`?", near))};
    }
    return std::nullopt;
  };
  if (auto error = check(map.accounts, "account", leaves, "leaf account")) return error;
  return check(map.classes, "class", classes, "class");
}

bool matches(const JobMatch& match, const SlurmJob& job) {
  return glob_matches(match.slurm_account, job.account) && glob_matches(match.user, job.user) &&
         glob_matches(match.partition, job.partition) && glob_matches(match.qos, job.qos) &&
         glob_matches(match.name, job.name) && glob_matches(match.comment, comment_without_report(job.comment));
}

std::optional<std::string> account_of(const JobMap& map, const SlurmJob& job) {
  const MapRule* rule = first_match(map.accounts, job);
  if (rule == nullptr) return std::nullopt;
  std::string account = rule->target;
  replace_all(account, "{user}", job.user);
  replace_all(account, "{account}", job.account);
  return account;
}

std::optional<std::string> class_of(const JobMap& map, const SlurmJob& job) {
  const MapRule* rule = first_match(map.classes, job);
  if (rule == nullptr) return std::nullopt;
  return rule->target;
}

}  // namespace allot::slurm
