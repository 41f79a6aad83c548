// `sacctmgr dump` to an Allot policy (slurm_import.h). The dump is a list of
// `Cluster - 'name':...`, `Parent - 'account'`, `Account - 'name':Opt=value...`
// and `User - 'name':Opt=value...` lines (src/sacctmgr/file_functions.c);
// each Account or User line sits under the last Parent line, which must name
// an account already defined (or root).
#include "allot/slurm_import.h"

#include "allot/files.h"
#include "allot/policy.h"
#include "allot/text.h"

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <utility>

#include <fmt/format.h>

namespace allot::slurm {
namespace {

constexpr std::uint32_t kMaxShares = 1000000;  // the language's limit for `shares N`
constexpr std::size_t kMaxLine = 64 * 1024;

// Words Allot reserves (docs/LANGUAGE.md "Keywords"); a Slurm name equal to one gets a `_` suffix.
const std::set<std::string_view> kKeywords = {
    "policy",      "import",      "unit",     "window",   "half_life",  "fairshare", "tree",     "project",
    "user",        "unallocated", "owner",    "review",   "hypothesis", "class",     "max_gpus", "max_nodes",
    "max_runtime", "protect",     "up",       "to",       "checkpoint", "every",     "grace",    "resumable",
    "preemptible", "deadline",    "required", "optional", "slo",        "fast_lane", "true",     "false",
    "exception",   "grant",       "from",     "reason",   "starts",     "expires",   "fn",       "rank",
    "preempt",     "when",        "gates",    "over",     "if",         "then",      "else",     "let",
    "in",          "match",       "and",      "or",       "not",        "share",     "shares",   "parent"};

// What the association options mean to the import: these carry fair share or
// bookkeeping the policy does not need; anything else is reported.
const std::set<std::string_view> kQuietOptions = {"Description", "Organization", "DefaultAccount", "AdminLevel",
                                                  "DefaultWCKey"};

struct Node {
  std::string slurm_name;
  std::string name;  // as an Allot identifier
  bool user = false;
  bool use_parent = false;
  std::uint32_t shares = 1;  // Slurm's default Fairshare
  int line = 0;
  int parent = -1;
  std::size_t level = 0;  // 0 the root, 1 a program, one more per level below
  std::vector<int> children;
};

struct Line {
  std::string kind;                                          // Cluster, Parent, Account, User
  std::string name;                                          // the quoted name after " - "
  std::vector<std::pair<std::string, std::string>> options;  // in order, values unquoted
};

// Splits "Kind - 'name':Key=value:Key='quoted: value'".
Expected<Line, std::string> parse_line(std::string_view text) {
  const std::size_t dash = text.find(" - ");
  if (dash == std::string_view::npos) return unexpected(std::string("expected `Kind - 'name'`"));
  Line line;
  line.kind = std::string(text.substr(0, dash));
  std::string_view rest = text.substr(dash + 3);
  // Fields separated by ':' outside single quotes.
  std::vector<std::string> fields(1);
  bool quoted = false;
  for (char c : rest) {
    if (c == '\'') {
      quoted = !quoted;
      fields.back() += c;
    } else if (c == ':' && !quoted) {
      fields.emplace_back();
    } else {
      fields.back() += c;
    }
  }
  if (quoted) return unexpected(std::string("a quote is not closed"));
  const auto unquote = [](std::string value) {
    if (value.size() >= 2 && value.front() == '\'' && value.back() == '\'') return value.substr(1, value.size() - 2);
    return value;
  };
  line.name = unquote(fields.front());
  if (line.name.empty()) return unexpected(fmt::format("`{}` has no name", support::printable(line.kind)));
  for (std::size_t i = 1; i < fields.size(); ++i) {
    if (fields[i].empty()) continue;
    const std::size_t equals = fields[i].find('=');
    if (equals == std::string::npos)
      return unexpected(fmt::format("option `{}` has no `=`", support::printable(fields[i])));
    line.options.emplace_back(fields[i].substr(0, equals), unquote(fields[i].substr(equals + 1)));
  }
  return line;
}

bool same_word(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
         });
}

// sacctmgr takes `Fairshare=` and `Shares=` in any case.
bool is_fairshare(std::string_view key) { return same_word(key, "Fairshare") || same_word(key, "Shares"); }

