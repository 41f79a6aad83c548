// Lowering: literals in abi units, constants folded, functions and lets
// inlined, identical nodes shared, dead branches dropped, and the tables the
// runtime reads (tree, classes, exceptions, unit, window, gates).
#include <filesystem>
#include <fstream>

#include "ir/sha256.h"
#include "ir_test_support.h"

namespace fs = std::filesystem;

namespace allot::ir_test {
namespace {

// The value of a rank that folds to one constant.
double folded(const std::string& rank) {
  const auto policy = lower_source(policy_with(rank));
  INFO(ir::print(policy));
  REQUIRE(policy.rank.nodes.size() == 1);
  REQUIRE(policy.rank.nodes[0].op == ir::Op::constant);
  return policy.rank.nodes[0].value;
}

double epoch_seconds(const char* date) { return parse_date(date)->days_since_epoch * 86400.0; }

}  // namespace

TEST_CASE("literals are converted to abi units and constant expressions fold", "[ir][lower]") {
  struct Case {
    const char* rank;
    double value;
  };
  const Case cases[] = {
      {"90m / 1h", 1.5},
      {"1w / 1d", 7},
      {"50% / 25%", 2},
      {"(2026-12-02 - 2026-12-01) / 1h", 24},
      {"((2026-12-01 + 1d) - 2026-12-01) / 1s", 86400},
      {"2 ^ 10", 1024},
      {"min(3, 1, 2) + max(3, 1, 2)", 4},
      {"clamp(5, 0, 2)", 2},
      {"abs(-4) + sqrt(16) + log(1) + exp(0)", 9},
      {"if 1 < 2 and not (3 == 4) then 10 else 20", 10},
      {"let x = 4 in x * x", 16},
      {"match high { high => 1, _ => 0 } + match debug { train => 5, debug => 7 }", 8},
  };
  for (const auto& c : cases) {
    INFO(c.rank);
    CHECK(folded(c.rank) == c.value);
  }
}

TEST_CASE("undefined arithmetic folds to the documented results", "[ir][lower]") {
  CHECK(folded("1 / 0") == 0);
  CHECK(folded("log(0) + log(-1)") == 0);
  CHECK(folded("sqrt(-4)") == 0);
  CHECK(folded("(-8) ^ 0.5") == 0);
  CHECK(std::isinf(folded("10 ^ 400")));
}

TEST_CASE("a subexpression written twice is computed once", "[ir][lower]") {
  const auto policy = lower_source(policy_with("job.gpus * job.gpus + job.gpus / (job.wait / 1h) + job.wait / 1h"));
  CHECK(count_ops(policy.rank, ir::Op::job_field) == 2);
  CHECK(count_ops(policy.rank, ir::Op::div) == 2);  // job.wait / 1h once, then the quotient
}

TEST_CASE("functions and lets are inlined and share their nodes", "[ir][lower]") {
  const auto policy = lower_source(policy_with("twice(job.gpus) + twice(job.gpus) + (let g = job.gpus in g + g)",
                                               "false", "  fn twice(x: number): number = x + x\n"));
  INFO(ir::print(policy));
  // job.gpus, x + x, and the sums of the three equal terms.
  CHECK(policy.rank.nodes.size() == 4);
  CHECK(count_ops(policy.rank, ir::Op::add) == 3);
}

TEST_CASE("a branch whose condition is known is the only one kept", "[ir][lower]") {
  const auto policy = lower_source(policy_with("if 1 > 2 then job.gpus else job.nodes"));
  CHECK(policy.job_fields_read == std::vector<abi::JobField>{abi::job_nodes});
  CHECK(policy.rank.nodes.size() == 1);
}

TEST_CASE("the fields rank and preempt read are recorded once each", "[ir][lower]") {
  const auto policy = lower_source(policy_with("job.wait / 1h + account.debt + job.wait / 1m",
                                               "victim.runtime > 1h and requester.account.share < 10%"));
  CHECK(policy.job_fields_read == std::vector<abi::JobField>{abi::job_wait, abi::job_runtime});
  CHECK(policy.account_fields_read == std::vector<abi::AccountField>{abi::account_share, abi::account_debt});
}

TEST_CASE("records stay symbolic until a field is read from them", "[ir][lower]") {
  const auto policy =
      lower_source(policy_with("1",
                               "(if victim.gpus > requester.gpus then victim else requester).account.debt > 0 and "
                               "victim.account != requester.account"));
  REQUIRE(policy.preempt);
  INFO(ir::print(policy));
  CHECK(count_ops(*policy.preempt, ir::Op::account_field) == 2);  // victim's and requester's debt
  CHECK(count_ops(*policy.preempt, ir::Op::account_row) == 2);
  CHECK(count_ops(*policy.preempt, ir::Op::select) == 1);
}

TEST_CASE("the budget tree becomes accounts in depth-first order with inherited attributes", "[ir][lower]") {
  const auto tables = lower_source(policy_with("1")).tables;
  REQUIRE(tables.accounts.size() == 6);
  const auto& root = tables.accounts[0];
  CHECK(root.path.empty());
  CHECK(root.parent == -1);
  CHECK_FALSE(root.leaf);
  const char* paths[] = {"", "product", "product/web", "product/web/ana", "product/bob", "research"};
  const int parents[] = {-1, 0, 1, 2, 1, 0};
  const int depths[] = {0, 1, 2, 3, 2, 1};
  for (int i = 0; i < 6; ++i) {
    INFO(i);
    CHECK(tables.accounts[i].path == paths[i]);
    CHECK(tables.accounts[i].parent == parents[i]);
    CHECK(tables.accounts[i].depth == depths[i]);
  }
  CHECK(tables.accounts[1].share == 0.6);
  CHECK(tables.accounts[3].share == 1.0);
  CHECK(tables.accounts[3].owner == "wen@example.com");          // from its project
  CHECK(tables.accounts[3].review == parse_date("2026-12-31"));  // from its program
  CHECK(tables.accounts[4].owner == "pat@example.com");
  CHECK(tables.accounts[3].leaf);
  CHECK_FALSE(tables.accounts[2].leaf);
}

TEST_CASE("exceptions, classes, unit, window and gates become tables in abi units", "[ir][lower]") {
  const auto tables = lower_source(policy_with("1")).tables;
  REQUIRE(tables.exceptions.size() == 1);
  const auto& crunch = tables.exceptions[0];
  CHECK(crunch.name == "crunch");
  CHECK(crunch.to == 1);
  CHECK(crunch.from == 5);
  CHECK(crunch.delta == Approx(0.1));
  CHECK(crunch.starts == epoch_seconds("2026-11-01"));
  CHECK(crunch.expires == epoch_seconds("2026-12-20"));
  REQUIRE(tables.classes.size() == 2);
  CHECK(tables.classes[0].name == "debug");
  CHECK(tables.classes[0].max_runtime == 900);
  CHECK(tables.classes[1].protect == 7200);
  CHECK(tables.classes[1].protect_up_to);
  CHECK(tables.classes[1].checkpoint_every == 1800);
  CHECK(tables.unit.weights == std::vector<std::pair<std::string, double>>{{"h100", 1.0}, {"a100", 0.5}});
  CHECK(tables.window == 7 * 86400);
  CHECK(tables.half_life == 86400);
  REQUIRE(tables.gates.size() == 2);
  CHECK(tables.gates[0].threshold == Approx(0.02));
  CHECK(tables.gates[1].subject == "debug");
  CHECK(tables.gates[1].threshold == 300);
}

TEST_CASE("imported classes come first, in declaration order, and their index is the class id", "[ir][lower]") {
  const fs::path folder = fs::temp_directory_path() / "allot_ir_lower_classes";
  fs::create_directories(folder);
  std::ofstream(folder / "lib.allot") << "class zeta { resumable }\nclass alpha { resumable }\n";
  const std::string text = "import \"lib.allot\"\n" + policy_with("match job.class { alpha => 1, zeta => 2, _ => 3 }",
                                                                  "false", "  class local { resumable }\n");
  const auto policy = lower_source(text, (folder / "policy.allot").string());
  std::vector<std::string> names;
  for (const auto& info : policy.tables.classes) names.push_back(info.name);
  CHECK(names == std::vector<std::string>{"zeta", "alpha", "debug", "train", "local"});
  const std::string printed = ir::print(policy);
  CHECK(printed.find("const f64 1  ; class") != std::string::npos);  // alpha is class 1
  fs::remove_all(folder);
}

TEST_CASE("the source hash covers the policy and every file it imports", "[ir][lower]") {
  const fs::path folder = fs::temp_directory_path() / "allot_ir_lower_hash";
  fs::create_directories(folder);
  const std::string text = "import \"lib.allot\"\n" + policy_with("bump(1)");
  std::ofstream(folder / "lib.allot") << "fn bump(x: number): number = x + 1\n";
  const std::string first = lower_source(text, (folder / "p.allot").string()).source_hash;
  std::ofstream(folder / "lib.allot") << "fn bump(x: number): number = x + 2\n";
  const std::string second = lower_source(text, (folder / "p.allot").string()).source_hash;
  CHECK(first.size() == 64);
  CHECK(first != second);
  const std::string alone = policy_with("1");
  CHECK(lower_source(alone).source_hash == ir::sha256_hex(std::to_string(alone.size()) + "\n" + alone));
  fs::remove_all(folder);
}

TEST_CASE("a class's fast lane becomes its GPUs per program", "[ir][lower]") {
  std::string text = policy_with("1");
  const std::string debug = "class debug { max_gpus 1 max_runtime 15m protect 15m resumable }";
  REQUIRE(text.find(debug) != std::string::npos);
  text.replace(text.find(debug), debug.size(),
               "class debug { max_gpus 1 max_runtime 15m protect 15m resumable fast_lane up to 4 gpus per program }");
  const auto policy = lower_source(text);
  REQUIRE(policy.tables.classes.size() == 2);
  CHECK(policy.tables.classes[0].fast_lane_gpus == 4);
  CHECK(policy.tables.classes[1].fast_lane_gpus == 0);
  CHECK(ir::print(policy).find("#0 debug max_gpus 1 max_runtime 900s protect 900s resumable preemptible fast_lane 4") !=
        std::string::npos);
}

TEST_CASE("a class's progress rule becomes its interval, allowance and action", "[ir][lower]") {
  // Table-driven: the rule as written, and what the runtime reads.
  struct Row {
    std::string rule;
    double every, after;
    StallAction action;
    std::string printed;
  };
  const std::vector<Row> rows = {
      {"progress every 5m", 300, 0, StallAction::preempt, "progress 300s after 0s else preempt"},
      {"progress every 5m after 2m", 300, 120, StallAction::preempt, "progress 300s after 120s else preempt"},
      {"progress every 5m else stop", 300, 0, StallAction::stop, "progress 300s after 0s else stop"},
      {"progress every 5m after 1m else keep", 300, 60, StallAction::keep, "progress 300s after 60s else keep"},
      {"progress every 5m else preempt", 300, 0, StallAction::preempt, "progress 300s after 0s else preempt"},
  };
  for (const Row& row : rows) {
    INFO(row.rule);
    std::string text = policy_with("1");
    const std::string debug = "class debug { max_gpus 1 max_runtime 15m protect 15m resumable }";
    REQUIRE(text.find(debug) != std::string::npos);
    text.replace(text.find(debug), debug.size(),
                 "class debug { max_gpus 1 max_runtime 15m protect 15m resumable " + row.rule + " }");
    const auto policy = lower_source(text);
    REQUIRE(policy.tables.classes.size() == 2);
    CHECK(policy.tables.classes[0].progress_every == row.every);
    CHECK(policy.tables.classes[0].progress_after == row.after);
    CHECK(policy.tables.classes[0].on_stall == row.action);
    CHECK(policy.tables.classes[1].progress_every == 0);  // no rule: never stalled
    CHECK(ir::print(policy).find(row.printed) != std::string::npos);
  }
}

TEST_CASE("the printed IR is stable and readable", "[ir][print]") {
  const auto policy = lower_source(policy_with("job.wait / 1h + 1", "victim.gpus > requester.gpus"));
  const std::string printed = ir::print(policy);
  CHECK(printed == ir::print(lower_source(policy_with("job.wait / 1h + 1", "victim.gpus > requester.gpus"))));
  CHECK(printed.find("rank:\n"
                     "  %0 = job.wait f64  ; duration\n"
                     "  %1 = const f64 3600  ; duration\n"
                     "  %2 = div f64 %0, %1\n"
                     "  %3 = const f64 1\n"
                     "  %4 = add f64 %2, %3\n"
                     "  return %4\n"
                     "preempt:\n"
                     "  %0 = victim.gpus f64\n"
                     "  %1 = requester.gpus f64\n"
                     "  %2 = gt bool %0, %1\n"
                     "  return %2\n") != std::string::npos);
  CHECK(printed.find("  crunch: #1 +0.1 from #5 starts 1793491200 (2026-11-01) expires 1797724800 (2026-12-20)\n") !=
        std::string::npos);
  CHECK(printed.find("  #3 product/web/ana parent #2 share 1 owner \"wen@example.com\" review 2026-12-31 leaf\n") !=
        std::string::npos);
}

}  // namespace allot::ir_test

