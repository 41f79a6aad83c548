// Table-driven cases for the budget tree, exception and class-contract checks
// (spec: "Budget tree", "Exceptions", "Classes / contracts"). Each row is a
// small policy and the exact headlines `allot check` prints for it, in order;
// `detail`, when set, must appear in one of the notes or helps.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "allot/compile.h"
#include "allot/frontend.h"
#include "allot/policy.h"

namespace {

const char* const kDefaultClass = "class debug { max_gpus 1  max_runtime 15m  protect 15m  resumable }";

// A program that answers for its share (owner, review, hypothesis), then `body`.
std::string program(const std::string& name, const std::string& share, const std::string& body = "",
                    const std::string& review = "2027-01-31") {
  return name + " " + share + " {\n  owner \"lead@example.com\"  review " + review +
         "\n  hypothesis \"the share buys measurable impact\"\n  " + body + "\n}\n";
}

// An exception with every required field; `grants` and `expires` vary.
std::string exception(const std::string& name, const std::string& grants,
                      const std::string& dates = "expires 2026-12-20") {
  return "exception " + name + " {\n  " + grants + "\n  owner \"cto@example.com\"  reason \"a release needs it\"\n  " +
         dates + "\n}\n";
}

struct Case {
  const char* name;
  std::string tree;                   // the body of `tree { }`
  std::string declarations;           // classes and exceptions (the default class when empty)
  std::vector<std::string> expected;  // "error[code]: message", in source order
  std::string detail = "";
  const char* today = "2026-12-01";
  int review_warning_days = 14;
  int max_exception_horizon_days = 90;
  bool passed_dates_are_warnings = false;  // a scheduler's check (`allot slurm`)
};

std::string policy_text(const Case& c) {
  return "policy lab {\n unit gpu_hours { h100 = 1.0 }\n window 7d\n tree {\n" + c.tree + "\n }\n" +
         (c.declarations.empty() ? std::string(kDefaultClass) : c.declarations) + "\n rank = 1\n}\n";
}

allot::CheckResult check(const Case& c) {
  allot::CheckOptions options;
  options.today = allot::parse_date(c.today);
  options.review_warning_days = c.review_warning_days;
  options.max_exception_horizon_days = c.max_exception_horizon_days;
  options.passed_dates_are_warnings = c.passed_dates_are_warnings;
  return allot::check_source("case.allot", policy_text(c), options);
}

std::vector<std::string> headlines(const allot::CheckResult& result) {
  std::vector<std::string> lines;
  for (const auto& d : result.diagnostics) {
    lines.push_back(std::string(d.severity == allot::Severity::error ? "error" : "warning") + "[" + d.code +
                    "]: " + d.message);
  }
  return lines;
}

bool mentions(const allot::CheckResult& result, const std::string& detail) {
  for (const auto& d : result.diagnostics) {
    if (d.help.find(detail) != std::string::npos) return true;
    for (const auto& note : d.notes) {
      if (note.message.find(detail) != std::string::npos) return true;
    }
  }
  return false;
}

void run(const std::vector<Case>& cases) {
  for (const auto& c : cases) {
    DYNAMIC_SECTION(c.name) {
      const allot::CheckResult result = check(c);
      INFO(policy_text(c));
      CHECK(headlines(result) == c.expected);
      if (!c.detail.empty()) CHECK(mentions(result, c.detail));
    }
  }
}

const std::string kTwoPrograms = program("research", "60%") + program("product", "40%");

}  // namespace

