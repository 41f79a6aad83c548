// Table-driven cases for types and units (spec: "Types and units", "Gates").
// A row is an expression (or a few declarations) and either the type the
// checker gives it or the one diagnostic `allot check` prints for it.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "allot/frontend.h"
#include "check/check_context.h"
#include "check/schema.h"
#include "check/typing.h"
#include "load/loader.h"

namespace {

const char* const kClasses =
    "class debug { max_gpus 1  max_runtime 15m  protect 15m  resumable }\n"
    "class eval { deadline required  slo 95%  protect 1h  resumable }\n"
    "class train { checkpoint every 30m  protect up to 2h  resumable }\n";

// A clean policy around `rank`, `preempt` and extra declarations (functions, gates).
std::string policy(const std::string& rank, const std::string& preempt = "victim.restarts < 3",
                   const std::string& extra = "") {
  return std::string("policy lab {\n unit gpu_hours { h100 = 1.0 }\n window 7d\n") +
         " tree { product 100% { owner \"lead@example.com\"  review 2027-01-31  hypothesis \"it pays\" } }\n" +
         kClasses + extra + "\n rank = " + rank + "\n preempt when " + preempt + "\n}\n";
}

allot::CheckResult check(const std::string& text) {
  allot::CheckOptions options;
  options.today = allot::parse_date("2026-12-01");
  return allot::check_source("case.allot", text, options);
}

// "error[code]: message" for every diagnostic, in source order.
std::vector<std::string> headlines(const allot::CheckResult& result) {
  std::vector<std::string> lines;
  for (const auto& d : result.diagnostics) {
    lines.push_back(std::string(d.severity == allot::Severity::error ? "error" : "warning") + "[" + d.code +
                    "]: " + d.message);
  }
  return lines;
}

// The type the checker gives `expression` inside `rank` (bound by a `let`, so
// `rank` itself stays a number), or the diagnostics when there are any.
std::string type_in_rank(const std::string& expression, const std::string& extra = "") {
  const std::string text = policy("let probe = (" + expression + ") in 0", "true", extra);
  allot::SourceManager sources;
  allot::DiagnosticSink diagnostics(sources);
  allot::Program program = allot::load_program("case.allot", &text, sources, diagnostics);
  const allot::CheckOptions options;
  allot::CheckContext context{sources, options, *allot::parse_date("2026-12-01"), diagnostics};
  const allot::Scope scope = allot::check_declarations(program, context);
  const allot::TypedProgram typed = allot::type_program(program, scope, diagnostics);
  std::string problems;
  for (const auto& d : diagnostics.take_sorted()) problems += "[" + d.code + "] " + d.message + "; ";
  if (!problems.empty()) return problems;
  const allot::ast::Expr& probe = *program.modules[0].policies[0].ranks[0].body->operands[0];
  return std::string(allot::type_name(typed.expression_types.at(&probe)));
}

struct TypeCase {
  const char* expression;
  const char* type;
};

void expect_types(const std::vector<TypeCase>& cases, const std::string& extra = "") {
  for (const auto& c : cases) {
    INFO(c.expression);
    CHECK(type_in_rank(c.expression, extra) == c.type);
  }
}

struct DiagnosticCase {
  std::string text;      // a whole policy
  std::string headline;  // the one diagnostic expected
  std::string help = "";
};

void check_diagnostics(const std::vector<DiagnosticCase>& cases) {
  for (const auto& c : cases) {
    INFO(c.text);
    const auto result = check(c.text);
    CHECK(headlines(result) == std::vector<std::string>{c.headline});
    if (!c.help.empty() && !result.diagnostics.empty()) CHECK(result.diagnostics[0].help == c.help);
  }
}

// One rank expression with exactly one diagnostic.
DiagnosticCase in_rank(const std::string& rank, const std::string& headline, const std::string& help = "") {
  return {policy(rank), headline, help};
}

// One preempt condition with exactly one diagnostic.
DiagnosticCase in_preempt(const std::string& preempt, const std::string& headline, const std::string& help = "") {
  return {policy("1", preempt), headline, help};
}

// Declarations (functions) plus a rank, with exactly one diagnostic.
DiagnosticCase with(const std::string& extra, const std::string& rank, const std::string& headline,
                    const std::string& help = "") {
  return {policy(rank, "true", extra), headline, help};
}

// A `gates { }` block with exactly one diagnostic.
DiagnosticCase gate(const std::string& line, const std::string& headline, const std::string& help = "") {
  return {policy("1", "true", " gates { " + line + " }\n"), headline, help};
}

}  // namespace