namespace allot::ir_test {
namespace {

// A part as a test writes it: `-` in front for a negated term, `name = definition` for a let's name.
std::string part_text(const ir::Part& part) {
  std::string text = (part.info.negated ? "-" : "") + part.info.text;
  if (!part.info.definition.empty()) text += " = " + part.info.definition;
  return text;
}

}  // namespace

TEST_CASE("rank's terms are the operands of its outermost + and -, inside its lets, as written", "[ir][lower][parts]") {
  struct Case {
    const char* rank;
    std::vector<std::string> terms;
  };
  const Case cases[] = {
      {"1000 * account.fair_tree", {"1000 * account.fair_tree"}},
      {"job.gpus + 2 * job.nodes - job.restarts", {"job.gpus", "2 * job.nodes", "-job.restarts"}},
      {"let share = 1000 * account.fair_tree in\n    share\n      + job.wait / 1h  // hours waited\n      + 3",
       {"share = 1000 * account.fair_tree", "job.wait / 1h", "3"}},
      {"job.gpus - (job.nodes + job.cpus)", {"job.gpus", "-(job.nodes + job.cpus)"}},
      {"job.gpus + (job.nodes - job.cpus)", {"job.gpus", "(job.nodes - job.cpus)"}},
      {"if job.gpus > 1 then job.gpus + 1 else 0", {"if job.gpus > 1 then job.gpus + 1 else 0"}},
      {"let a = job.gpus in let b = a * 2 in a + b", {"a = job.gpus", "b = a * 2"}},
      {"-job.gpus + job.nodes", {"-job.gpus", "job.nodes"}},
  };
  for (const auto& c : cases) {
    INFO(c.rank);
    const auto policy = lower_source(policy_with(c.rank));
    std::vector<std::string> terms;
    for (const auto& part : policy.rank_terms) terms.push_back(part_text(part));
    CHECK(terms == c.terms);
    for (const auto& part : policy.rank_terms) CHECK(part.info.file == "case.allot");
  }
  // A term that folds to a constant says so: coverage does not count it.
  const auto folded = lower_source(policy_with("job.gpus + 2 * 3 + min(1, 2)"));
  REQUIRE(folded.rank_terms.size() == 3);
  CHECK_FALSE(folded.rank_terms[0].info.constant);
  CHECK(folded.rank_terms[1].info.constant);
  CHECK(folded.rank_terms[2].info.constant);
}

TEST_CASE("preempt's operands are those of its outermost and, or or, on their lines", "[ir][lower][parts]") {
  struct Case {
    const char* preempt;
    bool joined_by_or;
    std::vector<std::string> operands;
  };
  const Case cases[] = {
      {"victim.gpus > 1", false, {"victim.gpus > 1"}},
      {"victim.gpus > 1 and victim.restarts < 3 and requester.gpus < 8",
       false,
       {"victim.gpus > 1", "victim.restarts < 3", "requester.gpus < 8"}},
      {"victim.gpus > 1 or (victim.restarts < 3 and requester.gpus < 8)",
       true,
       {"victim.gpus > 1", "(victim.restarts < 3 and requester.gpus < 8)"}},
      {"(victim.gpus > 1 and victim.restarts < 3) or requester.gpus < 8",
       true,
       {"(victim.gpus > 1 and victim.restarts < 3)", "requester.gpus < 8"}},
      {"let big = victim.gpus > 4 in big\n      and requester.gpus < 8",
       false,
       {"big = victim.gpus > 4", "requester.gpus < 8"}},
  };
  for (const auto& c : cases) {
    INFO(c.preempt);
    const auto policy = lower_source(policy_with("job.gpus", c.preempt));
    std::vector<std::string> operands;
    for (const auto& part : policy.preempt_operands) operands.push_back(part_text(part));
    CHECK(operands == c.operands);
    CHECK(policy.preempt_operands_or == c.joined_by_or);
  }
  const auto policy = lower_source(policy_with("job.gpus", "victim.gpus > 1\n      and requester.gpus < 8"));
  REQUIRE(policy.preempt_operands.size() == 2);
  CHECK(policy.preempt_operands[1].info.line == policy.preempt_operands[0].info.line + 1);
}

}  // namespace allot::ir_test