TEST_CASE("shares at every level sum to 100%", "[check][tree]") {
  run({
      {"fractional shares that sum to exactly 100%",
       program("research", "33.3%") + program("product", "33.3%") + program("platform", "33.4%"),
       "",
       {}},
      {"fractional shares just under 100%",
       program("research", "33.3%") + program("product", "33.3%") + program("platform", "33.3%"),
       "",
       {"error[share_sum_mismatch]: shares of the programs sum to 99.9%, not 100%"},
       "add `unallocated 0.1%`"},
      {"the terms of a wrong sum are listed",
       program("research", "12.5%") + program("product", "80%"),
       "",
       {"error[share_sum_mismatch]: shares of the programs sum to 92.5%, not 100%"},
       "research 12.5% + product 80% = 92.5%"},
      {"shares above 100% ask for a lower share",
       program("research", "70%") + program("product", "40%"),
       "",
       {"error[share_sum_mismatch]: shares of the programs sum to 110%, not 100%"},
       "lower a share so they sum to 100%"},
      {"unallocated completes the top level",
       program("research", "60%") + program("product", "30%") + "unallocated 10%",
       "",
       {}},
      {"unallocated completes a program's users",
       program("research", "60%", "user ana 45%  user ben 45%  unallocated 10%") + program("product", "40%"),
       "",
       {}},
      {"a short unallocated is raised, not added twice",
       program("research", "60%", "user ana 40%  user ben 40%  unallocated 10%") + program("product", "40%"),
       "",
       {"error[share_sum_mismatch]: shares under `research` sum to 90%, not 100%"},
       "raise `unallocated` to 20%"},
      {"a project's users are a level of their own",
       program("research", "60%", "project vision 50% { user ana 60%  user ben 30% }  user cleo 50%") +
           program("product", "40%"),
       "",
       {"error[share_sum_mismatch]: shares under `research/vision` sum to 90%, not 100%"},
       "ana 60% + ben 30% = 90%"},
      {"three levels that each sum to 100%",
       program("research", "60%",
               "project vision 50% { user ana 50%  user ben 50% }  project nlp 50% { user cleo 100% }") +
           program("product", "40%"),
       "",
       {}},
      {"a project that lends all of its share",
       program("research", "60%", "project vision 100% { unallocated 100% }") + program("product", "40%"),
       "",
       {}},
      {"a share above 100% is not also a wrong sum",
       program("research", "160%") + program("product", "40%"),
       "",
       {"error[share_out_of_range]: share of `research` is 160%, above 100%"}},
      {"a share of 0% is no entitlement, not an error", program("research", "100%") + program("product", "0%"), "", {}},
      {"an empty tree", "", "", {"error[share_sum_mismatch]: the tree has no programs"}},
      {"unallocated twice at one level is one diagnostic",
       program("research", "50%") + program("product", "40%") + "unallocated 5%  unallocated 5%",
       "",
       {"error[duplicate_declaration]: `unallocated` is set twice among the programs"}},
  });
}

TEST_CASE("nodes stand at the level their keyword says", "[check][tree]") {
  run({
      {"a user keyword at the top",
       "user research 60% {}\n" + program("product", "40%"),
       "",
       {"error[invalid_tree_level]: a user cannot stand at the top of the tree",
        "error[missing_hypothesis]: program `research` has no hypothesis",
        "error[missing_owner]: program `research` has no owner",
        "error[missing_review]: program `research` has no review date"}},
      {"a bare node under a program",
       program("research", "60%", "ana 100%") + program("product", "40%"),
       "",
       {"error[invalid_tree_level]: `ana` needs a level keyword"},
       "write `project ana` or `user ana`"},
      {"a bare node under a project",
       program("research", "60%", "project vision 100% { ana 100% }") + program("product", "40%"),
       "",
       {"error[invalid_tree_level]: `ana` needs a level keyword"},
       "write `project ana` or `user ana`"},
      {"a bare node with members can only be a project",
       program("research", "60%", "project vision 100% { lab 100% { user ana 100% } }") + program("product", "40%"),
       "",
       {"error[invalid_tree_level]: `lab` needs a level keyword"},
       "write `project lab`"},
      {"a project inside a project",
       program("research", "60%", "project vision 100% { project detection 100% { user ana 100% } }") +
           program("product", "40%"),
       "",
       {}},
      {"projects and users mixed under a project",
       program("research", "100%", "project vision 100% { user ana 50%  project lab 50% { user ben 100% } }"),
       "",
       {}},
      {"a user below a project below a user is reported once, at the user",
       program("research", "100%", "user ana 100% { project lab 100% { user ben 100% } }"),
       "",
       {"error[invalid_tree_level]: user `ana` cannot have members"}},
      {"a user that lends a share",
       program("research", "60%", "user ana 100% { unallocated 50% }") + program("product", "40%"),
       "",
       {"error[invalid_tree_level]: user `ana` has no members to leave a share unallocated"}},
      {"users under a program directly",
       program("research", "60%", "user ana 100%") + program("product", "40%"),
       "",
       {}},
      {"siblings share a name",
       program("research", "60%", "user ana 50%  user ana 50%") + program("product", "40%"),
       "",
       {"error[duplicate_name]: `ana` appears twice under `research`"}},
      {"the same name under different parents is fine until referenced",
       program("research", "60%", "user ana 100%") + program("product", "40%", "user ana 100%"),
       "",
       {}},
  });
}