TEST_CASE("arithmetic keeps units: every operator rule of the spec", "[types]") {
  expect_types({
      {"1 + 2", "number"},
      {"6 - 2", "number"},
      {"2 * 3", "number"},
      {"1 / 3", "number"},
      {"2 ^ 10", "number"},
      {"1h + 30m", "duration"},
      {"1h - 30m", "duration"},
      {"job.wait * 2", "duration"},
      {"2 * job.wait", "duration"},
      {"job.wait / 2", "duration"},
      {"job.wait / 1h", "number"},
      {"40% + 5%", "percent"},
      {"40% - 5%", "percent"},
      {"40% * 2", "percent"},
      {"2 * 40%", "percent"},
      {"40% / 2", "percent"},
      {"50% * 40%", "percent"},
      {"account.share / 1%", "number"},
      {"cluster.now - job.submitted", "duration"},
      {"job.submitted + 7d", "date"},
      {"cluster.now - 1d", "date"},
      {"7d + job.submitted", "date"},
  });
}

TEST_CASE("negation, comparison and logic have the spec's types", "[types]") {
  expect_types({
      {"-1", "number"},
      {"-job.wait", "duration"},
      {"-account.share", "percent"},
      {"job.gpus < 2", "bool"},
      {"job.wait <= 1h", "bool"},
      {"account.share > 10%", "bool"},
      {"job.submitted >= 2026-01-01", "bool"},
      {"job.gpus == 2", "bool"},
      {"job.has_deadline != true", "bool"},
      {"job.class == debug", "bool"},
      {"job.label != high", "bool"},
      {"job.account == account", "bool"},
      {"job.resumable and not job.has_deadline", "bool"},
      {"job.resumable or job.gpus > 1", "bool"},
  });
}

TEST_CASE("fields of job, account and cluster have the schema's types", "[types][schema]") {
  expect_types({
      {"job.class", "class"},
      {"job.label", "label"},
      {"job.deadline_slack", "duration"},
      {"job.account", "account"},
      {"job.account.usage_ratio", "number"},
      {"account.effective_usage", "percent"},
      {"account.depth", "number"},
      {"cluster.now", "date"},
      {"cluster.utilization", "percent"},
      {"cluster", "cluster"},
  });
  // Every field the schema lists is reachable with the type it declares.
  for (auto record : {allot::Type::job, allot::Type::account, allot::Type::cluster}) {
    for (const auto& field : allot::record_fields(record)) {
      const std::string expression = std::string(allot::type_name(record)) + "." + std::string(field.name);
      INFO(expression);
      CHECK(type_in_rank(expression) == allot::type_name(field.type));
      CHECK_FALSE(field.doc.empty());
    }
  }
}

TEST_CASE("builtins take and return the spec's types", "[types][builtins]") {
  expect_types({
      {"min(1, 2)", "number"},
      {"max(1h, 2h, 30m)", "duration"},
      {"min(account.share, 50%)", "percent"},
      {"max(cluster.now, job.submitted)", "date"},
      {"clamp(job.wait, 0s, 2d)", "duration"},
      {"abs(-job.wait)", "duration"},
      {"abs(-2)", "number"},
      {"log(2)", "number"},
      {"exp(1)", "number"},
      {"sqrt(job.gpus)", "number"},
  });
}

TEST_CASE("names: classes, labels, let shadowing and functions", "[types][names]") {
  expect_types(
      {
          {"debug", "class"},
          {"none", "label"},
          {"let x = 1h in x", "duration"},
          {"let x = 1h in let x = x / 1m in x", "number"},
          {"let job = 5 in job", "number"},
          {"let debug = 2h in debug", "duration"},
          {"if job.gpus > 1 then 1h else 2h", "duration"},
          {"match job.class { debug => 1%, _ => 2% }", "percent"},
          {"match job.label { high => 3, medium => 2, low => 1, none => 0 }", "number"},
          {"boost(job.class)", "number"},
          {"waited(job)", "duration"},
          {"twice(waited(job))", "duration"},
      },
      "fn boost(c: class) = match c { debug => 500, eval => 300, _ => 0 }\n"
      "fn waited(j: job): duration = j.wait\n"
      "fn twice(d: duration) = d * 2\n");
}