// A Slurm name as an Allot identifier: other characters become `_`, a leading
// digit or a keyword gets a `_`.
std::string identifier(const std::string& name) {
  std::string out;
  for (unsigned char c : name) out += (std::isalnum(c) || c == '_') && c < 0x80 ? static_cast<char>(c) : '_';
  if (out.empty() || std::isdigit(static_cast<unsigned char>(out.front()))) out = "_" + out;
  if (kKeywords.count(out)) out += "_";
  return out;
}

// The printable form of a Slurm name in messages (control bytes escaped).
std::string shown(std::string_view name) {
  std::string out;
  for (unsigned char c : name) out += c < 0x20 || c == 0x7f ? fmt::format("\\x{:02x}", c) : std::string(1, char(c));
  return out;
}

// A string for an Allot string literal.
std::string literal_text(std::string_view text) {
  std::string out;
  for (char c : text) {
    if (c == '"' || c == '\\') out += '\\';
    if (c == '\n' || c == '\r') continue;
    out += c;
  }
  return out;
}

class Importer {
 public:
  explicit Importer(const ImportOptions& options) : options_(options) {
    nodes_.push_back(Node{"root", "root", false, false, 1, 0, -1, 0, {}});
    accounts_["root"] = 0;
  }

  std::optional<ImportError> read(std::string_view dump) {
    int number = 0;
    std::size_t start = 0;
    while (start <= dump.size()) {
      std::size_t end = dump.find('\n', start);
      if (end == std::string_view::npos) end = dump.size();
      std::string_view text = dump.substr(start, end - start);
      start = end + 1;
      ++number;
      if (!text.empty() && text.back() == '\r') text.remove_suffix(1);
      if (text.size() > kMaxLine) return ImportError{number, "the line is longer than 64 KiB"};
      const std::size_t first = text.find_first_not_of(" \t");
      if (first == std::string_view::npos || text[first] == '#') continue;
      if (auto problem = take(text.substr(first), number)) return problem;
      if (end == dump.size()) break;
    }
    if (cluster_.empty()) return ImportError{0, "no `Cluster - 'name'` line: is this `sacctmgr dump` output?"};
    return std::nullopt;
  }

  ImportResult result(std::string_view source_name) {
    ImportResult out;
    name_children();
    std::string tree;
    for (int child : sorted_children(0)) write_node(child, 4, tree);
    out.policy = fmt::format(
        "// Imported by `allot import slurm` from {} (Slurm cluster `{}`).\n"
        "// Fair share: Slurm's Fair Tree over the same associations and shares; set `window`\n"
        "// (and `half_life`) to the site's PriorityDecayHalfLife and usage period.\n"
        "policy {} {{\n"
        "  // GPU-hours, every GPU type weighted 1: weigh the site's types (`h100 = 1.0  a100 = 0.6`).\n"
        "  unit gpu_hours {{\n"
        "    gpu = 1.0\n"
        "  }}\n\n"
        "  window 7d\n"
        "  fairshare fair_tree\n\n"
        "  tree {{\n{}  }}\n\n"
        "  // One contract for every job, as under Slurm's fair share alone; add the site's classes.\n"
        "  class batch {{\n"
        "    checkpoint every 30m\n"
        "    resumable\n"
        "    preemptible false\n"
        "  }}\n\n"
        "  rank = 1000 * account.fair_tree + job.wait / 1h\n"
        "}}\n",
        shown(source_name), shown(cluster_), identifier(cluster_), tree);
    out.notes = notes_;
    for (const Node& node : nodes_) (node.user ? out.users : out.accounts) += node.parent >= 0 ? 1 : 0;
    if (options_.owner.empty() || options_.review.empty() || options_.hypothesis.empty()) {
      out.notes.push_back(ImportNote{0,
                                     "every program needs an owner, a review date and a hypothesis before "
                                     "`allot check` accepts the policy: fill them in, or import with --owner, "
                                     "--review and --hypothesis"});
    }
    return out;
  }