TEST_CASE("programs answer for their share and deeper nodes inherit", "[check][tree]") {
  run({
      {"a program with none of owner, review, hypothesis",
       "research 60% {}\n" + program("product", "40%"),
       "",
       {"error[missing_hypothesis]: program `research` has no hypothesis",
        "error[missing_owner]: program `research` has no owner",
        "error[missing_review]: program `research` has no review date"}},
      {"an empty owner is no owner",
       "research 100% { owner \"\"  review 2027-01-31  hypothesis \"it pays\" }",
       "",
       {"error[missing_owner]: program `research` has an empty owner"}},
      {"users inherit owner and review",
       program("research", "60%", "user ana 50%  user ben 50%") + program("product", "40%"),
       "",
       {}},
      {"a user may override owner and review",
       program("research", "60%", "user ana 50% { owner \"ana@example.com\"  review 2027-02-15 }  user ben 50%") +
           program("product", "40%"),
       "",
       {}},
      {"an overridden review date is judged on the user",
       program("research", "60%", "user ana 50% { review 2026-11-15 }  user ben 50%") + program("product", "40%"),
       "",
       {"error[review_date_passed]: review of `research/ana` was due on 2026-11-15"}},
      {"an inherited review date is reported once, on the program",
       program("research", "60%", "user ana 50%  user ben 50%", "2026-11-01") + program("product", "40%"),
       "",
       {"error[review_date_passed]: review of `research` was due on 2026-11-01"}},
      {"an attribute twice on one node",
       program("research", "60%", "review 2027-02-01") + program("product", "40%"),
       "",
       {"error[duplicate_declaration]: `review` is set twice on `research`"}},
  });
}

TEST_CASE("review dates: passed is an error, near is a warning", "[check][tree]") {
  const auto with_review = [](const char* date) {
    return program("research", "60%", "", date) + program("product", "40%");
  };
  run({
      {"review exactly 14 days away",
       with_review("2026-12-15"),
       "",
       {"warning[review_date_near]: review of `research` is due in 14 days, on 2026-12-15"}},
      {"review 15 days away", with_review("2026-12-16"), "", {}},
      {"review tomorrow",
       with_review("2026-12-02"),
       "",
       {"warning[review_date_near]: review of `research` is due in 1 day, on 2026-12-02"}},
      {"review today",
       with_review("2026-12-01"),
       "",
       {"warning[review_date_near]: review of `research` is due today, on 2026-12-01"}},
      {"review yesterday",
       with_review("2026-11-30"),
       "",
       {"error[review_date_passed]: review of `research` was due on 2026-11-30"},
       "today is 2026-12-01"},
      {"a wider warning window",
       with_review("2026-12-21"),
       "",
       {"warning[review_date_near]: review of `research` is due in 20 days, on 2026-12-21"},
       "",
       "2026-12-01",
       30},
      {"today moves with --now",
       with_review("2026-12-21"),
       "",
       {"error[review_date_passed]: review of `research` was due on 2026-12-21"},
       "",
       "2027-01-05"},
  });
}

TEST_CASE("exceptions expire within the horizon", "[check][exceptions]") {
  const auto with_dates = [](const std::string& dates) {
    return std::string(kDefaultClass) + "\n" + exception("push", "grant research +10% from product", dates);
  };
  run({
      {"expiry exactly 90 days away", kTwoPrograms, with_dates("expires 2027-03-01"), {}},
      {"expiry 91 days away",
       kTwoPrograms,
       with_dates("expires 2027-03-02"),
       {"error[exception_beyond_horizon]: exception `push` runs 91 days from today, beyond the 90-day limit"},
       "--max-exception-days"},
      {"a longer horizon from the options",
       kTwoPrograms,
       with_dates("expires 2027-03-02"),
       {},
       "",
       "2026-12-01",
       14,
       120},
      {"expiry today still applies, and says so",
       kTwoPrograms,
       with_dates("expires 2026-12-01"),
       {"warning[exception_expiring]: exception `push` expires today, on 2026-12-01"}},
      {"expiry in 14 days: CI turns red then",
       kTwoPrograms,
       with_dates("expires 2026-12-15"),
       {"warning[exception_expiring]: exception `push` expires in 14 days, on 2026-12-15"}},
      {"expiry in 15 days", kTwoPrograms, with_dates("expires 2026-12-16"), {}},
      {"expired yesterday",
       kTwoPrograms,
       with_dates("expires 2026-11-30"),
       {"error[exception_expired]: exception `push` expired on 2026-11-30"}},
      {"ends the day it starts",
       kTwoPrograms,
       with_dates("starts 2026-12-10  expires 2026-12-10"),
       {"error[exception_ends_before_start]: exception `push` expires on 2026-12-10, the day it starts"}},
      {"a start in the future is fine", kTwoPrograms, with_dates("starts 2026-12-10  expires 2026-12-20"), {}},
      {"no expiry",
       kTwoPrograms,
       with_dates(""),
       {"error[exception_missing_expiry]: exception `push` has no expiry date"},
       "every exception expires: add `expires YYYY-MM-DD`"},
      {"an empty reason is no reason",
       kTwoPrograms,
       std::string(kDefaultClass) +
           "\nexception push {\n grant research +10% from product\n owner \"cto@example.com\"  reason \"\"\n "
           "expires 2026-12-20\n}",
       {"error[missing_reason]: exception `push` has an empty reason"}},
      {"nothing but a name",
       kTwoPrograms,
       std::string(kDefaultClass) + "\nexception push {}",
       {"error[exception_missing_expiry]: exception `push` has no expiry date",
        "error[missing_declaration]: exception `push` grants nothing",
        "error[missing_owner]: exception `push` has no owner",
        "error[missing_reason]: exception `push` has no reason"}},
  });
}