TEST_CASE("operators on the wrong units say which types and how to fix it", "[types][diagnostics]") {
  check_diagnostics({
      in_rank("job.wait + account.share", "error[type_mismatch]: cannot add `duration` and `percent`"),
      in_rank("(job.wait - account.share) / 1h", "error[type_mismatch]: cannot subtract `percent` from `duration`"),
      in_rank("job.wait * job.wait / 1h", "error[type_mismatch]: cannot multiply `duration` by `duration`"),
      in_rank("1 / job.wait", "error[type_mismatch]: cannot divide `number` by `duration`"),
      in_rank("(job.wait ^ 2) / 1h", "error[type_mismatch]: cannot raise `duration` to the power of `number`",
              "`^` works on plain numbers; divide a quantity by its unit first, such as `(job.wait / 1h) ^ 2`"),
      in_rank("2 ^ 50%", "error[type_mismatch]: cannot raise `number` to the power of `percent`"),
      in_rank("(cluster.now + cluster.now - cluster.now) / 1h", "error[type_mismatch]: cannot add `date` and `date`"),
      in_rank("(1h - cluster.now) / 1h", "error[type_mismatch]: cannot subtract `date` from `duration`"),
      in_rank("job.gpus + job.wait / 1h * 1%", "error[type_mismatch]: cannot add `number` and `percent`"),
      in_rank("if job.wait > 5 then 1 else 0", "error[type_mismatch]: cannot compare `duration` with `number`",
              "write a duration such as `5m`"),
      in_rank("if account.share < 0.5 then 1 else 0", "error[type_mismatch]: cannot compare `percent` with `number`",
              "write a percentage such as `50%`"),
      in_rank("job.wait / 1h + 1 + job.wait", "error[type_mismatch]: cannot add `number` and `duration`"),
      in_rank("if job.class < debug then 1 else 0", "error[type_mismatch]: `class` values have no order",
              "a `class` compares only with `==` and `!=`"),
      in_rank("if job.resumable < true then 1 else 0", "error[type_mismatch]: `bool` values have no order"),
      in_rank("if job.class == high then 1 else 0", "error[type_mismatch]: cannot compare `class` with `label`"),
      in_rank("if job == job then 1 else 0", "error[type_mismatch]: cannot compare two `job` values with `==`"),
      in_rank("if job.gpus and job.resumable then 1 else 0",
              "error[type_mismatch]: cannot apply `and` to `number` and `bool`",
              "compare it with a value, such as `job.gpus > 1`"),
      in_rank("if job.resumable or 1h then 1 else 0",
              "error[type_mismatch]: cannot apply `or` to `bool` and `duration`"),
      in_rank("if not job.gpus then 1 else 0", "error[type_mismatch]: cannot apply `not` to `number`"),
      in_rank("if -job.resumable then 1 else 0", "error[type_mismatch]: cannot negate `bool`",
              "write `not` to negate a condition"),
      in_rank("-cluster.now - cluster.now", "error[type_mismatch]: cannot negate `date`"),
  });
}

TEST_CASE("rank, preempt, if and match demand the right types", "[types][diagnostics]") {
  check_diagnostics({
      in_rank("job.wait", "error[type_mismatch]: `rank` must be a `number`, not `duration`",
              "divide by a unit: `job.wait / 1h`"),
      in_rank("account.share", "error[type_mismatch]: `rank` must be a `number`, not `percent`",
              "divide by a percentage to get a number: `account.share / 1%`"),
      in_rank("job.gpus > 1", "error[type_mismatch]: `rank` must be a `number`, not `bool`"),
      in_preempt("victim.account.usage_ratio",
                 "error[type_mismatch]: `preempt when` needs a condition (`bool`), not `number`",
                 "compare it with a value, such as `victim.account.usage_ratio > 1`"),
      in_rank("if job.gpus then 1 else 0", "error[type_mismatch]: the condition of `if` must be `bool`, not `number`",
              "compare it with a value, such as `job.gpus > 1`"),
      in_rank("if job.wait * 2 then 1 else 0",
              "error[type_mismatch]: the condition of `if` must be `bool`, not `duration`",
              "compare it with a value, such as `job.wait > 1h`"),
      in_rank("if job.resumable then 1 else 1h",
              "error[type_mismatch]: `if` branches have different types: `number` and `duration`"),
      in_rank("if job.resumable then 1h else 5",
              "error[type_mismatch]: `if` branches have different types: `duration` and `number`",
              "write a duration such as `5m`"),
      in_rank("match job.label { high => 1, low => 1h, _ => 0 }",
              "error[type_mismatch]: `match` arms have different types: `number` and `duration`"),
      in_rank("match job.gpus { high => 1, _ => 0 }",
              "error[type_mismatch]: `match` takes a `class` or `label`, not `number`"),
      in_rank("\"debug\"", "error[type_mismatch]: a string cannot be used in an expression"),
      in_rank("if job.class == \"debug\" then 1 else 0",
              "error[type_mismatch]: a string cannot be used in an expression", "write `debug` without quotes"),
      in_rank("let x = \"x\" in x + 1", "error[type_mismatch]: a string cannot be used in an expression",
              "strings are only for `owner`, `reason` and `hypothesis`"),
  });
}

