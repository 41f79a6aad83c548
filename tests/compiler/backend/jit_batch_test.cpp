// The batch entry point ranks exactly like the scalar one (same bits, any
// range, vector body and remainder alike), fields come from the right table
// and account row, and preempt reads victim and requester separately.
#include <cmath>
#include <random>

#include "jit_fixture.h"

namespace allot::jit_test {
namespace {

using ir::Op;

constexpr std::size_t kAccounts = 37;

// A rank shaped like real policies: fair-share factors read through the
// account row, cluster values, a class match (select chain), clamps, libm calls.
ir::Function realistic_rank() {
  Sketch s;
  const ir::NodeId fair = s.compute(Op::mul, s.constant(1000), s.account(abi::account_fair_tree));
  const ir::NodeId debt =
      s.compute(Op::min, s.compute(Op::max, s.account(abi::account_debt), s.constant(0)), s.constant(200));
  const ir::NodeId cls = s.job(abi::job_class);
  ir::NodeId boost = s.constant(-50);
  for (int c = 3; c >= 0; --c) {
    const ir::NodeId is_class = s.compute(Op::eq, cls, s.constant(c));
    boost = s.compute(Op::select, is_class, s.constant(100.0 * c), boost);
  }
  const ir::NodeId wait_hours = s.compute(Op::div, s.job(abi::job_wait), s.constant(3600));
  const ir::NodeId aging = s.compute(Op::log, s.compute(Op::add, wait_hours, s.constant(1)));
  const ir::NodeId classic = s.compute(Op::pow, s.constant(2),
                                       s.compute(Op::neg, s.compute(Op::div, s.account(abi::account_effective_usage),
                                                                    s.account(abi::account_norm_share))));
  const ir::NodeId load =
      s.compute(Op::sqrt, s.compute(Op::sub, s.cluster(abi::cluster_utilization), s.constant(0.25)));
  const ir::NodeId small = s.compute(Op::div, s.constant(1), s.job(abi::job_gpus));
  const ir::NodeId decay = s.compute(Op::exp, s.compute(Op::neg, s.job(abi::job_restarts)));
  ir::NodeId total = fair;
  for (ir::NodeId term : {debt, boost, aging, classic, load, small, decay}) total = s.compute(Op::add, total, term);
  return s.finish(total);
}

// The same rank in C++, with the formulas of ir.h.
double realistic_rank_by_hand(const Tables& t, std::size_t i) {
  const auto job = [&](abi::JobField f) { return t.job_columns[f][i]; };
  const auto account = [&](abi::AccountField f) { return t.account_columns[f][t.account_rows[i]]; };
  const auto div = [](double a, double b) { return b == 0 ? 0 : a / b; };
  const double debt = std::min(std::max(account(abi::account_debt), 0.0), 200.0);
  const double cls = job(abi::job_class);
  const double boost = cls == 0 ? 0 : cls == 1 ? 100 : cls == 2 ? 200 : cls == 3 ? 300 : -50;
  const double wait_hours = div(job(abi::job_wait), 3600) + 1;
  const double aging = wait_hours > 0 ? std::log(wait_hours) : 0;
  const double pow = std::pow(2, -div(account(abi::account_effective_usage), account(abi::account_norm_share)));
  const double utilisation = t.cluster.values[abi::cluster_utilization] - 0.25;
  const double load = utilisation >= 0 ? std::sqrt(utilisation) : 0;
  double total = 1000 * account(abi::account_fair_tree);
  for (double term : {debt, boost, aging, std::isnan(pow) ? 0 : pow, load, div(1, job(abi::job_gpus)),
                      std::exp(-job(abi::job_restarts))})
    total = total + term;
  return std::isnan(total) ? 0 : total;
}

// `jobs` random rows over kAccounts accounts; one value in 50 is an edge value.
Tables random_tables(std::size_t jobs, std::uint32_t seed) {
  std::mt19937_64 random(seed);
  std::uniform_real_distribution<double> uniform(-2, 5);
  const double edges[] = {0.0, -0.0, std::nan(""), HUGE_VAL, -1.0};
  const auto value = [&] { return random() % 50 == 0 ? edges[random() % 5] : uniform(random) * 1000; };
  Tables t(jobs, kAccounts);
  for (auto& column : t.job_columns)
    for (double& v : column) v = value();
  for (auto& column : t.account_columns)
    for (double& v : column) v = value();
  for (double& v : t.job_columns[abi::job_class]) v = static_cast<double>(random() % 5);
  for (auto& row : t.account_rows) row = static_cast<std::int32_t>(random() % kAccounts);
  t.cluster.values[abi::cluster_utilization] = 0.8;
  return t;
}

}  // namespace

TEST_CASE("rank_batch gives the bits of rank, for any range", "[jit]") {
  const Tables tables = random_tables(1037, 42);
  const abi::JobTable jobs = tables.jobs();
  const abi::AccountTable accounts = tables.accounts();
  for (int level : {0, 2, 3}) {
    INFO("-O" << level);
    const auto policy = compile(policy_with(realistic_rank()), level);
    for (auto [begin, end] : {std::pair<std::size_t, std::size_t>{0, 1037}, {5, 6}, {3, 3}, {7, 100}, {1000, 1037}}) {
      INFO("jobs [" << begin << ", " << end << ")");
      std::vector<double> out(end - begin + 1, 12345.0);
      policy->rank_batch(jobs, accounts, tables.cluster, begin, end, out.data());
      for (std::size_t i = begin; i < end; ++i) {
        INFO("job " << i);
        REQUIRE(bits(out[i - begin]) == bits(policy->rank(jobs, i, accounts, tables.cluster)));
        REQUIRE(bits(out[i - begin]) == bits(realistic_rank_by_hand(tables, i)));
      }
      CHECK(out.back() == 12345.0);  // nothing written past `end`
    }
  }
}

TEST_CASE("a rank reads only the columns it uses: the others may be null", "[jit]") {
  Sketch s;
  s.compute(Op::add, s.job(abi::job_gpus), s.account(abi::account_debt));
  const auto policy = compile(policy_with(s.finish()));
  Tables tables(4, 2);
  tables.job_columns[abi::job_gpus] = {1, 2, 3, 4};
  tables.account_columns[abi::account_debt] = {10, 20};
  tables.account_rows = {0, 1, 1, 0};
  abi::JobTable jobs{};
  jobs.count = 4;
  jobs.columns[abi::job_gpus] = tables.job_columns[abi::job_gpus].data();
  jobs.account = tables.account_rows.data();
  abi::AccountTable accounts{};
  accounts.count = 2;
  accounts.columns[abi::account_debt] = tables.account_columns[abi::account_debt].data();
  std::vector<double> out(4);
  policy->rank_batch(jobs, accounts, tables.cluster, 0, 4, out.data());
  CHECK(out == std::vector<double>{11, 22, 23, 14});
}

TEST_CASE("preempt reads the victim and the requester from their own tables", "[jit]") {
  // preempt when victim.restarts < 3 and (victim.account != requester.account)
  //              and victim.account.usage_ratio > requester.account.usage_ratio + cluster.free_gpus
  Sketch s;
  const ir::NodeId few_restarts = s.compute(Op::lt, s.job(abi::job_restarts), s.constant(3));
  const ir::NodeId other_account =
      s.compute(Op::ne, s.load(Op::account_row, 0), s.load(Op::account_row, 0, ir::Subject::requester));
  const ir::NodeId over = s.compute(Op::gt, s.account(abi::account_usage_ratio),
                                    s.compute(Op::add, s.account(abi::account_usage_ratio, ir::Subject::requester),
                                              s.cluster(abi::cluster_free_gpus)));
  s.compute(Op::logical_and, few_restarts, s.compute(Op::logical_and, other_account, over));
  Sketch rank;
  rank.constant(1);
  const auto policy = compile(policy_with(rank.finish(), s.finish()));
  REQUIRE(policy->has_preempt());

  Tables victims = random_tables(40, 7);
  Tables requesters = random_tables(30, 8);
  for (double& r : victims.job_columns[abi::job_restarts]) r = std::fmod(std::fabs(r), 6);
  requesters.account_columns = victims.account_columns;  // one account table, as at run time
  victims.cluster.values[abi::cluster_free_gpus] = 0.5;
  const abi::JobTable victim_table = victims.jobs(), requester_table = requesters.jobs();
  const abi::AccountTable accounts = victims.accounts();
  int yes = 0;
  for (std::size_t v = 0; v < 40; ++v) {
    for (std::size_t r = 0; r < 30; ++r) {
      const auto ratio = [&](const Tables& t, std::size_t i) {
        return victims.account_columns[abi::account_usage_ratio][t.account_rows[i]];
      };
      const bool expected = victims.job_columns[abi::job_restarts][v] < 3 &&
                            victims.account_rows[v] != requesters.account_rows[r] &&
                            ratio(victims, v) > ratio(requesters, r) + 0.5;
      yes += expected;
      REQUIRE(policy->preempt(victim_table, v, requester_table, r, accounts, victims.cluster) == expected);
    }
  }
  CHECK(yes > 0);
  CHECK(yes < 40 * 30);
}

TEST_CASE("a policy without preempt never preempts", "[jit]") {
  Sketch rank;
  rank.constant(1);
  const auto policy = compile(policy_with(rank.finish()));
  const Tables tables(1, 1);
  const abi::JobTable jobs = tables.jobs();
  CHECK_FALSE(policy->has_preempt());
  CHECK_FALSE(policy->preempt(jobs, 0, jobs, 0, tables.accounts(), tables.cluster));
}

}  // namespace allot::jit_test