 private:
  std::optional<ImportError> take(std::string_view text, int number) {
    auto parsed = parse_line(text);
    if (!parsed) return ImportError{number, parsed.error()};
    Line& line = *parsed;
    // sacctmgr compares the kinds without case (file_functions.c).
    for (const char* kind : {"Cluster", "Parent", "Account", "User"}) {
      if (same_word(line.kind, kind)) line.kind = kind;
    }
    if (line.kind == "Cluster") {
      if (!cluster_.empty()) return ImportError{number, "a second `Cluster` line: import one cluster's dump at a time"};
      cluster_ = line.name;
      for (const auto& [key, value] : line.options) {
        if (!is_fairshare(key)) note(number, fmt::format("cluster option {}={} is not translated", key, shown(value)));
      }
      return std::nullopt;
    }
    if (cluster_.empty()) return ImportError{number, fmt::format("`{}` before the `Cluster` line", shown(line.kind))};
    if (line.kind == "Parent") {
      const auto it = accounts_.find(line.name);
      if (it == accounts_.end()) {
        return ImportError{number, fmt::format("Parent `{}` is not an account defined above", shown(line.name))};
      }
      parent_ = it->second;
      return std::nullopt;
    }
    if (line.kind != "Account" && line.kind != "User") {
      return ImportError{
          number, fmt::format("unknown line kind `{}` (expected Cluster, Parent, Account or User)", shown(line.kind))};
    }
    Node node;
    node.slurm_name = line.name;
    node.user = line.kind == "User";
    node.line = number;
    node.parent = parent_;
    node.level = nodes_[static_cast<std::size_t>(parent_)].level + 1;
    // The language's limit, checked here so a hostile chain of Parent lines
    // gives one error instead of a policy `allot check` refuses.
    if (node.level > kMaxTreeLevels) {
      return ImportError{number,
                         fmt::format("{} `{}` would be level {} of the tree; an Allot tree has at most {}",
                                     node.user ? "user" : "account", shown(line.name), node.level, kMaxTreeLevels)};
    }
    for (const auto& [key, value] : line.options) {
      if (is_fairshare(key)) {
        if (auto problem = read_shares(value, node, number)) return problem;
      } else if (key == "Partition") {
        note(number, fmt::format("user `{}`: associations per partition are not translated (Partition={})",
                                 shown(line.name), shown(value)));
      } else if (!kQuietOptions.count(key)) {
        note(number, fmt::format("{} `{}`: {}={} has no Allot equivalent and is not translated",
                                 node.user ? "user" : "account", shown(line.name), key, shown(value)));
      }
    }
    if (node.user) {
      const auto [first, added] = users_.emplace(std::pair(parent_, node.slurm_name), number);
      if (!added) {
        note(number,
             fmt::format("user `{}` appears twice in account `{}`; the first line (line {}) is kept", shown(line.name),
                         shown(nodes_[static_cast<std::size_t>(parent_)].slurm_name), first->second));
        return std::nullopt;
      }
    } else if (accounts_.count(line.name)) {
      return ImportError{
          number, fmt::format("account `{}` is defined twice (Slurm account names are unique)", shown(line.name))};
    }
    if (node.user && parent_ == 0) {
      note(number, fmt::format("user `{}` directly below the root becomes a program (Allot's top-level nodes are "
                               "programs; jobs run under a program without children as under a user)",
                               shown(line.name)));
    }
    const int index = static_cast<int>(nodes_.size());
    if (!node.user) accounts_[line.name] = index;
    nodes_[static_cast<std::size_t>(parent_)].children.push_back(index);
    nodes_.push_back(std::move(node));
    return std::nullopt;
  }

  std::optional<ImportError> read_shares(const std::string& value, Node& node, int number) {
    // `sacctmgr dump` writes FairShare=parent as SLURMDB_FS_USE_PARENT's value; `sacctmgr load` also takes "parent".
    if (same_word(value, "parent") || value == "2147483647") {
      node.use_parent = true;
      return std::nullopt;
    }
    std::uint64_t shares = 0;
    if (value.empty() || value.size() > 10 || value.find_first_not_of("0123456789") != std::string::npos) {
      return ImportError{number, fmt::format("Fairshare={}: expected a whole number or `parent`", shown(value))};
    }
    shares = std::stoull(value);
    if (shares > kMaxShares) {
      return ImportError{number,
                         fmt::format("Fairshare={} is above {}, the most `shares N` takes", shares, kMaxShares)};
    }
    node.shares = static_cast<std::uint32_t>(shares);
    return std::nullopt;
  }

  void note(int line, std::string text) { notes_.push_back(ImportNote{line, std::move(text)}); }

