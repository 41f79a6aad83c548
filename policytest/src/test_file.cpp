// Reads policy test files (docs/TESTING.md "A test file"): every problem is an
// error naming the file, line and field, and every state is read and checked
// before a case runs.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <set>
#include <utility>

#include "allot/files.h"
#include "allot/policy_test.h"
#include "allot/toml_fields.h"

namespace allot::policytest {
namespace {

namespace fs = std::filesystem;
using support::FieldReader;

// A test file holds a few cases, each a small state: bounded like a snapshot.
constexpr std::size_t kMaxTestFileBytes = support::kMaxStateBytes;
constexpr std::size_t kMaxCases = 10'000;
// What all of a file's states may hold together (jobs, running jobs and nodes):
// each case keeps its state, so ten thousand cases of one large snapshot must
// not take all memory. Test states are small; this is far above any.
constexpr std::size_t kMaxStateItems = 500'000;

const std::vector<std::string_view> kExpectKeys = {"first", "order", "exact_order", "starts", "preempts",
                                                   "keeps", "waits", "explain",     "share"};

int line_of(const toml::node& node) { return static_cast<int>(node.source().begin.line); }

// The lines each key of a table is on, in the order of `keys`.
std::vector<std::pair<std::string, int>> key_lines(const toml::table& table,
                                                   const std::vector<std::string_view>& keys) {
  std::vector<std::pair<std::string, int>> lines;
  for (std::string_view key : keys) {
    if (const toml::node* node = table.get(key)) lines.emplace_back(std::string(key), line_of(*node));
  }
  return lines;
}

class FileReader {
 public:
  FileReader(const toml::table& root, const std::string& file) : root_(root), file_(file) {}

  Expected<TestFile, TestFileError> read() {
    FieldReader top(root_, file_, "");
    top.reject_unknown_keys({"policy", "today", "case"});
    TestFile test;
    test.file = file_;
    const std::string policy = top.text("policy", support::kMaxPathBytes);
    if (const auto today = top.optional_timestamp("today")) test.today = Date{static_cast<int>(*today / 86400)};
    if (top.error()) return unexpected(*top.error());
    test.policy = (fs::path(file_).parent_path() / policy).lexically_normal().string();
    const toml::array* cases = root_.get_as<toml::array>("case");
    if (cases == nullptr || cases->empty() || !cases->is_array_of_tables()) {
      top.fail("case", "a test file has at least one `[[case]]` table (docs/TESTING.md)");
      return unexpected(*top.error());
    }
    if (cases->size() > kMaxCases) {
      top.fail("case", fmt::format("{} cases; a test file holds at most {}", cases->size(), kMaxCases));
      return unexpected(*top.error());
    }
    std::set<std::string> names;
    std::size_t items = 0;
    for (std::size_t i = 0; i < cases->size(); ++i) {
      auto one = read_case(*cases->get(i)->as_table(), i);
      if (!one) return unexpected(one.error());
      const runtime::ClusterState& state = one->state.state;
      items += state.pending.size() + state.running.size() + state.inventory.nodes.size();
      if (items > kMaxStateItems) {
        FieldReader fields(*cases->get(i)->as_table(), file_, fmt::format("case[{}]", i));
        fields.fail("state", fmt::format("the states of this file's cases hold more than {} jobs and nodes in all; "
                                         "test with smaller states, or split the file",
                                         kMaxStateItems));
        return unexpected(*fields.error());
      }
      if (!names.insert(one->name).second) {
        FieldReader fields(*cases->get(i)->as_table(), file_, fmt::format("case[{}]", i));
        fields.fail("name", fmt::format("two cases are named `{}`; a name says which case failed", one->name));
        return unexpected(*fields.error());
      }
      test.cases.push_back(std::move(*one));
    }
    return test;
  }

