// The reference interpreter: the documented meaning of every operation, class
// and label encodings, account identity, and the preempt inputs, checked on
// hand-made states through the public CompiledPolicy interface.
#include <cstring>
#include <limits>

#include "allot/compile.h"
#include "allot/policy.h"
#include "ir_test_support.h"
#include "random_states.h"

namespace allot::ir_test {
namespace {

using testing::StateTables;

std::shared_ptr<const CompiledPolicy> interpreted(const std::string& rank, const std::string& preempt = "false") {
  CompileOptions options;
  options.engine = Engine::interpreter;
  options.check.today = parse_date("2026-12-01");
  CompileResult result = compile_policy_source("case.allot", policy_with(rank, preempt), options);
  INFO(render_text(result.diagnostics, result.sources, {}));
  REQUIRE(result.policy != nullptr);
  REQUIRE(result.policy->engine() == Engine::interpreter);
  return result.policy;
}

// The rank of job 0 whose `field` is `value` (every other column 0).
double rank_with(const std::string& rank, abi::JobField field, double value) {
  StateTables tables(1, 1);
  tables.job(field, 0) = value;
  return interpreted(rank)->rank(tables.jobs(), 0, tables.accounts(), {});
}

}  // namespace

TEST_CASE("undefined arithmetic has the documented result at run time", "[ir][interpreter]") {
  constexpr double inf = std::numeric_limits<double>::infinity();
  CHECK(rank_with("10 / job.gpus", abi::job_gpus, 0) == 0);
  CHECK(rank_with("log(job.gpus)", abi::job_gpus, 0) == 0);
  CHECK(rank_with("log(job.gpus)", abi::job_gpus, -3) == 0);
  CHECK(rank_with("sqrt(job.gpus)", abi::job_gpus, -1) == 0);
  CHECK(rank_with("job.gpus ^ 0.5", abi::job_gpus, -4) == 0);
  CHECK(rank_with("exp(job.gpus)", abi::job_gpus, 1000) == inf);
  CHECK(rank_with("job.gpus * 0", abi::job_gpus, inf) == 0);  // NaN ranks as 0
  CHECK(rank_with("job.gpus - job.gpus", abi::job_gpus, inf) == 0);
}

TEST_CASE("match tests arms in order and an unknown class takes the default arm", "[ir][interpreter]") {
  const std::string rank = "match job.class { train => 2, debug => 1 }";
  CHECK(rank_with(rank, abi::job_class, 0) == 1);  // debug is class 0
  CHECK(rank_with(rank, abi::job_class, 1) == 2);
  CHECK(rank_with(rank, abi::job_class, 7) == 1);  // no wildcard: the last arm
}

TEST_CASE("labels are encoded as abi.h says", "[ir][interpreter]") {
  const std::string rank = "match job.label { high => 30, medium => 20, low => 10, none => 0 }";
  CHECK(rank_with(rank, abi::job_label, 3) == 30);
  CHECK(rank_with(rank, abi::job_label, 2) == 20);
  CHECK(rank_with(rank, abi::job_label, 1) == 10);
  CHECK(rank_with(rank, abi::job_label, 0) == 0);
}

TEST_CASE("units reach the policy as abi.h says", "[ir][interpreter]") {
  CHECK(rank_with("job.wait / 1h", abi::job_wait, 5400) == 1.5);
  CHECK(rank_with("(job.submitted - 2026-12-01) / 1d", abi::job_submitted, 1796083200 + 2 * 86400.0) == 2);
  StateTables tables(1, 1);
  tables.account(abi::account_share, 0) = 0.25;
  CHECK(interpreted("account.share / 1%")->rank(tables.jobs(), 0, tables.accounts(), {}) == Approx(25));
  abi::ClusterView cluster{};
  cluster.values[abi::cluster_free_gpus] = 6;
  CHECK(interpreted("cluster.free_gpus")->rank(tables.jobs(), 0, tables.accounts(), cluster) == 6);
}

TEST_CASE("interpreted preempt reads the victim and the requester from their own tables", "[ir][interpreter]") {
  StateTables victims(2, 3), requesters(1, 3);
  victims.job(abi::job_gpus, 1) = 8;
  victims.account_of(1) = 2;
  requesters.job(abi::job_gpus, 0) = 4;
  requesters.account_of(0) = 2;
  const auto bigger = interpreted("1", "victim.gpus > requester.gpus");
  CHECK(bigger->has_preempt());
  CHECK(bigger->preempt(victims.jobs(), 1, requesters.jobs(), 0, victims.accounts(), {}));
  CHECK_FALSE(bigger->preempt(victims.jobs(), 0, requesters.jobs(), 0, victims.accounts(), {}));
  const auto same_account = interpreted("1", "victim.account == requester.account");
  CHECK(same_account->preempt(victims.jobs(), 1, requesters.jobs(), 0, victims.accounts(), {}));
  CHECK_FALSE(same_account->preempt(victims.jobs(), 0, requesters.jobs(), 0, victims.accounts(), {}));
}

TEST_CASE("interpreted batch ranks equal the scalar ranks", "[ir][interpreter]") {
  StateTables tables(100, 4);
  std::mt19937_64 random(7);
  testing::fill_random(tables, 2, random);
  const auto policy = interpreted("job.gpus / job.nodes + log(account.usage) + match job.class { debug => 5, _ => 1 }");
  std::vector<double> batch(60);
  policy->rank_batch(tables.jobs(), tables.accounts(), {}, 20, 80, batch.data());
  for (std::size_t i = 20; i < 80; ++i) {
    const double scalar = policy->rank(tables.jobs(), i, tables.accounts(), {});
    CHECK(std::memcmp(&scalar, &batch[i - 20], sizeof scalar) == 0);
  }
}

}  // namespace allot::ir_test