TEST_CASE("grants name nodes of the tree and keep shares possible", "[check][exceptions]") {
  const std::string users = program("research", "60%", "user ana 50%  user ben 50%") + program("product", "40%");
  const std::string lending = program("research", "50%") + program("product", "40%") + "unallocated 10%";
  const auto grants = [](const std::string& text) {
    return std::string(kDefaultClass) + "\n" + exception("push", text);
  };
  run({
      {"a grant by path between siblings", users, grants("grant research/ana +10% from research/ben"), {}},
      {"a grant by unique bare names", users, grants("grant ana +10% from ben"), {}},
      {"a grant drawn from unallocated", lending, grants("grant research +10%"), {}},
      {"a grant larger than the unallocated share",
       lending,
       grants("grant research +15%"),
       {"error[exception_level_over_100]: exceptions raise the programs' shares to 105%"},
       "research 65% + product 40% = 105%"},
      {"a negative grant returns points", kTwoPrograms, grants("grant product -10% from research"), {}},
      {"taking more than a node has",
       kTwoPrograms,
       grants("grant research +50% from product"),
       {"error[exception_share_negative]: exceptions leave `product` with -10%"}},
      {"a misspelt target",
       kTwoPrograms,
       grants("grant reserch +10% from product"),
       {"error[unknown_name]: no node `reserch` in the budget tree"},
       "did you mean `research`?"},
      {"a path under the wrong program",
       users,
       grants("grant product/ana +10% from research/ben"),
       {"error[unknown_name]: no node `product/ana` in the budget tree"},
       "`ana` is at `research/ana`"},
      {"a bare name used twice",
       program("research", "60%", "user ana 100%") + program("product", "40%", "user ana 100%"),
       grants("grant ana +10% from research"),
       {"error[ambiguous_name]: `ana` names 2 nodes of the tree"},
       "`research/ana` or `product/ana`"},
      {"a grant to and from one node",
       kTwoPrograms,
       grants("grant research +10% from research"),
       {"error[invalid_grant]: grant takes from `research` what it gives to `research`"}},
      {"a grant of 0%",
       kTwoPrograms,
       grants("grant research +0% from product"),
       {"error[invalid_grant]: grant of 0% changes nothing"}},
  });
}

TEST_CASE("every exception applies at once, in the worst case", "[check][exceptions]") {
  const std::string first = exception("push", "grant research +25% from product");
  run({
      {"two grants that each fit but not together",
       kTwoPrograms,
       std::string(kDefaultClass) + "\n" + first + exception("planning", "grant research +20% from product"),
       {"error[exception_share_negative]: exceptions leave `product` with -5%"},
       "`product` 40% - 25% (`push`) - 20% (`planning`) = -5%"},
      {"an expired exception no longer counts",
       kTwoPrograms,
       std::string(kDefaultClass) + "\n" + first +
           exception("planning", "grant research +20% from product", "expires 2026-11-01"),
       {"error[exception_expired]: exception `planning` expired on 2026-11-01"}},
      {"grants to two users exceed their level",
       program("research", "60%", "user ana 50%  user ben 45%  unallocated 5%") + program("product", "40%"),
       std::string(kDefaultClass) + "\n" + exception("push", "grant ana +5%") + exception("planning", "grant ben +5%"),
       {"error[exception_level_over_100]: exceptions raise the shares under `research` to 105%"}},
  });
}

