// Differential test of Allot's Fair Tree and classic fair share against Slurm
// 22.05's own priority/multifactor plugin (tests/fairshare/slurm_harness.c).
// Seeded random association trees with every odd case Slurm sites have (ties
// at every level, FairShare=parent users and accounts, zero shares, zero
// usage, empty accounts, users beside accounts, deep trees) are computed by
// both; every field of every association must be bit-identical.
//
// Usage: allot_fairshare_differential --harness PATH --conf SLURM_CONF
//                                     [--trees N] [--seed S] [--max-depth D] [--allot ALLOT]
// With --allot, every tree is also written as a policy (raw `shares N` and
// `share parent`) and a state snapshot with the same usage, and `allot shares
// --format json` must print Slurm's values: the language, its lowering, the
// runtime's account table and the report, end to end.
// Exit 0 when all agree; 1 with the first differing tree printed (in the
// harness's input format, so it can be replayed by hand); 2 on usage errors.
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <limits>
#include <map>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <unistd.h>
#include <nlohmann/json.hpp>

#include "allot/account_tree.h"
#include "allot/fair_share.h"

using allot::runtime::AccountKind;
using allot::runtime::AccountSpec;
using allot::runtime::AccountTree;

namespace {

// One association as both sides see it. Node 0 is the root.
struct Assoc {
  int parent = -1;
  bool user = false;
  bool use_parent = false;
  std::uint32_t shares = 1;
  std::uint64_t usage_units = 0;  // usage = units / 1024: exact sums in long double
  std::string name;
  int children_count = 0;
};

struct Tree {
  std::vector<Assoc> nodes;
};

constexpr std::size_t kMaxNodes = 300;  // the harness takes up to 4096

class Generator {
 public:
  // `policy_form`: only trees the policy language states the same way Slurm
  // does: no account without children (a childless node is a user to Allot)
  // and no FairShare=parent user right below the root (a leaf program).
  Generator(std::uint64_t seed, int max_depth, bool policy_form = false)
      : rng_(seed), max_depth_(max_depth), policy_form_(policy_form) {}

  Tree next() {
    Tree tree;
    tree.nodes.push_back(Assoc{-1, false, false, 1, 0, "root", 0});
    names_.clear();
    // A few shapes: bushy and shallow, or narrow and deep.
    const bool deep = chance(0.3);
    grow(tree, 0, 0, deep);
    return tree;
  }

 private:
  bool chance(double p) { return std::bernoulli_distribution(p)(rng_); }
  int uniform(int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng_); }

  std::string account_name() {
    // Short names from a small alphabet: name order (Slurm's list order) varies.
    for (int attempt = 0;; ++attempt) {
      std::string name = "a";
      const int length = uniform(1, 3);
      for (int i = 0; i < length; ++i) name += static_cast<char>('a' + uniform(0, 3));
      if (attempt > 8) name += std::to_string(names_.size());  // the short names are taken
      if (names_.insert(name).second) return name;
    }
  }

  std::uint32_t shares() {
    static const std::uint32_t kChoices[] = {0, 1, 1, 2, 3, 5, 10, 10, 25, 40, 50, 60, 100, 1000};
    return kChoices[uniform(0, static_cast<int>(std::size(kChoices)) - 1)];
  }

  std::uint64_t usage() {
    switch (uniform(0, 5)) {
      case 0:
      case 1:
        return 0;  // unused: ties and infinite Level FS
      case 2:
        return 1024u * static_cast<std::uint64_t>(uniform(1, 4));  // small integers: ties
      case 3:
        return 1024u * 10;
      default:
        return static_cast<std::uint64_t>(uniform(1, 1 << 30));  // fractions
    }
  }

