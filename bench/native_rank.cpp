// Compiled with -march=native (bench/CMakeLists.txt) so the floor gets the same
// vector units the JIT targets; -ffp-contract=off keeps it bit-identical to the
// policy's semantics, which the benchmark checks.
#include "native_rank.h"

#include <cstdint>

namespace allot::bench {
namespace {

// The language's min and max (ir.h): `a < b ? a : b`, `a > b ? a : b`, a NaN operand taken as 0.
inline double number(double a) { return a != a ? 0 : a; }
inline double min_of(double a, double b) { return number(a) < number(b) ? number(a) : number(b); }
inline double max_of(double a, double b) { return number(a) > number(b) ? number(a) : number(b); }

constexpr double kHour = 3600;

}  // namespace

void native_rank_batch(const abi::JobTable& jobs, const abi::AccountTable& accounts, std::size_t begin, std::size_t end,
                       const double* class_boost, double* __restrict out) {
  const double* __restrict fair_tree = accounts.columns[abi::account_fair_tree];
  const double* __restrict debt = accounts.columns[abi::account_debt];
  const std::int32_t* __restrict account = jobs.account;
  const double* __restrict job_class = jobs.columns[abi::job_class];
  const double* __restrict has_deadline = jobs.columns[abi::job_has_deadline];
  const double* __restrict slack = jobs.columns[abi::job_deadline_slack];
  const double* __restrict restarts = jobs.columns[abi::job_restarts];
  const double* __restrict nodes = jobs.columns[abi::job_nodes];
  const double* __restrict wait = jobs.columns[abi::job_wait];
  const double* __restrict gpus = jobs.columns[abi::job_gpus];
  for (std::size_t i = begin; i < end; ++i) {
    const std::int32_t a = account[i];
    const double fair = 1000 * fair_tree[a];
    const double owed = min_of(max_of(debt[a], 0), 200);
    const double boost = class_boost[static_cast<std::int32_t>(job_class[i])];
    const double urgency = 300 * (has_deadline[i] != 0 ? min_of(max_of(1 - slack[i] / (12 * kHour), 0), 1) : 0);
    const double restart = 20 * min_of(restarts[i], 5);
    const double aging = nodes[i] > 1 ? 3 * (min_of(wait[i], 72 * kHour) / kHour) : min_of(wait[i], 24 * kHour) / kHour;
    const double small = 1 / max_of(gpus[i], 1);
    const double rank = fair + owed + boost + urgency + restart + aging + small;
    out[i - begin] = rank != rank ? 0 : rank;
  }
}

}  // namespace allot::bench