TEST_CASE("a scheduler is warned of passed dates where CI is refused", "[check][tree][exceptions]") {
  const std::string passed = program("research", "60%", "", "2026-11-30") + program("product", "40%");
  const std::string expired =
      std::string(kDefaultClass) + "\n" + exception("push", "grant research +10% from product", "expires 2026-11-15");
  run({
      {"a passed review in CI", passed, "", {"error[review_date_passed]: review of `research` was due on 2026-11-30"}},
      {"a passed review in a scheduler",
       passed,
       "",
       {"warning[review_date_passed]: review of `research` was due on 2026-11-30"},
       "today is 2026-12-01",
       "2026-12-01",
       14,
       90,
       true},
      {"an expired exception in a scheduler",
       kTwoPrograms,
       expired,
       {"warning[exception_expired]: exception `push` expired on 2026-11-15"},
       "",
       "2026-12-01",
       14,
       90,
       true},
      // Only dates that pass while a policy runs: every other mistake stays an error.
      {"other errors stay errors in a scheduler",
       kTwoPrograms,
       std::string(kDefaultClass) + "\n" + exception("push", "grant research +10% from product", ""),
       {"error[exception_missing_expiry]: exception `push` has no expiry date"},
       "",
       "2026-12-01",
       14,
       90,
       true},
  });
}

TEST_CASE("class contracts are promises the runtime can keep", "[check][contracts]") {
  const auto with_class = [](const std::string& body) {
    return std::string(kDefaultClass) + "\nclass train { " + body + " }";
  };
  run({
      {"the seed's classes",
       kTwoPrograms,
       std::string(kDefaultClass) + "\nclass eval { deadline required  slo 95%  protect 1h }\n"
                                    "class train { checkpoint every 30m  protect up to 2h  resumable }",
       {}},
      {"checkpoint as long as the protection",
       kTwoPrograms,
       with_class("checkpoint every 30m  protect 30m  resumable"),
       {}},
      {"checkpoint longer than the protection a job may choose",
       kTwoPrograms,
       with_class("checkpoint every 2h  protect up to 90m  resumable"),
       {"error[checkpoint_exceeds_protection]: checkpoint interval 2h is longer than the protected time 1h30m"},
       "checkpoint at least every 1h30m or protect it longer"},
      {"checkpoint without any protection",
       kTwoPrograms,
       with_class("checkpoint every 30m  resumable"),
       {"error[checkpoint_exceeds_protection]: class `train` checkpoints every 30m but protects no time"}},
      {"protection does not matter when nothing preempts",
       kTwoPrograms,
       with_class("checkpoint every 30m  resumable  preemptible false"),
       {}},
      {"preemptible by default and not resumable",
       kTwoPrograms,
       with_class("protect 2h"),
       {"error[preemptible_not_resumable]: class `train` can be preempted but cannot resume"}},
      {"resumable false is not resumable",
       kTwoPrograms,
       with_class("protect 2h  resumable false"),
       {"error[preemptible_not_resumable]: class `train` can be preempted but cannot resume"}},
      {"runs to completion", kTwoPrograms, with_class("protect 2h  preemptible false"), {}},
      {"a deadline class marked preemptible",
       kTwoPrograms,
       with_class("deadline required  slo 90%  preemptible"),
       {"error[preemptible_not_resumable]: class `train` can be preempted but cannot resume"}},
      {"a deadline without a service level",
       kTwoPrograms,
       with_class("deadline required  protect 1h"),
       {"error[deadline_without_slo]: class `train` requires a deadline but sets no `slo`"}},
      {"a service level on an optional deadline",
       kTwoPrograms,
       with_class("deadline optional  slo 95%  resumable"),
       {"warning[slo_without_deadline]: `slo` of class `train` has no deadline to measure"}},
      {"an impossible service level is not also a missing one",
       kTwoPrograms,
       with_class("deadline required  slo 0%"),
       {"error[invalid_contract]: `slo` of class `train` must be above 0% and at most 100%"}},
      {"a fractional node count",
       kTwoPrograms,
       with_class("max_nodes 1.5  resumable"),
       {"error[invalid_contract]: `max_nodes` of class `train` must be a whole number from 1 to 1000000"}},
      {"a zero grace period",
       kTwoPrograms,
       with_class("grace 0s  resumable"),
       {"error[invalid_duration]: `grace` of class `train` must be longer than 0 and at most 100 years"}},
      {"a property twice",
       kTwoPrograms,
       with_class("resumable  resumable"),
       {"error[duplicate_declaration]: `resumable` is set twice in class `train`"}},
  });
}