  void grow(Tree& tree, int parent, int depth, bool deep) {
    const int max_children = deep ? 3 : 6;
    const int children = depth == 0 || policy_form_ ? uniform(1, max_children) : uniform(0, max_children);
    std::set<std::string> users_here;
    for (int c = 0; c < children && tree.nodes.size() < kMaxNodes; ++c) {
      Assoc node;
      node.parent = parent;
      const double account_chance = depth + 1 >= max_depth_ ? 0.0 : (deep ? 0.6 : 0.45);
      node.user = !chance(account_chance);
      node.use_parent = chance(0.12) && !(policy_form_ && depth == 0 && node.user);
      node.shares = shares();
      if (node.user) {
        node.name = fmt::format("u{}", uniform(1, 6));
        if (!users_here.insert(node.name).second) continue;  // a user is in an account once
        node.usage_units = usage();
      } else {
        node.name = account_name();
      }
      tree.nodes.push_back(node);
      ++tree.nodes[static_cast<std::size_t>(parent)].children_count;
      const int self = static_cast<int>(tree.nodes.size()) - 1;
      if (!node.user) grow(tree, self, depth + 1, deep);
    }
    // Name clashes or the node cap can leave an account empty: give it a user.
    if (policy_form_ && parent > 0 && tree.nodes[static_cast<std::size_t>(parent)].children_count == 0) {
      tree.nodes.push_back(Assoc{parent, true, false, shares(), usage(), "u1", 0});
      ++tree.nodes[static_cast<std::size_t>(parent)].children_count;
    }
  }

  std::mt19937_64 rng_;
  int max_depth_;
  bool policy_form_;
  std::set<std::string> names_;
};

// The account (Slurm's acct) a node belongs to: itself, or a user's parent.
std::string acct_of(const Tree& tree, int node) {
  const Assoc& a = tree.nodes[static_cast<std::size_t>(node)];
  if (!a.user) return a.name;
  return tree.nodes[static_cast<std::size_t>(a.parent)].name;
}

std::string path_of(const Tree& tree, int node) {
  std::string path;
  for (int n = node; n > 0; n = tree.nodes[static_cast<std::size_t>(n)].parent) {
    path = path.empty() ? tree.nodes[static_cast<std::size_t>(n)].name
                        : tree.nodes[static_cast<std::size_t>(n)].name + "/" + path;
  }
  return path;
}

// Usage (units / 1024) as an exact decimal: 1/1024 has ten decimal digits.
std::string usage_text(std::uint64_t units) {
  return fmt::format("{}.{:010d}", units / 1024, (units % 1024) * 9765625);
}

std::string harness_input(const Tree& tree, const char* mode) {
  std::string out = fmt::format("tree {}\n", mode);
  for (std::size_t i = 0; i < tree.nodes.size(); ++i) {
    const Assoc& a = tree.nodes[i];
    const std::string shares = a.use_parent ? "parent" : std::to_string(a.shares);
    // Decimal usage with enough digits to be exact (units / 1024).
    out +=
        fmt::format("assoc {} {} {} {} {} {}\n", i + 1, a.parent + 1, i == 0 ? "1" : shares, usage_text(a.usage_units),
                    i == 0 ? "root" : acct_of(tree, static_cast<int>(i)), a.user ? a.name : "-");
  }
  return out + "end\n";
}

// Slurm's values of one association, parsed from the harness.
struct SlurmValues {
  double shares_norm;
  long double usage_raw, usage_norm, usage_effective, level_fs;
  double factor, job_factor;
};

bool parse_output(const std::string& text, std::vector<std::map<int, SlurmValues>>& trees) {
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    if (line == "tree") {
      trees.emplace_back();
    } else if (line.rfind("assoc ", 0) == 0 && !trees.empty()) {
      char sn[64], ur[64], un[64], ue[64], lf[64], fs[64], jf[64];
      int id = 0;
      if (std::sscanf(line.c_str(), "assoc %d %63s %63s %63s %63s %63s %63s %63s", &id, sn, ur, un, ue, lf, fs, jf) !=
          8)
        return false;
      trees.back()[id] = SlurmValues{std::strtod(sn, nullptr),  std::strtold(ur, nullptr), std::strtold(un, nullptr),
                                     std::strtold(ue, nullptr), std::strtold(lf, nullptr), std::strtod(fs, nullptr),
                                     std::strtod(jf, nullptr)};
    } else if (line != "end") {
      return false;
    }
  }
  return true;
}

