// Differential test of Allot's Fair Tree and classic fair share against Slurm
// 22.05's own priority/multifactor plugin (tests/fairshare/slurm_harness.c).
// Seeded random association trees with every odd case Slurm sites have (ties
// at every level, FairShare=parent users and accounts, zero shares, zero
// usage, empty accounts, users beside accounts, deep trees) are computed by
// both; every field of every association must be bit-identical.
//
// Usage: allot_fairshare_differential --harness PATH --conf SLURM_CONF
//                                     [--trees N] [--seed S] [--max-depth D]
// Exit 0 when all agree; 1 with the first differing tree printed (in the
// harness's input format, so it can be replayed by hand); 2 on usage errors.
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <map>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <unistd.h>

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
};

struct Tree {
  std::vector<Assoc> nodes;
};

constexpr std::size_t kMaxNodes = 300;  // the harness takes up to 4096

class Generator {
 public:
  Generator(std::uint64_t seed, int max_depth) : rng_(seed), max_depth_(max_depth) {}

  Tree next() {
    Tree tree;
    tree.nodes.push_back(Assoc{-1, false, false, 1, 0, "root"});
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
    const int children = depth == 0 ? uniform(1, max_children) : uniform(0, max_children);
    std::set<std::string> users_here;
    for (int c = 0; c < children && tree.nodes.size() < kMaxNodes; ++c) {
      Assoc node;
      node.parent = parent;
      const double account_chance = depth + 1 >= max_depth_ ? 0.0 : (deep ? 0.6 : 0.45);
      node.user = !chance(account_chance);
      node.use_parent = chance(0.12);
      node.shares = shares();
      if (node.user) {
        node.name = fmt::format("u{}", uniform(1, 6));
        if (!users_here.insert(node.name).second) continue;  // a user is in an account once
        node.usage_units = usage();
      } else {
        node.name = account_name();
      }
      tree.nodes.push_back(node);
      const int self = static_cast<int>(tree.nodes.size()) - 1;
      if (!node.user) grow(tree, self, depth + 1, deep);
    }
  }

  std::mt19937_64 rng_;
  int max_depth_;
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

std::string harness_input(const Tree& tree, const char* mode) {
  std::string out = fmt::format("tree {}\n", mode);
  for (std::size_t i = 0; i < tree.nodes.size(); ++i) {
    const Assoc& a = tree.nodes[i];
    const std::string shares = a.use_parent ? "parent" : std::to_string(a.shares);
    // Decimal usage with enough digits to be exact (units / 1024).
    out += fmt::format("assoc {} {} {} {}.{} {} {}\n", i + 1, a.parent + 1, i == 0 ? "1" : shares, a.usage_units / 1024,
                       fmt::format("{:010d}", (a.usage_units % 1024) * 9765625).c_str(),
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

Comparison compare_fair_tree(const Tree& tree, const AllotTree& ours, const std::map<int, SlurmValues>& slurm) {
  Comparison c;
  const auto values = allot::runtime::fair_tree(ours.tree, ours.usage);
  for (std::size_t i = 0; i < tree.nodes.size(); ++i) {
    const auto it = slurm.find(static_cast<int>(i) + 1);
    const std::string where = fmt::format("fair_tree {}", i == 0 ? "root" : path_of(tree, static_cast<int>(i)));
    if (it == slurm.end()) {
      c.differences.push_back(where + ": missing from Slurm's output");
      continue;
    }
    const auto& v = values[ours.node_of[i]];
    const SlurmValues& s = it->second;
    c.field(where, "NormShares", v.shares_norm, s.shares_norm);
    c.field(where, "RawUsage", v.usage_raw, s.usage_raw);
    c.field(where, "EffectvUsage", v.usage_effective, s.usage_effective);
    c.field(where, "LevelFS", v.level_fs, s.level_fs);
    if (i == 0) continue;  // Slurm keeps NO_VAL in the root's NormUsage; sshare prints none
    c.field(where, "NormUsage", v.usage_norm, s.usage_norm);
    if (tree.nodes[i].user) {
      c.field(where, "FairShare", v.fair_share, s.factor);
      c.field(where, "job FairShare", v.fair_share, s.job_factor);
    }
  }
  return c;
}

Comparison compare_classic(const Tree& tree, const AllotTree& ours, const std::map<int, SlurmValues>& slurm) {
  Comparison c;
  const auto values = allot::runtime::classic_fair_share(ours.tree, ours.usage);
  for (std::size_t i = 0; i < tree.nodes.size(); ++i) {
    const auto it = slurm.find(static_cast<int>(i) + 1);
    const std::string where = fmt::format("classic {}", i == 0 ? "root" : path_of(tree, static_cast<int>(i)));
    if (it == slurm.end()) {
      c.differences.push_back(where + ": missing from Slurm's output");
      continue;
    }
    const auto& v = values[ours.node_of[i]];
    const SlurmValues& s = it->second;
    c.field(where, "NormShares", v.shares_norm, s.shares_norm);
    c.field(where, "RawUsage", v.usage_raw, s.usage_raw);
    c.field(where, "EffectvUsage", v.usage_effective, s.usage_effective);
    c.field(where, "FairShare", v.fair_share_shown, s.factor);
    if (i == 0) continue;
    c.field(where, "NormUsage", v.usage_norm, s.usage_norm);
    if (tree.nodes[i].user) c.field(where, "job FairShare", v.fair_share, s.job_factor);
  }
  return c;
}

std::string run_harness(const std::string& harness, const std::string& conf, const std::string& input) {
  char in_path[] = "/tmp/allot-fairshare-in.XXXXXX";
  const int fd = mkstemp(in_path);
  if (fd < 0) {
    std::perror("mkstemp");
    std::exit(2);
  }
  { std::ofstream(in_path) << input; }
  const std::string command = fmt::format("SLURM_CONF='{}' '{}' < '{}' 2>/dev/null", conf, harness, in_path);
  std::string output;
  if (FILE* pipe = popen(command.c_str(), "r")) {
    char buffer[4096];
    std::size_t n;
    while ((n = std::fread(buffer, 1, sizeof buffer, pipe)) > 0) output.append(buffer, n);
    const int status = pclose(pipe);
    if (status != 0) {
      std::cerr << "differential: the Slurm harness failed (status " << status << ")\n";
      std::exit(2);
    }
  }
  close(fd);
  unlink(in_path);
  return output;
}

}  // namespace

int main(int argc, char** argv) {
  std::string harness, conf;
  int trees = 500, max_depth = 9;
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
      const Comparison c = std::strcmp(mode, "fair_tree") == 0 ? compare_fair_tree(generated[t], ours, slurm[t])
                                                               : compare_classic(generated[t], ours, slurm[t]);
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
  return failures == 0 ? 0 : 1;
}