namespace {

// `levels` nested nodes, each the only child of the one before; programs are level 1.
std::string nested(int levels, const std::string& share = "100%") {
  std::string text = program("l1", share, "INNER");
  std::string inner;
  for (int level = 2; level <= levels; ++level) inner += "project l" + std::to_string(level) + " " + share + " {\n";
  for (int level = 2; level <= levels; ++level) inner += "}\n";
  return text.replace(text.find("INNER"), 5, inner);
}

}  // namespace

TEST_CASE("trees nest to 64 levels; deeper is one diagnostic, not a crash", "[check][tree][limits]") {
  run({
      {"ten levels", nested(10), "", {}},
      {"ten levels of raw shares", nested(10, "shares 1"), "", {}},
      {"sixty-four levels", nested(64), "", {}},
      {"sixty-five levels",
       nested(65),
       "",
       {"error[tree_too_deep]: the budget tree nests deeper than 64 levels"},
       "`l65` would be level 65; programs are level 1"},
      {"ten thousand levels", nested(10000), "", {"error[tree_too_deep]: the budget tree nests deeper than 64 levels"}},
  });
}

TEST_CASE("a hostile tree is rejected by the formatter and the compiler too", "[check][tree][limits]") {
  const std::string text =
      "policy lab {\n unit gpu_hours { h100 = 1.0 }\n window 7d\n tree {\n" + nested(10000) + "\n }\n rank = 1\n}\n";
  const allot::FormatResult formatted = allot::format_source("case.allot", text);
  CHECK_FALSE(formatted.formatted.has_value());
  REQUIRE(formatted.diagnostics.size() == 1);
  CHECK(formatted.diagnostics.front().code == "tree_too_deep");
  allot::CompileOptions options;
  options.engine = allot::Engine::interpreter;
  options.check.today = allot::parse_date("2026-12-01");
  const allot::CompileResult compiled = allot::compile_policy_source("case.allot", text, options);
  CHECK(compiled.policy == nullptr);
  REQUIRE(compiled.diagnostics.size() == 1);
  CHECK(compiled.diagnostics.front().code == "tree_too_deep");
}

TEST_CASE("one share form per sibling set", "[check][tree][shares]") {
  run({
      {"raw shares", program("research", "shares 3") + program("product", "shares 1"), "", {}},
      {"raw shares under a percentage program",
       program("research", "100%", "user ana shares 5  user ben shares 1000000"),
       "",
       {}},
      {"percentages and raw shares among siblings",
       program("research", "60%", "user ana 50%  user ben shares 50") + program("product", "40%"),
       "",
       {"error[mixed_share_forms]: shares under `research` mix percentages and raw `shares N`"},
       "all as percentages of the parent (`40%`), or all as raw `shares N`"},
      {"mixed forms among the programs",
       program("research", "shares 60") + program("product", "40%"),
       "",
       {"error[mixed_share_forms]: shares among the programs mix percentages and raw `shares N`"},
       "`research` uses raw `shares N`"},
      {"unallocated among raw shares",
       program("research", "100%", "user ana shares 5  user ben shares 5  unallocated 10%"),
       "",
       {"error[mixed_share_forms]: `unallocated` is a percentage, but the shares under `research` are raw `shares "
        "N`"},
       "raw shares are normalised among the siblings"},
      {"a fractional raw share",
       program("research", "100%", "user ana shares 2.5"),
       "",
       {"error[share_out_of_range]: raw share of `ana` is 2.5, not a whole number"},
       "whole numbers from 0 to 1000000"},
      {"a raw share above Slurm's range",
       program("research", "100%", "user ana shares 1000001"),
       "",
       {"error[share_out_of_range]: raw share of `ana` is 1000001, above 1000000"}},
      {"shares, share and parent stay usable as names",
       program("research", "100%",
               "user share shares 1  user shares shares 2  project parent share parent { user x shares 3 }"),
       "",
       {}},
      {"names called share and parent",
       program("parent", "60%", "user share 50%  user shares 50%") + program("share", "40%"),
       "",
       {}},
  });
}

