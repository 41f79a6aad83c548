// Job, account and cluster tables full of values a policy must survive:
// zeros of both signs, negatives, huge and tiny numbers, infinities and NaN
// next to ordinary ones, so div-by-0, log(0) and overflow paths all run.
#pragma once

#include <cstdint>
#include <random>
#include <vector>

#include "allot/abi.h"

namespace allot::testing {

// Owns the columns; jobs() / accounts() are abi views into them.
class StateTables {
 public:
  StateTables(std::size_t jobs, std::size_t accounts);
  StateTables(const StateTables&) = delete;
  StateTables& operator=(const StateTables&) = delete;

  const abi::JobTable& jobs() const { return jobs_; }
  const abi::AccountTable& accounts() const { return accounts_; }
  double& job(abi::JobField field, std::size_t row) { return job_columns_[field][row]; }
  double& account(abi::AccountField field, std::size_t row) { return account_columns_[field][row]; }
  std::int32_t& account_of(std::size_t job) { return account_rows_[job]; }
  std::size_t job_count() const { return account_rows_.size(); }
  std::size_t account_count() const { return account_columns_[0].size(); }

 private:
  std::vector<std::vector<double>> job_columns_;
  std::vector<std::int32_t> account_rows_;
  std::vector<std::vector<double>> account_columns_;
  abi::JobTable jobs_{};
  abi::AccountTable accounts_{};
};

// One value from a mix meant to hit every edge: mostly ordinary, sometimes extreme.
double awkward_value(std::mt19937_64& random);

// Fills every column: class ids mostly in [0, classes] (one past the end
// included), labels mostly 0-3, booleans exactly 0 or 1 (the ABI's promise),
// the rest awkward values.
void fill_random(StateTables& tables, std::size_t classes, std::mt19937_64& random);

// A cluster view of awkward values.
abi::ClusterView random_cluster(std::mt19937_64& random);

}  // namespace allot::testing
