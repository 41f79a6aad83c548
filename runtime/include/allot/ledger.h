// The usage ledger: how much each account has used, in the policy's unit, over
// the rolling fair-share window. RollingLedger is the in-memory structure (a
// ring of fixed-width time buckets per leaf account, O(1) per charge);
// DurableLedger (durable_ledger.h) persists it in SQLite.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "allot/epoch_seconds.h"

namespace allot::runtime {

// What a job holds while it runs.
struct ResourceUse {
  std::string gpu_type;
  double gpus = 0;
  double cpus = 0;
  double memory_gib = 0;
};

// The policy's unit: what one hour of holding resources costs.
struct UnitWeights {
  enum class Kind {
    gpu_hours,          // GPUs x hours, each GPU weighted by its type
    dominant_resource,  // the largest weighted fraction of the cluster held, in GPU-equivalents
  };
  Kind kind = Kind::gpu_hours;
  // gpu_hours: weight per GPU type; a type not listed weighs 1.0.
  std::map<std::string, double, std::less<>> gpu_type_weights;
  // dominant_resource: weight per resource and the cluster's capacity of each.
  double gpu_weight = 1.0;
  double cpu_weight = 1.0;
  double memory_weight = 1.0;
  double total_gpus = 0;
  double total_cpus = 0;
  double total_memory_gib = 0;

  // Units charged per hour for holding `use`. For dominant_resource this is
  // max(weight_r * use_r / total_r) * total_gpus, so a job that only holds GPUs
  // costs exactly its GPU-hours.
  double rate_per_hour(const ResourceUse& use) const;

  bool operator==(const UnitWeights&) const = default;
};

// How the ledger counts.
struct LedgerConfig {
  UnitWeights unit;
  Seconds window = 7 * 86400;               // the rolling fair-share window
  Seconds bucket_width = 3600;              // the window must be a whole number of buckets
  std::optional<double> half_life_seconds;  // usage decays by half over this time, if set

  bool operator==(const LedgerConfig&) const = default;
};

// What is wrong with a config, if anything (the ledger refuses bad configs).
std::optional<std::string> config_problem(const LedgerConfig& config);

// One interval of a running job. (job_id, until) is the idempotency key: a job
// is charged forward in time, and anything at or before the end of the last
// interval counted for that job is a replay and counts nothing.
struct Charge {
  std::string account;  // leaf account path, e.g. "exploration/ana"
  std::string job_id;
  Seconds from = 0;
  Seconds until = 0;  // exclusive
  ResourceUse resources;
  // Held while the job was stalled (docs/LANGUAGE.md "Progress"): counted as
  // usage like any held time, and also apart as held without progress.
  bool without_progress = false;
};

// Usage per account over a rolling window. Not thread-safe: one writer, or a
// lock around it (the scheduling cycle reads it between charges).
// Usage decay: the weight of usage `elapsed_seconds` old under a half-life
// (Slurm's PriorityDecayHalfLife): 2^(-elapsed / half-life), 1 without one.
// The window still drops everything older than it.
double usage_decay(double elapsed_seconds, std::optional<double> half_life_seconds);

class RollingLedger {
 public:
  // Throws std::invalid_argument when config_problem(config) reports one.
  explicit RollingLedger(LedgerConfig config);

  // Counts the part of `charge` after the job's last charged time; returns the
  // amount added in the unit (0 for a replay).
  double charge(const Charge& charge);

  // The part of `charge` not counted yet (clipped to start at the job's mark),
  // or nullopt when nothing of it is new.
  std::optional<Charge> uncounted_part(const Charge& charge) const;

  // Counts an interval as is, moving the job's mark to its end. For intervals
  // that came from uncounted_part() or from durable storage.
  double add(const Charge& interval);

  // Usage of an account and everything below it ("" is the whole cluster), as
  // of `now`: the buckets inside the window, decayed by the half-life if set.
  double usage(std::string_view account, Seconds now) const;

  // Usage of every charged account and each of its ancestors ("" included).
  std::map<std::string, double> usage_by_account(Seconds now) const;

  // The end of the last interval counted for a job, if any.
  std::optional<Seconds> charged_until(std::string_view job_id) const;

  // The unit, window and half-life this ledger counts with.
  const LedgerConfig& config() const { return config_; }

 private:
  // Usage of one time bucket of one account.
  struct Bucket {
    Seconds index = INT64_MIN;  // bucket number: floor(time / bucket_width)
    double amount = 0;
  };
  // Hashes strings and string_views alike, so lookups need no allocation.
  struct NameHash {
    using is_transparent = void;
    std::size_t operator()(std::string_view name) const { return std::hash<std::string_view>{}(name); }
  };
  using NameMap = std::unordered_map<std::string, std::size_t, NameHash, std::equal_to<>>;

  // Where `charge` starts counting: its start, or the job's mark if later.
  Seconds clipped_start(const Charge& charge) const;
  // Counts [from, until) of `interval`, split over the buckets it spans.
  double add_interval(const Charge& interval, Seconds from);
  // The ring of an account, created on first use.
  std::size_t account_slot(std::string_view account);
  // Adds to one bucket, unless the ring already holds a newer bucket in its slot.
  void add_to_bucket(std::size_t account, Seconds bucket, double amount);
  // usage_decay by bucket age (0 = the bucket holding `now`); all 1 without a half-life.
  std::vector<double> decay_weights(Seconds now) const;
  // One account's usage inside the window at `now`.
  double account_usage(std::size_t account, Seconds now, const std::vector<double>& weights) const;

  LedgerConfig config_;
  Seconds ring_size_ = 0;
  NameMap account_index_;
  std::vector<std::string> account_names_;
  std::vector<std::vector<Bucket>> rings_;  // Invariant: rings_[a].size() == ring_size_
  std::unordered_map<std::string, Seconds, NameHash, std::equal_to<>> job_marks_;
};

}  // namespace allot::runtime
