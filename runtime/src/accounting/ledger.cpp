#include "allot/ledger.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include <fmt/format.h>

namespace allot::runtime {
namespace {

constexpr double kSecondsPerHour = 3600.0;

Seconds floor_div(Seconds value, Seconds divisor) {
  const Seconds quotient = value / divisor;
  return (value % divisor != 0 && value < 0) ? quotient - 1 : quotient;
}

Seconds floor_mod(Seconds value, Seconds divisor) { return value - floor_div(value, divisor) * divisor; }

double fraction_of(double amount, double total) { return total > 0 ? amount / total : 0.0; }

// True when `account` is `ancestor` or lies below it ("" is above everything).
bool is_within(std::string_view account, std::string_view ancestor) {
  if (ancestor.empty() || account == ancestor) return true;
  return account.size() > ancestor.size() && account.starts_with(ancestor) && account[ancestor.size()] == '/';
}

}  // namespace

double UnitWeights::rate_per_hour(const ResourceUse& use) const {
  if (kind == Kind::gpu_hours) {
    const auto weight = gpu_type_weights.find(use.gpu_type);
    return use.gpus * (weight == gpu_type_weights.end() ? 1.0 : weight->second);
  }
  const double dominant =
      std::max({gpu_weight * fraction_of(use.gpus, total_gpus), cpu_weight * fraction_of(use.cpus, total_cpus),
                memory_weight * fraction_of(use.memory_gib, total_memory_gib)});
  return dominant * total_gpus;
}

std::optional<std::string> config_problem(const LedgerConfig& config) {
  if (config.window <= 0) return "the window must be longer than 0 seconds";
  if (config.bucket_width <= 0) return "the bucket width must be longer than 0 seconds";
  if (config.window % config.bucket_width != 0) {
    return fmt::format("the window ({}s) must be a whole number of buckets ({}s)", config.window, config.bucket_width);
  }
  if (config.half_life_seconds && !(*config.half_life_seconds > 0)) return "the half-life must be longer than 0";
  if (config.unit.kind == UnitWeights::Kind::dominant_resource && !(config.unit.total_gpus > 0)) {
    return "a dominant-resource unit needs the cluster's GPU, CPU and memory totals";
  }
  return std::nullopt;
}

RollingLedger::RollingLedger(LedgerConfig config) : config_(std::move(config)) {
  if (auto problem = config_problem(config_)) throw std::invalid_argument(*problem);
  ring_size_ = config_.window / config_.bucket_width;
}

Seconds RollingLedger::clipped_start(const Charge& charge) const {
  const auto mark = job_marks_.find(std::string_view(charge.job_id));
  return mark == job_marks_.end() ? charge.from : std::max(charge.from, mark->second);
}

double RollingLedger::charge(const Charge& charge) {
  const Seconds start = clipped_start(charge);
  return charge.until > start ? add_interval(charge, start) : 0.0;
}

std::optional<Charge> RollingLedger::uncounted_part(const Charge& charge) const {
  const Seconds start = clipped_start(charge);
  if (charge.until <= start) return std::nullopt;
  Charge part = charge;
  part.from = start;
  return part;
}

double RollingLedger::add(const Charge& interval) {
  return interval.until > interval.from ? add_interval(interval, interval.from) : 0.0;
}

double RollingLedger::add_interval(const Charge& interval, Seconds from) {
  const double rate = config_.unit.rate_per_hour(interval.resources);
  const std::size_t account = account_slot(interval.account);
  const Seconds width = config_.bucket_width;
  const Seconds last = floor_div(interval.until - 1, width);
  // Buckets more than a ring behind the last one are outside every window that includes it.
  for (Seconds bucket = std::max(floor_div(from, width), last - ring_size_ + 1); bucket <= last; ++bucket) {
    const Seconds overlap = std::min(interval.until, (bucket + 1) * width) - std::max(from, bucket * width);
    add_to_bucket(account, bucket, rate * static_cast<double>(overlap) / kSecondsPerHour);
  }
  const auto mark = job_marks_.find(std::string_view(interval.job_id));
  if (mark == job_marks_.end()) {
    job_marks_.emplace(interval.job_id, interval.until);
  } else {
    mark->second = std::max(mark->second, interval.until);
  }
  return rate * static_cast<double>(interval.until - from) / kSecondsPerHour;
}

std::size_t RollingLedger::account_slot(std::string_view account) {
  const auto found = account_index_.find(account);
  if (found != account_index_.end()) return found->second;
  account_index_.emplace(std::string(account), account_names_.size());
  account_names_.emplace_back(account);
  rings_.emplace_back(static_cast<std::size_t>(ring_size_));
  return account_names_.size() - 1;
}

void RollingLedger::add_to_bucket(std::size_t account, Seconds bucket, double amount) {
  Bucket& slot = rings_[account][static_cast<std::size_t>(floor_mod(bucket, ring_size_))];
  if (slot.index == bucket) {
    slot.amount += amount;
  } else if (slot.index < bucket) {
    slot = Bucket{bucket, amount};
  }  // else: older than the ring's bucket in this slot, so outside the window; dropped.
}

double usage_decay(double elapsed_seconds, std::optional<double> half_life_seconds) {
  if (!half_life_seconds) return 1.0;
  return std::exp2(-std::max(0.0, elapsed_seconds) / *half_life_seconds);
}

// weights[age] for the bucket `age` buckets before the one holding `now`:
// usage_decay at the bucket's middle.
std::vector<double> RollingLedger::decay_weights(Seconds now) const {
  std::vector<double> weights(static_cast<std::size_t>(ring_size_), 1.0);
  if (!config_.half_life_seconds) return weights;
  const Seconds width = config_.bucket_width;
  const Seconds now_bucket = floor_div(now, width);
  for (Seconds age = 0; age < ring_size_; ++age) {
    const double middle = static_cast<double>((now_bucket - age) * width) + static_cast<double>(width) / 2;
    weights[static_cast<std::size_t>(age)] = usage_decay(static_cast<double>(now) - middle, config_.half_life_seconds);
  }
  return weights;
}

double RollingLedger::account_usage(std::size_t account, Seconds now, const std::vector<double>& weights) const {
  const Seconds now_bucket = floor_div(now, config_.bucket_width);
  double total = 0;
  for (const Bucket& bucket : rings_[account]) {
    if (bucket.index == INT64_MIN) continue;  // never used
    const Seconds age = now_bucket - bucket.index;
    if (age >= 0 && age < ring_size_) total += bucket.amount * weights[static_cast<std::size_t>(age)];
  }
  return total;
}

double RollingLedger::usage(std::string_view account, Seconds now) const {
  const std::vector<double> weights = decay_weights(now);
  double total = 0;
  for (std::size_t i = 0; i < account_names_.size(); ++i) {
    if (is_within(account_names_[i], account)) total += account_usage(i, now, weights);
  }
  return total;
}

std::map<std::string, double> RollingLedger::usage_by_account(Seconds now) const {
  const std::vector<double> weights = decay_weights(now);
  std::map<std::string, double> usage{{"", 0.0}};
  for (std::size_t i = 0; i < account_names_.size(); ++i) {
    const double amount = account_usage(i, now, weights);
    const std::string& name = account_names_[i];
    usage[""] += amount;
    for (std::size_t slash = name.find('/'); slash != std::string::npos; slash = name.find('/', slash + 1)) {
      usage[name.substr(0, slash)] += amount;
    }
    if (!name.empty()) usage[name] += amount;
  }
  return usage;
}

std::optional<Seconds> RollingLedger::charged_until(std::string_view job_id) const {
  const auto mark = job_marks_.find(job_id);
  if (mark == job_marks_.end()) return std::nullopt;
  return mark->second;
}

}  // namespace allot::runtime