 private:
  Expected<TestCase, TestFileError> read_case(const toml::table& table, std::size_t index) {
    const std::string prefix = fmt::format("case[{}]", index);
    FieldReader fields(table, file_, prefix);
    fields.reject_unknown_keys({"name", "now", "state", "expect"});
    TestCase one;
    one.name = fields.text("name", 1000);
    one.line = fields.line();
    const std::optional<Seconds> now = fields.optional_timestamp("now");
    if (!fields.has("state"))
      fields.fail("state", "a case needs a state: `state = \"FILE\"` or a `[case.state]` table");
    if (fields.error()) return unexpected(*fields.error());
    if (const toml::table* inline_state = table.get_as<toml::table>("state")) {
      auto state = runtime::read_snapshot_table(*inline_state, file_, now);
      if (!state) return unexpected(state.error());
      one.state = std::move(*state);
    } else {
      const std::string reference = fields.text("state", support::kMaxPathBytes);
      if (fields.error()) return unexpected(*fields.error());
      one.state_file = (fs::path(file_).parent_path() / reference).lexically_normal().string();
      // Read once per file and time: cases often share a state.
      const auto key = std::make_pair(one.state_file, now);
      auto cached = loaded_.find(key);
      if (cached == loaded_.end()) {
        auto state = runtime::load_snapshot(one.state_file, now);
        if (!state) {
          if (!state.error().unreadable) return unexpected(state.error());
          fields.fail("state",
                      fmt::format("cannot read the state file `{}`: {}", one.state_file, state.error().message));
          return unexpected(*fields.error());
        }
        cached = loaded_.emplace(key, std::move(*state)).first;
      }
      one.state = cached->second;
    }
    const toml::table* expect = table.get_as<toml::table>("expect");
    if (expect == nullptr) {
      fields.fail("expect", "a case expects something: a `[case.expect]` table (docs/TESTING.md \"Expectations\")");
      return unexpected(*fields.error());
    }
    auto expectations = read_expectations(*expect, prefix + ".expect");
    if (!expectations) return unexpected(expectations.error());
    one.expect = std::move(*expectations);
    return one;
  }

  Expected<Expectations, TestFileError> read_expectations(const toml::table& table, const std::string& prefix) {
    FieldReader fields(table, file_, prefix);
    fields.reject_unknown_keys(kExpectKeys);
    Expectations expect;
    expect.first = fields.optional_text("first");
    const auto list = [&](std::string_view key) {
      return fields.has(key) ? fields.text_list(key) : std::vector<std::string>{};
    };
    expect.order = list("order");
    expect.has_exact_order = fields.has("exact_order");
    expect.exact_order = list("exact_order");
    expect.starts = list("starts");
    expect.preempts = list("preempts");
    expect.keeps = list("keeps");
    expect.waits = list("waits");
    if (fields.error()) return unexpected(*fields.error());
    if (expect.order.size() == 1) {
      fields.fail("order", "`order` needs two jobs or more; for the first one write `first`");
      return unexpected(*fields.error());
    }
    expect.lines = key_lines(table, kExpectKeys);
    if (auto problem = read_tables(table, prefix, "explain", [&](FieldReader& item, const toml::table&) {
          item.reject_unknown_keys({"job", "contains", "not_contains"});
          ExplainExpectation one{item.text("job"), {}, {}, item.line()};
          if (item.has("contains")) one.contains = item.text_or_list("contains");
          if (item.has("not_contains")) one.not_contains = item.text_or_list("not_contains");
          if (!item.error() && one.contains.empty() && one.not_contains.empty())
            item.fail("contains", "an explain expectation needs `contains` or `not_contains`");
          expect.explain.push_back(std::move(one));
        })) {
      return unexpected(*problem);
    }
    if (auto problem = read_tables(table, prefix, "share", [&](FieldReader& item, const toml::table& share) {
          expect.shares.push_back(read_share(item, share));
        })) {
      return unexpected(*problem);
    }
    if (expect.lines.empty()) {
      fields.fail("first", "`[case.expect]` is empty; say what the policy must decide (docs/TESTING.md)");
      return unexpected(*fields.error());
    }
    return expect;
  }

  // `[[case.expect.KEY]]` tables, each read by `read_one`; the first problem.
  template <class ReadOne>
  std::optional<TestFileError> read_tables(const toml::table& table, const std::string& prefix, std::string_view key,
                                           ReadOne read_one) {
    const toml::node* node = table.get(key);
    if (node == nullptr) return std::nullopt;
    const toml::array* items = node->as_array();
    if (items == nullptr || !items->is_array_of_tables()) {
      FieldReader fields(table, file_, prefix);
      fields.fail(key, fmt::format("write `[[case.expect.{}]]` tables", key));
      return fields.error();
    }
    for (std::size_t i = 0; i < items->size(); ++i) {
      const toml::table& one = *items->get(i)->as_table();
      FieldReader item(one, file_, fmt::format("{}.{}[{}]", prefix, key, i));
      read_one(item, one);
      if (item.error()) return item.error();
    }
    return std::nullopt;
  }

