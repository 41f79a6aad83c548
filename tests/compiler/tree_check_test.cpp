// Table-driven cases for the budget tree, exception and class-contract checks
// (spec: "Budget tree", "Exceptions", "Classes / contracts"). Each row is a
// small policy and the exact headlines `allot check` prints for it, in order;
// `detail`, when set, must appear in one of the notes or helps.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "allot/compiler.h"

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
      {"a share of 0%",
       program("research", "100%") + program("product", "0%"),
       "",
       {"error[share_out_of_range]: share of `product` is 0%"}},
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
       "write `user ana`"},
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
      {"expiry today still applies", kTwoPrograms, with_dates("expires 2026-12-01"), {}},
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
       {"error[invalid_contract]: `max_nodes` of class `train` must be a whole number of at least 1"}},
      {"a zero grace period",
       kTwoPrograms,
       with_class("grace 0s  resumable"),
       {"error[invalid_duration]: `grace` of class `train` must be longer than 0"}},
      {"a property twice",
       kTwoPrograms,
       with_class("resumable  resumable"),
       {"error[duplicate_declaration]: `resumable` is set twice in class `train`"}},
  });
}