TEST_CASE("match covers every member once, and `_` comes last", "[types][match]") {
  check_diagnostics({
      in_rank("match job.class { debug => 1, eval => 2 }",
              "error[non_exhaustive_match]: `match` does not cover every class"),
      in_rank("match job.label { high => 1 }", "error[non_exhaustive_match]: `match` does not cover every label"),
      in_rank("match job.class { debug => 1, _ => 2, eval => 3 }",
              "warning[unreachable_arm]: this arm is never reached", "move the `_` arm last"),
      in_rank("match job.class { debug => 1, debug => 2, _ => 0 }", "error[duplicate_name]: `debug` is matched twice"),
      // A misspelt member is reported once, not again as a missing one.
      in_rank("match job.class { debg => 1, eval => 2, train => 3 }", "error[unknown_name]: `debg` is not a class",
              "did you mean `debug`?"),
      in_rank("match job.label { debug => 1, _ => 0 }", "error[unknown_name]: `debug` is not a label"),
  });
  const auto result = check(policy("match job.class { debug => 1 }"));
  REQUIRE(result.diagnostics.size() == 1);
  REQUIRE(result.diagnostics[0].notes.size() == 1);
  CHECK(result.diagnostics[0].notes[0].message == "missing: `eval`, `train`");
}

TEST_CASE("unknown names, fields and functions suggest what was meant", "[types][names]") {
  check_diagnostics({
      in_rank("jobs.gpus", "error[unknown_name]: unknown name `jobs`", "did you mean `job`?"),
      in_rank("acount.debt", "error[unknown_name]: unknown name `acount`", "did you mean `account`?"),
      in_rank("victim.gpus", "error[unknown_name]: unknown name `victim`",
              "`victim` and `requester` exist in `preempt when`; `rank` sees `job`, `account` and `cluster`"),
      in_preempt("job.gpus > 4", "error[unknown_name]: unknown name `job`", "use `victim` or `requester`"),
      in_preempt("account.debt > 0", "error[unknown_name]: unknown name `account`",
                 "use `victim.account` or `requester.account`"),
      in_rank("job.gpu", "error[unknown_field]: `job` has no field `gpu`", "did you mean `gpus`?"),
      in_rank("account.usage_ration", "error[unknown_field]: `account` has no field `usage_ration`",
              "did you mean `usage_ratio`?"),
      in_rank("job.wait.hours", "error[type_mismatch]: a `duration` has no field `hours`"),
      in_rank("minn(1, 2)", "error[unknown_function]: unknown function `minn`", "did you mean `min`?"),
      in_rank("fair_tree(account)", "error[unknown_function]: unknown function `fair_tree`",
              "did you mean the field `account.fair_tree`?"),
      in_rank("clamp(job.gpus, 1)", "error[wrong_argument_count]: `clamp` takes 3 arguments, not 2",
              "write `clamp(x, low, high)`"),
      in_rank("min(job.gpus)", "error[wrong_argument_count]: `min` takes at least 2 arguments, not 1"),
      in_rank("sqrt(1, 2)", "error[wrong_argument_count]: `sqrt` takes 1 argument, not 2"),
      in_rank("min(job.wait, 48) / 1h",
              "error[type_mismatch]: arguments of `min` must have the same type, not `duration` and `number`",
              "write a duration such as `5m`"),
      in_rank("log(job.wait)", "error[type_mismatch]: `log` takes `number`, not `duration`",
              "divide by a unit: `job.wait / 1h`"),
      in_rank("abs(cluster.now) - cluster.now",
              "error[type_mismatch]: `abs` takes `number`, `duration` or `percent`, not `date`"),
      in_rank("max(true, false)",
              "error[type_mismatch]: `max` takes `number`, `duration`, `percent` or `date`, not `bool`"),
  });
}

