// Reads mapping files (docs/REPLAY.md "Trace mapping"): where each trace group
// runs in the policy's tree and which class each job gets. toml++ exceptions
// stop here; callers get a TraceError naming the file, line and field.
#include <fmt/format.h>

#include "allot/simulator.h"

#include "allot/files.h"
#include "map_fields.h"

namespace allot::simulator {
namespace {

AccountRule read_account_rule(MapFields& fields, bool is_default) {
  AccountRule rule;
  rule.line = fields.line();
  if (is_default) {
    fields.reject_unknown_keys({"account", "label"});
  } else {
    fields.reject_unknown_keys({"name", "user", "account", "label"});
    rule.group = fields.text("name");
    rule.user = fields.optional_text("user").value_or("");
  }
  rule.accounts = fields.text_list("account");
  rule.label = fields.label("label");
  return rule;
}

ClassRule read_class_rule(MapFields& fields) {
  fields.reject_unknown_keys(
      {"name", "min_gpus", "max_gpus", "min_duration", "max_duration", "gpu_type", "deadline_slack", "protect"});
  ClassRule rule;
  rule.line = fields.line();
  rule.job_class = fields.text("name");
  rule.min_gpus = fields.count("min_gpus", 1, 1'000'000).value_or(0);
  rule.max_gpus = fields.count("max_gpus", 1, 1'000'000).value_or(0);
  rule.min_duration = fields.duration("min_duration").value_or(0);
  rule.max_duration = fields.duration("max_duration").value_or(0);
  rule.gpu_type = fields.optional_text("gpu_type").value_or("");
  rule.deadline_slack = fields.duration("deadline_slack");
  rule.protect = fields.duration("protect").value_or(0);
  if (rule.max_gpus > 0 && rule.min_gpus > rule.max_gpus) fields.fail("min_gpus", "`min_gpus` exceeds `max_gpus`");
  return rule;
}

// Reads an array of tables; `read` is called with each table's fields.
template <class Read>
std::optional<TraceError> each_table(const toml::table& root, std::string_view key, const std::string& file,
                                     Read read) {
  const toml::node* node = root.get(key);
  if (!node) return std::nullopt;
  const toml::array* array = node->as_array();
  if (!array || !array->is_array_of_tables()) {
    return TraceError{file, static_cast<int>(node->source().begin.line), std::string(key),
                      fmt::format("expected [[{}]] tables", key)};
  }
  for (std::size_t i = 0; i < array->size(); ++i) {
    MapFields fields(*array->get(i)->as_table(), file, fmt::format("{}[{}]", key, i + 1));
    read(fields);
    if (fields.error()) return fields.error();
  }
  return std::nullopt;
}

Expected<TraceMap, TraceError> read_map(const toml::table& root, const std::string& file) {
  TraceMap map;
  map.file = file;
  MapFields top(root, file, "");
  top.reject_unknown_keys({"start", "default", "group", "class"});
  map.start = top.timestamp("start").value_or(kDefaultStart);
  if (top.error()) return unexpected(*top.error());
  if (const toml::node* node = root.get("default")) {
    if (!node->as_table())
      return unexpected(
          TraceError{file, static_cast<int>(node->source().begin.line), "default", "expected a [default] table"});
    MapFields fields(*node->as_table(), file, "default");
    map.default_account = read_account_rule(fields, true);
    if (fields.error()) return unexpected(*fields.error());
  }
  auto problem = each_table(root, "group", file,
                            [&](MapFields& fields) { map.accounts.push_back(read_account_rule(fields, false)); });
  if (!problem)
    problem =
        each_table(root, "class", file, [&](MapFields& fields) { map.classes.push_back(read_class_rule(fields)); });
  if (problem) return unexpected(*problem);
  if (map.classes.empty()) {
    return unexpected(
        TraceError{file, 1, "class", "the map has no [[class]] rules; add one per class, the last without conditions"});
  }
  return map;
}

std::vector<std::string> leaf_paths(const PolicyTables& tables) {
  std::vector<std::string> leaves;
  for (std::size_t i = 1; i < tables.accounts.size(); ++i) {
    if (tables.accounts[i].leaf) leaves.push_back(tables.accounts[i].path);
  }
  return leaves;
}

std::optional<TraceError> account_problem(const TraceMap& map, const AccountRule& rule, const std::string& field,
                                          const std::vector<std::string>& leaves, const PolicyTables& tables) {
  for (const std::string& account : rule.accounts) {
    if (std::find(leaves.begin(), leaves.end(), account) != leaves.end()) continue;
    return TraceError{
        map.file, rule.line, field,
        fmt::format("policy `{}` has no leaf account `{}`{}", tables.name, account, did_you_mean(account, leaves))};
  }
  return std::nullopt;
}

}  // namespace

Expected<TraceMap, TraceError> parse_trace_map(std::string_view text, const std::string& file) {
  try {
    const toml::table root = toml::parse(text, file);
    return read_map(root, file);
  } catch (const toml::parse_error& error) {
    return unexpected(
        TraceError{file, static_cast<int>(error.source().begin.line), "", std::string(error.description())});
  }
}

Expected<TraceMap, TraceError> load_trace_map(const std::string& path) {
  // Bounded: a folder, FIFO or device is refused, a file over the limit is not read.
  auto contents = support::read_file(path, support::kMaxMapBytes);
  if (!contents) return unexpected(TraceError{path, 0, "", "cannot read the file: " + contents.error().reason});
  return parse_trace_map(*contents, path);
}

std::optional<TraceError> check_trace_map(const TraceMap& map, const PolicyTables& tables) {
  const std::vector<std::string> leaves = leaf_paths(tables);
  if (map.default_account) {
    if (auto problem = account_problem(map, *map.default_account, "default.account", leaves, tables)) return problem;
  }
  for (std::size_t i = 0; i < map.accounts.size(); ++i) {
    const std::string field = fmt::format("group[{}].account", i + 1);
    if (auto problem = account_problem(map, map.accounts[i], field, leaves, tables)) return problem;
  }
  std::vector<std::string> classes;
  for (const ClassInfo& info : tables.classes) classes.push_back(info.name);
  for (std::size_t i = 0; i < map.classes.size(); ++i) {
    const std::string& name = map.classes[i].job_class;
    if (std::find(classes.begin(), classes.end(), name) != classes.end()) continue;
    return TraceError{map.file, map.classes[i].line, fmt::format("class[{}].name", i + 1),
                      fmt::format("policy `{}` has no class `{}`{}", tables.name, name, did_you_mean(name, classes))};
  }
  return std::nullopt;
}

}  // namespace allot::simulator