TEST_CASE("a level of zero shares is a warning", "[check][tree][shares]") {
  run({
      {"all raw shares 0",
       program("research", "100%", "user ana shares 0  user ben shares 0"),
       "",
       {"warning[zero_share_level]: every share under `research` is `shares 0`"},
       "no entitlement"},
      {"all percentages 0, the level lent",
       program("research", "100%", "user ana 0%  user ben 0%  unallocated 100%"),
       "",
       {"warning[zero_share_level]: every share under `research` is 0%"}},
      {"all percentages 0 and not lent is the sum's error alone",
       program("research", "100%", "user ana 0%  user ben 0%"),
       "",
       {"error[share_sum_mismatch]: shares under `research` sum to 0%, not 100%"}},
      {"one zero share among others", program("research", "100%", "user ana shares 0  user ben shares 1"), "", {}},
      {"zero at the top",
       program("research", "shares 0") + program("product", "shares 0"),
       "",
       {"warning[zero_share_level]: every share among the programs is `shares 0`"}},
      {"share parent nodes are not counted, their children are",
       program("research", "100%", "user ana shares 0  project lab share parent { user ben shares 0 }"),
       "",
       {"warning[zero_share_level]: every share under `research` is `shares 0`"},
       "the level counts the children of its `share parent` nodes too"},
      {"a child that competes one level up can carry the level",
       program("research", "100%", "user ana shares 0  project lab share parent { user ben shares 4 }"),
       "",
       {}},
  });
}

TEST_CASE("share parent passes a node's place to its children", "[check][tree][shares]") {
  run({
      {"on a project in a percentage set, not counted in the sum",
       program("research", "100%", "user ana 100%  project lab share parent { user ben 60%  user cleo 40% }"),
       "",
       {}},
      {"on a user in a raw set", program("research", "100%", "user ana shares 10  user ben share parent"), "", {}},
      {"on a program with children",
       program("research", "100%") + program("platform", "share parent", "user ana 100%"),
       "",
       {}},
      {"on a program without children",
       program("research", "100%") + program("platform", "share parent"),
       "",
       {"error[invalid_share_parent]: program `platform` has `share parent` but no children"},
       "give `platform` a share of its own"},
      {"the children of a share parent node use their new level's form",
       program("research", "100%", "user ana 100%  project lab share parent { user ben shares 1 }"),
       "",
       {"error[mixed_share_forms]: `research/lab/ben` uses raw `shares N`, but it competes under `research`, where "
        "shares are percentages"},
       "`research/lab` has `share parent`: its children compete one level up"},
      {"a level of share parent nodes only has no sum",
       program("research", "100%", "project a share parent { user x 100% }  project b share parent { user y 100% }"),
       "",
       {}},
  });
}

TEST_CASE("a level's raw shares fit Slurm's 32 bits", "[check][tree][shares]") {
  std::string users;
  for (int i = 0; i < 4295; ++i) users += "user u" + std::to_string(i) + " shares 1000000\n";
  run({
      {"4294 shares of a million and one of 967295 fit",
       program("research", "100%", users.substr(0, users.rfind("user u4294")) + "user u4294 shares 967295"),
       "",
       {}},
      {"one more share is too many",
       program("research", "100%", users.substr(0, users.rfind("user u4294")) + "user u4294 shares 967296"),
       "",
       {"error[share_sum_overflow]: raw shares under `research` sum to 4294967296, more than Slurm can hold"},
       "at most 4294967295"},
      {"through share parent the level counts its children",
       program(
           "research", "100%",
           "project lab share parent {\n" + users.substr(0, users.rfind("user u4294")) + "}\nuser u4294 shares 967296"),
       "",
       {"error[share_sum_overflow]: raw shares under `research` sum to 4294967296, more than Slurm can hold"},
       "the level counts the children of its `share parent` nodes too"},
  });
}