  // Every key but `account` and `tolerance` is a numeric field of `allot shares`'
  // JSON; `rank_fields` is a table of the rank expression's account fields.
  ShareExpectation read_share(FieldReader& item, const toml::table& table) {
    ShareExpectation share;
    share.account = item.optional_text("account").value_or("");
    if (!item.has("account")) item.fail("account", "a share expectation names its `account` (\"\" for the cluster)");
    share.line = item.line();
    share.tolerance = item.optional_number("tolerance", 0).value_or(1e-9);
    for (const auto& [key, value] : table) {
      const std::string name(key.str());
      if (name == "account" || name == "tolerance") continue;
      if (const toml::table* fields = value.as_table(); fields != nullptr && name == "rank_fields") {
        for (const auto& [field, number] : *fields)
          add_number(item, share, "rank_fields." + std::string(field.str()), number);
      } else {
        add_number(item, share, name, value);
      }
    }
    if (!item.error() && share.fields.empty())
      item.fail("account", "a share expectation names at least one field to compare (`share_in_force = 0.4`)");
    return share;
  }

  static void add_number(FieldReader& item, ShareExpectation& share, const std::string& name, const toml::node& value) {
    const std::optional<double> number = value.is_integer() ? std::optional<double>(*value.value<std::int64_t>())
                                         : value.is_floating_point() ? value.value<double>()
                                                                     : std::nullopt;
    if (!number || !std::isfinite(*number)) {
      item.fail_at(value, name, fmt::format("`{}` must be a finite number, not {}", name, support::kind_name(value)));
      return;
    }
    share.fields.emplace_back(name, *number);
  }

  const toml::table& root_;
  const std::string& file_;
  std::map<std::pair<std::string, std::optional<Seconds>>, runtime::Snapshot> loaded_;
};

}  // namespace

Expected<TestFile, TestFileError> parse_test_file(std::string_view text, const std::string& file) {
  try {
    const toml::table root = toml::parse(text, file);
    return FileReader(root, file).read();
  } catch (const toml::parse_error& error) {
    return unexpected(support::located_error(error.source(), file, "", std::string(error.description())));
  }
}

Expected<TestFile, TestFileError> load_test_file(const std::string& path) {
  auto contents = support::read_file(path, kMaxTestFileBytes);
  if (!contents) return unexpected(TestFileError::cannot_read(path, contents.error().reason));
  return parse_test_file(*contents, path);
}

Expected<std::vector<std::string>, std::string> find_test_files(const std::vector<std::string>& paths) {
  std::vector<std::string> files;
  const auto is_test = [](const fs::path& path) {
    const std::string name = path.filename().string();
    return name.size() > 10 && name.ends_with("_test.toml");
  };
  for (const std::string& path : paths) {
    std::error_code error;
    const fs::file_status status = fs::symlink_status(path, error);
    if (error || !fs::exists(status)) return unexpected(fmt::format("`{}` does not exist", path));
    if (fs::is_directory(status)) {
      std::vector<std::string> found;
      for (fs::recursive_directory_iterator it(path, error), end; !error && it != end; it.increment(error)) {
        if (it->is_regular_file(error) && !it->is_symlink(error) && is_test(it->path()))
          found.push_back(it->path().string());
      }
      if (error) return unexpected(fmt::format("cannot list `{}`: {}", path, error.message()));
      std::sort(found.begin(), found.end());
      files.insert(files.end(), found.begin(), found.end());
    } else if (!is_test(path)) {
      return unexpected(
          fmt::format("`{}` is not a test file: test files are named NAME_test.toml (docs/TESTING.md)", path));
    } else {
      files.push_back(path);
    }
  }
  if (files.empty()) return unexpected(std::string("no test files (NAME_test.toml) found"));
  return files;
}

}  // namespace allot::policytest