TEST_CASE("functions: parameters, results, calls and recursion", "[types][functions]") {
  check_diagnostics({
      with("fn f(x: nuber) = 1\n", "f(1)", "error[unknown_type]: unknown type `nuber`", "did you mean `number`?"),
      with("fn f(x: number): strng = x\n", "1", "error[unknown_type]: unknown type `strng`"),
      with("fn f(x: string) = 1\n", "f(1)", "error[unknown_type]: type `string` cannot be declared"),
      with("fn f(x: number, x: number) = x\n", "f(1, 2)",
           "error[duplicate_name]: parameter `x` of `f` is declared twice"),
      with("fn f(j: job): number = j.wait\n", "f(job)",
           "error[type_mismatch]: `f` must return `number`, but its body is `duration`",
           "divide by a unit: `job.wait / 1h`"),
      with("fn f(x: number) = x\n", "f(job.wait)",
           "error[type_mismatch]: argument `x` of `f` must be `number`, not `duration`"),
      with("fn f(x: number) = x\n", "f(1, 2)", "error[wrong_argument_count]: `f` takes 1 argument, not 2",
           "write `f(x)`"),
      with("fn f() = job.gpus\n", "f()", "error[unknown_name]: unknown name `job`",
           "a function sees only its parameters: add `job: job` to them and pass it in"),
      with("fn f(x: number): number = f(x - 1)\n", "f(3)", "error[recursive_function]: function `f` calls itself"),
      with("fn a(x: number) = b(x)\nfn b(x: number) = c(x)\nfn c(x: number) = a(x)\n", "a(1)",
           "error[recursive_function]: functions `a`, `b` and `c` call each other"),
      with("fn min(a: number, b: number) = a\n", "min(1, 2)",
           "error[duplicate_name]: function `min` has the name of a builtin"),
  });
}

TEST_CASE("recursion is reported once per cycle, with the cycle in a note", "[types][functions]") {
  const auto result = check(policy("a(1)", "true", "fn a(x: number) = b(x) + 1\nfn b(x: number) = a(x) * 2\n"));
  REQUIRE(headlines(result) ==
          std::vector<std::string>{"error[recursive_function]: functions `a` and `b` call each other"});
  REQUIRE(result.diagnostics[0].notes.size() == 1);
  CHECK(result.diagnostics[0].notes[0].message == "the cycle: a -> b -> a");
  CHECK(result.diagnostics[0].span.line == 9);  // the call `a(x)` in `b`, which closes the cycle
}

TEST_CASE("a long cycle is named in short", "[types][functions]") {
  std::string functions;
  for (int i = 0; i < 10; ++i) {
    functions += "fn f" + std::to_string(i) + "(x: number): number = f" + std::to_string((i + 1) % 10) + "(x)\n";
  }
  const auto result = check(policy("f0(1)", "true", functions));
  REQUIRE(headlines(result) ==
          std::vector<std::string>{
              "error[recursive_function]: functions `f0`, `f1`, `f2`, `f3`, `f4` and 5 others call each other"});
  CHECK(result.diagnostics[0].notes[0].message == "the cycle: f0 -> f1 -> f2 -> f3 -> ... -> f9 -> f0");
}

TEST_CASE("one root cause gives one diagnostic", "[types][diagnostics]") {
  SECTION("an unknown name inside a larger expression") {
    CHECK(headlines(check(policy("((jobs.wait + 1%) * 2 > 5h) + 1"))) ==
          std::vector<std::string>{"error[unknown_name]: unknown name `jobs`"});
  }
  SECTION("a broken function is reported once however often it is called") {
    const auto result = check(policy("f(1) + f(2) + f(3)", "f(4) > 0", "fn f(x: number) = x + 1h / 1m + y\n"));
    CHECK(headlines(result) == std::vector<std::string>{"error[unknown_name]: unknown name `y`"});
  }
  SECTION("a recursive function without a result type silences its callers") {
    const auto result = check(policy("a(1) + 1h", "true", "fn a(x: number) = a(x)\n"));
    CHECK(headlines(result) == std::vector<std::string>{"error[recursive_function]: function `a` calls itself"});
  }
  SECTION("a call with a bad argument still has the function's result type") {
    const auto result = check(policy("f(job.wait) + 1h", "true", "fn f(x: number) = x\n"));
    CHECK(headlines(result) == std::vector<std::string>{
                                   "error[type_mismatch]: cannot add `number` and `duration`",
                                   "error[type_mismatch]: argument `x` of `f` must be `number`, not `duration`",
                               });
  }
}