// Allot's side: the same tree as an AccountTree (node order differs), and a map back.
struct AllotTree {
  AccountTree tree;
  std::vector<std::size_t> node_of;  // differential node -> AccountTree node
  std::vector<double> usage;         // per AccountTree node
};

AllotTree allot_tree(const Tree& tree) {
  std::vector<AccountSpec> specs;
  for (std::size_t i = 1; i < tree.nodes.size(); ++i) {
    const Assoc& a = tree.nodes[i];
    specs.push_back(AccountSpec{path_of(tree, static_cast<int>(i)), static_cast<double>(a.shares), a.use_parent,
                                a.user ? AccountKind::user : AccountKind::account});
  }
  auto built = AccountTree::build(specs);
  if (!built) {
    std::cerr << "differential: the generated tree does not build: " << built.error() << "\n";
    std::exit(2);
  }
  AllotTree out{std::move(*built), {}, {}};
  out.node_of.assign(tree.nodes.size(), 0);
  out.usage.assign(out.tree.size(), 0.0);
  for (std::size_t i = 1; i < tree.nodes.size(); ++i) {
    out.node_of[i] = *out.tree.find(path_of(tree, static_cast<int>(i)));
    out.usage[out.node_of[i]] = static_cast<double>(tree.nodes[i].usage_units) / 1024.0;
  }
  return out;
}

template <class T>
bool same(T a, T b) {
  if (std::isnan(a) && std::isnan(b)) return true;
  return a == b && std::signbit(a) == std::signbit(b);
}

struct Comparison {
  std::vector<std::string> differences;
  void field(const std::string& where, const char* name, long double ours, long double slurm) {
    if (!same(ours, slurm))
      differences.push_back(fmt::format("{} {}: allot {:a} slurm {:a}", where, name, ours, slurm));
  }
  void field(const std::string& where, const char* name, double ours, double slurm) {
    if (!same(ours, slurm))
      differences.push_back(
          fmt::format("{} {}: allot {:a} ({}) slurm {:a} ({})", where, name, ours, ours, slurm, slurm));
  }
};

// Every field of every association, Allot's functions against Slurm's plugin.
Comparison compare_values(const Tree& tree, const AllotTree& ours, const std::map<int, SlurmValues>& slurm,
                          bool classic) {
  Comparison c;
  const auto fair =
      classic ? std::vector<allot::runtime::FairTreeValues>{} : allot::runtime::fair_tree(ours.tree, ours.usage);
  const auto classic_values = classic ? allot::runtime::classic_fair_share(ours.tree, ours.usage)
                                      : std::vector<allot::runtime::ClassicValues>{};
  for (std::size_t i = 0; i < tree.nodes.size(); ++i) {
    const auto it = slurm.find(static_cast<int>(i) + 1);
    const std::string where =
        fmt::format("{} {}", classic ? "classic" : "fair_tree", i == 0 ? "root" : path_of(tree, static_cast<int>(i)));
    if (it == slurm.end()) {
      c.differences.push_back(where + ": missing from Slurm's output");
      continue;
    }
    const SlurmValues& s = it->second;
    const std::size_t node = ours.node_of[i];
    const auto common = [&](const auto& v) {
      c.field(where, "NormShares", v.shares_norm, s.shares_norm);
      c.field(where, "RawUsage", v.usage_raw, s.usage_raw);
      c.field(where, "EffectvUsage", v.usage_effective, s.usage_effective);
    };
    const bool user = i > 0 && tree.nodes[i].user;
    if (classic) {
      const auto& v = classic_values[node];
      common(v);
      c.field(where, "FairShare", v.fair_share_shown, s.factor);
      if (i > 0) c.field(where, "NormUsage", v.usage_norm, s.usage_norm);
      if (user) c.field(where, "job FairShare", v.fair_share, s.job_factor);
    } else {
      const auto& v = fair[node];
      common(v);
      c.field(where, "LevelFS", v.level_fs, s.level_fs);
      // Slurm keeps NO_VAL in the root's NormUsage; sshare prints none.
      if (i > 0) c.field(where, "NormUsage", v.usage_norm, s.usage_norm);
      if (user) {
        c.field(where, "FairShare", v.fair_share, s.factor);
        c.field(where, "job FairShare", v.fair_share, s.job_factor);
      }
    }
  }
  return c;
}

