// What the account table (AccountColumns) computes from inputs that change far
// less often than cycles run, kept beside those inputs and reused while they are
// equal: the policy's tree with the shares in force (it changes when an exception
// starts or ends), and the fair-share values over it (when the ledger is read:
// every charge, ten minutes apart in a replay). The inputs are compared by value
// at each use, never trusted to a counter a driver must remember to bump, so a
// memo cannot hand out a stale answer; CycleCache (allot/cycle.h) owns one.
#pragma once

#include <array>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "allot/account_columns.h"

namespace allot::runtime {

class AccountMemo {
 public:
  // Forgets everything unless `tables` are the ones (same object, same policy
  // source) the memo was filled from; true when it forgot.
  bool serve(const PolicyTables& tables, const std::string& policy_hash);

  // The fields fill_usage writes, as it wrote them.
  struct Usage {
    std::array<std::vector<double>, 6> columns;  // usage, effective, norm share, ratio, level_fs, fair_tree
    std::vector<FairShareFields> fields;
  };

  const PolicyTables* tables = nullptr;
  std::string policy_hash;
  // The tree, for these level shares.
  std::vector<double> level_shares;
  std::optional<PolicyTree> tree;
  // The fair-share values, for that tree and this usage.
  std::map<std::string, double> usage;
  std::optional<Usage> usage_values;
  // The debt column, for this debt.
  std::map<std::string, double> debt;
  std::optional<std::vector<double>> debt_column;
};

}  // namespace allot::runtime