TEST_CASE("preempt sees victim, requester and cluster", "[types][preempt]") {
  CHECK(check(policy("1",
                     "victim.account != requester.account and victim.since_checkpoint < 10m and "
                     "requester.class == eval and cluster.free_gpus < requester.gpus"))
            .diagnostics.empty());
}

TEST_CASE("function results are inferred once, without blow-up or deep recursion", "[types][functions][limits]") {
  SECTION("each function calls the next twice: exponential without memoisation") {
    std::string functions;
    for (int i = 0; i < 80; ++i)
      functions += "fn f" + std::to_string(i) + "(x: duration) = f" + std::to_string(i + 1) + "(x) + f" +
                   std::to_string(i + 1) + "(x)\n";
    functions += "fn f80(x: duration) = x\n";
    CHECK(check(policy("f0(job.wait) / 1h", "true", functions)).diagnostics.empty());
  }
  SECTION("a chain of thousands of functions") {
    std::string functions;
    const int length = 20000;
    for (int i = 0; i < length; ++i) {
      functions += "fn g" + std::to_string(i) + "(x: number) = g" + std::to_string(i + 1) + "(x)\n";
    }
    functions += "fn g" + std::to_string(length) + "(x: number) = x * 1h\n";
    CHECK(headlines(check(policy("g0(1)", "true", functions))) ==
          std::vector<std::string>{"error[type_mismatch]: `rank` must be a `number`, not `duration`"});
  }
}

TEST_CASE("imported functions are checked once each", "[types][functions][imports]") {
  namespace fs = std::filesystem;
  const fs::path folder = fs::temp_directory_path() / ("allot_type_check_" + std::to_string(std::random_device()()));
  fs::create_directories(folder);
  std::ofstream(folder / "base.allot") << "fn base(j: job): number = j.wait\n";
  std::ofstream(folder / "more.allot") << "import \"base.allot\"\nfn more(j: job) = base(j) * 2\n";
  std::ofstream(folder / "input.allot") << "import \"base.allot\"\nimport \"more.allot\"\n"
                                        << policy("more(job) + base(job)");
  allot::CheckOptions options;
  options.today = allot::parse_date("2026-12-01");
  const auto result = allot::check_files({(folder / "input.allot").string()}, options);
  CHECK(headlines(result) ==
        std::vector<std::string>{"error[type_mismatch]: `base` must return `number`, but its body is `duration`"});
  fs::remove_all(folder);
}

TEST_CASE("gates: metric, unit, class and window", "[types][gates]") {
  CHECK(check(policy("1", "true",
                     " gates { share_delivery >= 95% over 7d  lost_work <= 2%  p90_wait debug <= 5m "
                     " max_wait < 2h  time_to_first_progress train <= 1h  fragmentation < 10% }\n"))
            .diagnostics.empty());
  check_diagnostics({
      gate("share_delivry >= 95%", "error[unknown_gate]: unknown gate metric `share_delivry`",
           "did you mean `share_delivery`?"),
      gate("p90_wait <= 5", "error[type_mismatch]: the threshold of `p90_wait` must be a `duration`, not `number`",
           "write a duration such as `5m`"),
      gate("lost_work <= 2", "error[type_mismatch]: the threshold of `lost_work` must be a `percent`, not `number`",
           "write a percentage such as `50%`"),
      gate("occupancy >= 1h", "error[type_mismatch]: the threshold of `occupancy` must be a `percent`, not `duration`"),
      gate("lost_work <= 2% over 7d", "error[invalid_gate]: `lost_work` is not measured over a window",
           "remove `over 7d`; a window applies only to `share_delivery`"),
      gate("lost_work debug <= 2%", "error[invalid_gate]: `lost_work` is not measured per class"),
      gate("p90_wait debg <= 5m", "error[unknown_name]: unknown class `debg`", "did you mean `debug`?"),
      gate("deadline_slo == 95%", "error[invalid_gate]: a gate cannot use `==`"),
  });
}