// Runs a shell command; its standard output, or "" when it fails.
std::string run_command(const std::string& command) {
  std::string output;
  if (FILE* pipe = popen(command.c_str(), "r")) {
    char buffer[4096];
    for (std::size_t n; (n = std::fread(buffer, 1, sizeof buffer, pipe)) > 0;) output.append(buffer, n);
    if (pclose(pipe) != 0) output.clear();
  }
  return output;
}

std::string run_harness(const std::string& harness, const std::string& conf, const std::string& input) {
  char in_path[] = "/tmp/allot-fairshare-in.XXXXXX";
  const int fd = mkstemp(in_path);
  if (fd < 0) {
    std::perror("mkstemp");
    std::exit(2);
  }
  { std::ofstream(in_path) << input; }
  const std::string output =
      run_command(fmt::format("SLURM_CONF='{}' '{}' < '{}' 2>/dev/null", conf, harness, in_path));
  close(fd);
  unlink(in_path);
  if (output.empty()) {
    std::cerr << "differential: the Slurm harness failed\n";
    std::exit(2);
  }
  return output;
}

// The tree as Allot policy text: programs at the top (with the owner and review
// the checker asks of them), then projects and users.
void policy_nodes(const Tree& tree, int node, int indent, std::string& out) {
  const Assoc& a = tree.nodes[static_cast<std::size_t>(node)];
  const std::string pad(static_cast<std::size_t>(indent), ' ');
  const bool top = a.parent == 0;
  const std::string keyword = top ? "" : (a.user ? "user " : "project ");
  const std::string share = a.use_parent ? "share parent" : fmt::format("shares {}", a.shares);
  std::string body;
  if (top) {
    body += fmt::format("{0}  owner \"hpc@example.edu\"\n{0}  review 2027-12-31\n{0}  hypothesis \"a test\"\n", pad);
  }
  for (std::size_t c = 0; c < tree.nodes.size(); ++c) {
    if (tree.nodes[c].parent == node) policy_nodes(tree, static_cast<int>(c), indent + 2, body);
  }
  out += body.empty() ? fmt::format("{}{}{} {}\n", pad, keyword, a.name, share)
                      : fmt::format("{}{}{} {} {{\n{}{}}}\n", pad, keyword, a.name, share, body, pad);
}

std::string policy_text(const Tree& tree, const char* mode) {
  std::string nodes;
  for (std::size_t c = 1; c < tree.nodes.size(); ++c) {
    if (tree.nodes[c].parent == 0) policy_nodes(tree, static_cast<int>(c), 4, nodes);
  }
  return fmt::format(
      "policy differential {{\n  unit gpu_hours {{\n    h100 = 1.0\n  }}\n  window 7d\n  fairshare {}\n"
      "  tree {{\n{}  }}\n  class batch {{\n    resumable\n  }}\n"
      "  rank = 1000 * account.fair_tree + job.wait / 1h\n}}\n",
      mode, nodes);
}

std::string state_text(const Tree& tree) {
  std::string out = "now = 2026-12-01T00:00:00Z\ninventory = \"cluster.toml\"\n\n[usage]\n";
  for (std::size_t i = 1; i < tree.nodes.size(); ++i) {
    if (tree.nodes[i].user) {
      out += fmt::format("\"{}\" = {}\n", path_of(tree, static_cast<int>(i)), usage_text(tree.nodes[i].usage_units));
    }
  }
  return out;
}

long double json_number(const nlohmann::json& value) {
  if (value.is_string()) {
    return value == "inf" ? std::numeric_limits<long double>::infinity()
                          : -std::numeric_limits<long double>::infinity();
  }
  return value.is_number() ? value.get<double>() : std::numeric_limits<long double>::quiet_NaN();
}