  // sshare's order: users first, then accounts, each by Slurm name.
  std::vector<int> sorted_children(int node) const {
    std::vector<int> children = nodes_[static_cast<std::size_t>(node)].children;
    std::stable_sort(children.begin(), children.end(), [&](int a, int b) {
      const Node& x = nodes_[static_cast<std::size_t>(a)];
      const Node& y = nodes_[static_cast<std::size_t>(b)];
      if (x.user != y.user) return x.user;
      return x.slurm_name < y.slurm_name;
    });
    return children;
  }

  // Allot names, unique among siblings, with a note for every renamed one.
  void name_children() {
    for (std::size_t n = 0; n < nodes_.size(); ++n) {
      std::set<std::string> taken;
      std::map<std::string, int> next_suffix;  // per identifier, the first `_k` not yet tried (linear, not quadratic)
      for (int child : sorted_children(static_cast<int>(n))) {
        Node& node = nodes_[static_cast<std::size_t>(child)];
        const std::string base = identifier(node.slurm_name);
        std::string name = base;
        if (taken.count(name)) {
          int& k = next_suffix.emplace(base, 2).first->second;
          do name = fmt::format("{}_{}", base, k++);
          while (taken.count(name));
        }
        taken.insert(name);
        node.name = name;
        if (name != node.slurm_name) {
          note(node.line, fmt::format("{} `{}` is named `{}` (Allot names are letters, digits and `_`)",
                                      node.user ? "user" : "account", shown(node.slurm_name), name));
        }
      }
    }
  }

  // Appends the node and its subtree to `out`: each line written once, so the
  // cost is the size of the policy (recursion is at most kMaxTreeLevels deep).
  void write_node(int index, int indent, std::string& out) const {
    const Node& node = nodes_[static_cast<std::size_t>(index)];
    const std::string pad(static_cast<std::size_t>(indent), ' ');
    const bool top = node.parent == 0;
    // Top-level nodes are programs (no keyword); below, accounts are projects.
    const std::string keyword = top ? "" : (node.user ? "user " : "project ");
    const std::string share = node.use_parent ? "share parent" : fmt::format("shares {}", node.shares);
    const bool attributes =
        top && (!options_.owner.empty() || !options_.review.empty() || !options_.hypothesis.empty());
    if (!attributes && node.children.empty()) {
      out += fmt::format("{}{}{} {}\n", pad, keyword, node.name, share);
      return;
    }
    out += fmt::format("{}{}{} {} {{\n", pad, keyword, node.name, share);
    if (top) {
      if (!options_.owner.empty()) out += fmt::format("{}  owner \"{}\"\n", pad, literal_text(options_.owner));
      if (!options_.review.empty()) out += fmt::format("{}  review {}\n", pad, options_.review);
      if (!options_.hypothesis.empty())
        out += fmt::format("{}  hypothesis \"{}\"\n", pad, literal_text(options_.hypothesis));
    }
    for (int child : sorted_children(index)) write_node(child, indent + 2, out);
    out += fmt::format("{}}}\n", pad);
  }

  const ImportOptions& options_;
  std::vector<Node> nodes_;
  std::map<std::string, int> accounts_;
  std::map<std::pair<int, std::string>, int> users_;  // (account, Slurm user name) -> the line that added it
  std::vector<ImportNote> notes_;
  std::string cluster_;
  int parent_ = 0;
};

}  // namespace

Expected<ImportResult, ImportError> import_sacctmgr_dump(std::string_view dump, std::string_view source_name,
                                                         const ImportOptions& options) {
  if (dump.find('\0') != std::string_view::npos) return unexpected(ImportError{0, "the dump contains NUL bytes"});
  Importer importer(options);
  if (auto problem = importer.read(dump)) return unexpected(*problem);
  ImportResult result = importer.result(source_name);
  // A policy no reader accepts is no use: say so now, not at `allot check`.
  if (result.policy.size() > support::kMaxPolicyBytes) {
    return unexpected(ImportError{0, fmt::format("the policy would be {} bytes, more than the {} a policy file may "
                                                 "have (docs/SECURITY.md): import the site in parts",
                                                 result.policy.size(), support::kMaxPolicyBytes)});
  }
  return result;
}

}  // namespace allot::slurm
