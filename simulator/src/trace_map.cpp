// Reads mapping files (docs/REPLAY.md "Trace mapping"): where each trace group
// runs in the policy's tree and which class each job gets. toml++ exceptions
// stop here; callers get a TraceError naming the file, line and field.
#include <fmt/format.h>

#include "allot/simulator.h"

#include <toml++/toml.h>

#include "allot/files.h"
#include "allot/nearest_name.h"
#include "allot/toml_fields.h"

namespace allot::simulator {
namespace {

using support::FieldReader;

// "; did you mean `x`?" for the candidate nearest to a misspelt `name`, or "".
std::string did_you_mean(std::string_view name, const std::vector<std::string>& candidates) {
  const std::string nearest = support::nearest_name(name, candidates);
  return nearest.empty() ? "" : "; did you mean `" + nearest + "`?";
}

// A priority label (high, medium, low, none) as 3..0; 0 when not set.
int read_label(FieldReader& fields, std::string_view key) {
  const auto text = fields.optional_text(key);
  if (!text) return 0;
  const std::vector<std::string> labels = {"none", "low", "medium", "high"};
  for (std::size_t i = 0; i < labels.size(); ++i) {
    if (*text == labels[i]) return static_cast<int>(i);
  }
  fields.fail(key, fmt::format("unknown label `{}`; expected `high`, `medium`, `low` or `none`{}", *text,
                               did_you_mean(*text, labels)));
  return 0;
}

int read_count(FieldReader& fields, std::string_view key) {
  return static_cast<int>(fields.optional_integer(key, 1, 1'000'000).value_or(0));
}

AccountRule read_account_rule(FieldReader& fields, bool is_default) {
  AccountRule rule;
  rule.line = fields.line();
  if (is_default) {
    fields.reject_unknown_keys({"account", "label"});
  } else {
    fields.reject_unknown_keys({"name", "user", "account", "label"});
    rule.group = fields.text("name");
    rule.user = fields.optional_text("user").value_or("");
  }
  rule.accounts = fields.text_or_list("account");
  rule.label = read_label(fields, "label");
  return rule;
}

ClassRule read_class_rule(FieldReader& fields) {
  fields.reject_unknown_keys(
      {"name", "min_gpus", "max_gpus", "min_duration", "max_duration", "gpu_type", "deadline_slack", "protect"});
  ClassRule rule;
  rule.line = fields.line();
  rule.job_class = fields.text("name");
  rule.min_gpus = read_count(fields, "min_gpus");
  rule.max_gpus = read_count(fields, "max_gpus");
  rule.min_duration = fields.optional_duration("min_duration").value_or(0);
  rule.max_duration = fields.optional_duration("max_duration").value_or(0);
  rule.gpu_type = fields.optional_text("gpu_type").value_or("");
  rule.deadline_slack = fields.optional_duration("deadline_slack");
  rule.protect = fields.optional_duration("protect").value_or(0);
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
    FieldReader fields(*array->get(i)->as_table(), file, fmt::format("{}[{}]", key, i + 1));
    read(fields);
    if (fields.error()) return fields.error();
  }
  return std::nullopt;
}

Expected<TraceMap, TraceError> read_map(const toml::table& root, const std::string& file) {
  TraceMap map;
  map.file = file;
  FieldReader top(root, file, "");
  top.reject_unknown_keys({"start", "default", "group", "class"});
  map.start = top.optional_timestamp("start").value_or(kDefaultStart);
  if (top.error()) return unexpected(*top.error());
  if (const toml::node* node = root.get("default")) {
    if (!node->as_table())
      return unexpected(
          TraceError{file, static_cast<int>(node->source().begin.line), "default", "expected a [default] table"});
    FieldReader fields(*node->as_table(), file, "default");
    map.default_account = read_account_rule(fields, true);
    if (fields.error()) return unexpected(*fields.error());
  }
  auto problem = each_table(root, "group", file,
                            [&](FieldReader& fields) { map.accounts.push_back(read_account_rule(fields, false)); });
  if (!problem)
    problem =
        each_table(root, "class", file, [&](FieldReader& fields) { map.classes.push_back(read_class_rule(fields)); });
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
  if (!contents) return unexpected(TraceError::cannot_read(path, contents.error().reason));
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