// `allot shares` on the tree as a policy, against Slurm's values of the same tree.
Comparison compare_shares(const Tree& tree, const char* mode, const std::map<int, SlurmValues>& slurm,
                          const std::string& allot, const std::string& folder) {
  Comparison c;
  std::ofstream(folder + "/policy.allot") << policy_text(tree, mode);
  std::ofstream(folder + "/state.toml") << state_text(tree);
  // Warnings (a level of zero shares) go to standard error, kept for a failure's message.
  const std::string output = run_command(
      fmt::format("'{0}' shares --policy '{1}/policy.allot' --state '{1}/state.toml' --format json 2>'{1}/stderr.txt'",
                  allot, folder));
  nlohmann::json document = nlohmann::json::parse(output, nullptr, false);
  if (document.is_discarded() || !document.contains("accounts")) {
    std::ifstream errors(folder + "/stderr.txt");
    const std::string text((std::istreambuf_iterator<char>(errors)), std::istreambuf_iterator<char>());
    c.differences.push_back("allot shares failed: " + text.substr(0, 2000));
    return c;
  }
  std::map<std::string, nlohmann::json> rows;
  for (const auto& row : document["accounts"]) rows[row["path"].get<std::string>()] = row;
  const bool fair = std::strcmp(mode, "fair_tree") == 0;
  for (std::size_t i = 0; i < tree.nodes.size(); ++i) {
    const std::string path = i == 0 ? "" : path_of(tree, static_cast<int>(i));
    const std::string where = fmt::format("allot shares ({}) {}", mode, i == 0 ? "root" : path);
    const auto row = rows.find(path);
    const auto s = slurm.find(static_cast<int>(i) + 1);
    if (row == rows.end() || s == slurm.end()) {
      c.differences.push_back(where + ": missing");
      continue;
    }
    const auto& r = row->second;
    const auto as_double = [](long double v) { return static_cast<double>(v); };
    c.field(where, "NormShares", static_cast<double>(json_number(r["norm_shares"])), s->second.shares_norm);
    c.field(where, "RawUsage", static_cast<double>(json_number(r["raw_usage"])), as_double(s->second.usage_raw));
    c.field(where, "EffectvUsage", static_cast<double>(json_number(r["effective_usage"])),
            as_double(s->second.usage_effective));
    // sshare prints no LevelFS for a FairShare=parent association (its children
    // are ranked one level up), and neither does `allot shares`.
    if (fair && !(i > 0 && tree.nodes[i].use_parent)) {
      c.field(where, "LevelFS", static_cast<double>(json_number(r["level_fs"])), as_double(s->second.level_fs));
    }
    if (fair && i > 0 && tree.nodes[i].use_parent && !r["level_fs"].is_null()) {
      c.differences.push_back(where + ": LevelFS of a `share parent` account should be empty, as sshare prints it");
    }
    if (i == 0) continue;
    c.field(where, "NormUsage", static_cast<double>(json_number(r["norm_usage"])), as_double(s->second.usage_norm));
    if (!fair || tree.nodes[i].user) {
      c.field(where, "FairShare", static_cast<double>(json_number(r["fair_share"])), s->second.factor);
    }
  }
  return c;
}