TEST_CASE("grants move percentage points of percentage shares only", "[check][exceptions][shares]") {
  const auto grants = [](const std::string& text) {
    return std::string(kDefaultClass) + "\n" + exception("push", text);
  };
  const std::string tree =
      program("research", "60%", "user ana shares 1  user ben shares 1") +
      program("product", "40%", "user cleo 50%  project lab share parent { user dana 100% }  unallocated 50%");
  run({
      {"a grant between percentage users", tree, grants("grant cleo +10%"), {}},
      {"a grant to a raw share",
       tree,
       grants("grant ana +10%"),
       {"error[grant_needs_percent]: a grant moves percentage points, and `research/ana` has raw `shares 1`, not a "
        "percentage"}},
      {"a grant from a share parent node",
       tree,
       grants("grant cleo +10% from lab"),
       {"error[grant_needs_percent]: a grant moves percentage points, and `product/lab` has `share parent`: it holds "
        "no share of its own"}},
      {"a grant to a child of a share parent node",
       tree,
       grants("grant dana +10% from cleo"),
       {"error[grant_needs_percent]: a grant moves percentage points, and `product/lab/dana` competes one level up, "
        "through the `share parent` of `product/lab`"}},
      {"taking from a 0% share",
       program("research", "100%") + program("product", "0%"),
       grants("grant research -10% from product"),
       {}},
      {"giving away more than a 0% share has",
       program("research", "100%") + program("product", "0%"),
       grants("grant research +10% from product"),
       {"error[exception_share_negative]: exceptions leave `product` with -10%"}},
  });
}

TEST_CASE("what --cluster finds is an error for CI and a warning for a scheduler given its cluster", "[check][tree]") {
  const std::string text = "policy lab {\n unit gpu_hours { h10O = 1.0 }\n window 7d\n tree {\n" + kTwoPrograms +
                           "\n }\n class big { max_gpus 64  max_runtime 1h  protect 15m  resumable }\n rank = 1\n}\n";
  allot::CheckOptions options;
  options.today = allot::parse_date("2026-12-01");
  options.cluster = allot::ClusterFacts{"cluster.toml", {"h100"}, 1, 8};
  const std::vector<std::string> found = {
      "[unknown_name]: cluster `cluster.toml` has no GPU type `h10O`",
      "[invalid_contract]: class `big` lets a job ask for 64 GPUs, but cluster `cluster.toml` has 8"};
  CHECK(headlines(allot::check_source("case.allot", text, options)) ==
        std::vector<std::string>{"error" + found[0], "error" + found[1]});
  options.cluster_facts_are_warnings = true;  // `allot serve`: the same findings, and the policy runs
  const allot::CheckResult scheduler = allot::check_source("case.allot", text, options);
  CHECK(headlines(scheduler) == std::vector<std::string>{"warning" + found[0], "warning" + found[1]});
  CHECK_FALSE(scheduler.has_errors());
}

TEST_CASE(
    "check with a cluster refuses a unit weight for a GPU type it lacks only when one of its types is left at 1.0",
    "[check][tree]") {
  // The rule the runtime warns by (support::unit_type_gaps): CI, serve, slurm and replay agree.
  const auto check = [](const std::string& weights) {
    const std::string text =
        "policy lab {\n unit gpu_hours { " + weights + " }\n window 7d\n tree {\n" + kTwoPrograms +
        "\n }\n class small { max_gpus 8  max_runtime 1h  protect 15m  resumable }\n rank = 1\n}\n";
    allot::CheckOptions options;
    options.today = allot::parse_date("2026-12-01");
    options.cluster = allot::ClusterFacts{"cluster.toml", {"h100", "a100"}, 1, 8};
    return allot::check_source("case.allot", text, options);
  };
  struct Case {
    const char* name;
    std::string weights;
    std::vector<std::string> said;  // headline, then " / help: ..."
  };
  const std::vector<Case> cases = {
      {"every type weighed", "h100 = 1.0  a100 = 0.6", {}},
      {"a fleet's policy: a type weighed the cluster lacks, every type of it weighed",
       "h100 = 1.0  a100 = 0.6  b300 = 2.0",
       {}},
      {"a type of the cluster left unweighed, no stray weight (it counts 1.0, as written)", "h100 = 1.0", {}},
      {"a misspelling leaves `a100` at 1.0",
       "h100 = 1.0  a10O = 0.6",
       {"error[unknown_name]: cluster `cluster.toml` has no GPU type `a10O` / help: did you mean `a100`?"}},
      {"two stray weights, each said",
       "h100 = 1.0  a10O = 0.6  b300 = 2.0",
       {"error[unknown_name]: cluster `cluster.toml` has no GPU type `a10O` / help: did you mean `a100`?",
        "error[unknown_name]: cluster `cluster.toml` has no GPU type `b300` / help: weigh `a100` here, or drop "
        "`b300`"}},
  };
  for (const Case& c : cases) {
    DYNAMIC_SECTION(c.name) {
      const allot::CheckResult result = check(c.weights);
      std::vector<std::string> said = headlines(result);
      for (std::size_t i = 0; i < said.size(); ++i) said[i] += " / help: " + result.diagnostics[i].help;
      CHECK(said == c.said);
    }
  }
}
