#include "random_states.h"

#include <limits>

namespace allot::testing {
namespace {

double pick(std::mt19937_64& random, std::initializer_list<double> values) {
  std::uniform_int_distribution<std::size_t> index(0, values.size() - 1);
  return values.begin()[index(random)];
}

double extreme_value(std::mt19937_64& random) {
  constexpr double inf = std::numeric_limits<double>::infinity();
  return pick(random, {-0.0, 1e300, -1e300, std::numeric_limits<double>::max(), std::numeric_limits<double>::lowest(),
                       std::numeric_limits<double>::denorm_min(), 1e-310, inf, -inf,
                       std::numeric_limits<double>::quiet_NaN(), 709.8, -745.2, 1e-16});
}

// Mostly a member of the enum (or one past it), sometimes anything at all.
double enum_value(std::mt19937_64& random, int members) {
  std::uniform_int_distribution<int> roll(0, 99);
  if (roll(random) < 95) return std::uniform_int_distribution<int>(0, members)(random);
  return awkward_value(random);
}

}  // namespace

StateTables::StateTables(std::size_t jobs, std::size_t accounts)
    : job_columns_(abi::kJobFieldCount, std::vector<double>(jobs, 0.0)),
      account_rows_(jobs, 0),
      account_columns_(abi::kAccountFieldCount, std::vector<double>(accounts, 0.0)) {
  jobs_.count = jobs;
  for (std::size_t f = 0; f < abi::kJobFieldCount; ++f) jobs_.columns[f] = job_columns_[f].data();
  jobs_.account = account_rows_.data();
  accounts_.count = accounts;
  for (std::size_t f = 0; f < abi::kAccountFieldCount; ++f) accounts_.columns[f] = account_columns_[f].data();
}

double awkward_value(std::mt19937_64& random) {
  const int roll = std::uniform_int_distribution<int>(0, 99)(random);
  if (roll < 15) return 0.0;
  if (roll < 30) return std::uniform_int_distribution<int>(0, 10)(random);
  if (roll < 40) return -std::uniform_real_distribution<double>(0, 100)(random);
  if (roll < 50) return std::uniform_real_distribution<double>(0, 1)(random);
  if (roll < 88) return std::uniform_real_distribution<double>(0, 1e6)(random);
  return extreme_value(random);
}

void fill_random(StateTables& tables, std::size_t classes, std::mt19937_64& random) {
  for (std::size_t row = 0; row < tables.job_count(); ++row) {
    for (std::uint32_t f = 0; f < abi::kJobFieldCount; ++f) {
      const auto field = static_cast<abi::JobField>(f);
      if (field == abi::job_class) {
        tables.job(field, row) = enum_value(random, static_cast<int>(classes));
      } else if (field == abi::job_label) {
        tables.job(field, row) = enum_value(random, 3);
      } else if (field == abi::job_has_deadline || field == abi::job_resumable || field == abi::job_stalled) {
        tables.job(field, row) = std::uniform_int_distribution<int>(0, 1)(random);  // abi.h: exactly 0 or 1
      } else {
        tables.job(field, row) = awkward_value(random);
      }
    }
    const auto last = static_cast<std::int32_t>(tables.account_count() - 1);
    tables.account_of(row) = std::uniform_int_distribution<std::int32_t>(0, last)(random);
  }
  for (std::size_t row = 0; row < tables.account_count(); ++row) {
    for (std::uint32_t f = 0; f < abi::kAccountFieldCount; ++f) {
      tables.account(static_cast<abi::AccountField>(f), row) = awkward_value(random);
    }
  }
}

abi::ClusterView random_cluster(std::mt19937_64& random) {
  abi::ClusterView cluster{};
  for (double& value : cluster.values) value = awkward_value(random);
  return cluster;
}

}  // namespace allot::testing