// Runs `count` policy-form trees through Slurm and through `allot shares`.
int end_to_end(const std::string& allot, const std::string& harness, const std::string& conf, std::uint64_t seed,
               int count, int max_depth) {
  Generator generator(seed * 7919 + 17, max_depth, true);
  std::vector<Tree> trees;
  for (int t = 0; t < count; ++t) trees.push_back(generator.next());
  char folder_template[] = "/tmp/allot-fairshare-e2e.XXXXXX";
  const char* folder = mkdtemp(folder_template);
  if (folder == nullptr) {
    std::perror("mkdtemp");
    return 2;
  }
  std::ofstream(std::string(folder) + "/cluster.toml") << "[[node]]\nname = \"gpu-01\"\ngpu_type = \"h100\"\ngpus = "
                                                          "8\ncpus = 96\nmemory_gib = 1024\nblock = \"rack-1\"\n";
  int failures = 0;
  for (const char* mode : {"fair_tree", "classic"}) {
    std::string input;
    for (const Tree& tree : trees) input += harness_input(tree, mode);
    std::vector<std::map<int, SlurmValues>> slurm;
    if (!parse_output(run_harness(harness, conf, input), slurm) || slurm.size() != trees.size()) {
      std::cerr << "differential: unreadable harness output\n";
      return 2;
    }
    for (std::size_t t = 0; t < trees.size(); ++t) {
      const Comparison c = compare_shares(trees[t], mode, slurm[t], allot, folder);
      if (c.differences.empty()) continue;
      if (++failures <= 3) {
        std::cerr << fmt::format("policy tree {} (seed {}): allot shares differs from Slurm in {} field(s):\n", t, seed,
                                 c.differences.size());
        for (std::size_t d = 0; d < c.differences.size() && d < 12; ++d) std::cerr << "  " << c.differences[d] << "\n";
        std::cerr << policy_text(trees[t], mode);
      }
    }
  }
  std::filesystem::remove_all(folder);
  std::cout << fmt::format("{} policies x 2 algorithms through allot shares: {} differ from Slurm\n", count, failures);
  return failures == 0 ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  std::string harness, conf, allot;
  int trees = 500, max_depth = 9, policies = 200;
  std::uint64_t seed = 1;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i];
    if (flag == "--harness")
      harness = argv[i + 1];
    else if (flag == "--conf")
      conf = argv[i + 1];
    else if (flag == "--trees")
      trees = std::atoi(argv[i + 1]);
    else if (flag == "--seed")
      seed = std::strtoull(argv[i + 1], nullptr, 10);
    else if (flag == "--max-depth")
      max_depth = std::atoi(argv[i + 1]);
    else if (flag == "--allot")
      allot = argv[i + 1];
    else if (flag == "--policies")
      policies = std::atoi(argv[i + 1]);
    else {
      std::cerr << "differential: unknown flag " << flag << "\n";
      return 2;
    }
  }
  if (harness.empty() || conf.empty() || trees <= 0 || max_depth < 2) {
    std::cerr << "usage: allot_fairshare_differential --harness PATH --conf SLURM_CONF [--trees N] [--seed S]\n";
    return 2;
  }
  Generator generator(seed, max_depth);
  std::vector<Tree> generated;
  for (int t = 0; t < trees; ++t) generated.push_back(generator.next());

  int failures = 0;
  std::size_t associations = 0, deepest = 0;
  for (const char* mode : {"fair_tree", "classic"}) {
    std::string input;
    for (const Tree& tree : generated) input += harness_input(tree, mode);
    std::vector<std::map<int, SlurmValues>> slurm;
    if (!parse_output(run_harness(harness, conf, input), slurm) || slurm.size() != generated.size()) {
      std::cerr << "differential: unreadable harness output (" << slurm.size() << " of " << generated.size()
                << " trees)\n";
      return 2;
    }
    for (std::size_t t = 0; t < generated.size(); ++t) {
      const AllotTree ours = allot_tree(generated[t]);
      associations += generated[t].nodes.size();
      for (std::size_t n = 0; n < ours.tree.size(); ++n)
        deepest = std::max(deepest, std::size_t(ours.tree.node(n).depth));
      const Comparison c = compare_values(generated[t], ours, slurm[t], std::strcmp(mode, "classic") == 0);
      if (c.differences.empty()) continue;
      if (++failures <= 3) {
        std::cerr << fmt::format("tree {} (seed {}) differs from Slurm in {} field(s):\n", t, seed,
                                 c.differences.size());
        for (std::size_t d = 0; d < c.differences.size() && d < 12; ++d) std::cerr << "  " << c.differences[d] << "\n";
        std::cerr << harness_input(generated[t], mode);
      }
    }
  }
  std::cout << fmt::format("{} trees x 2 algorithms, {} associations, depth up to {}: {} tree(s) differ from Slurm\n",
                           trees, associations / 2, deepest, failures);
  const int end_to_end_status = allot.empty() ? 0 : end_to_end(allot, harness, conf, seed, policies, max_depth);
  return failures == 0 ? end_to_end_status : 1;
}
