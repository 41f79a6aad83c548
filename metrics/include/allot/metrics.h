// Prometheus metrics for the long-running drivers (the Slurm adapter's
// --metrics, `allot serve`): counters, gauges and histograms, grouped in
// families that share a name, a help text and label names, kept in a
// thread-safe Registry that renders them in the text exposition format 0.0.4
// (what GET /metrics returns; allot_http serves it).
//
// Names are checked when a family is registered: a bad metric or label name, a
// duplicate, or a name that breaks Prometheus's conventions (a counter ends in
// `_total`, nothing else does) is a programmer error and throws
// std::invalid_argument, so it shows on the first run rather than in a scrape.
// Updates are cheap and lock-free for counters and gauges; keep the reference
// a family hands out instead of looking a child up on every update.
#pragma once

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

namespace allot::metrics {

// The Content-Type of exposition(): the text format, version 0.0.4.
inline constexpr std::string_view kExpositionContentType = "text/plain; version=0.0.4; charset=utf-8";

// A value that only goes up (events, seconds spent), reset only by a restart.
class Counter {
 public:
  // Adds `amount`; throws std::invalid_argument when it is negative or NaN
  // (a counter that goes down reads as a restart to Prometheus).
  void inc(double amount = 1);
  double value() const { return value_.load(std::memory_order_relaxed); }

 private:
  std::atomic<double> value_{0};
};

// A value that goes up and down (queue length, the time of the last pass).
class Gauge {
 public:
  void set(double value) { value_.store(value, std::memory_order_relaxed); }
  void add(double amount) { value_.fetch_add(amount, std::memory_order_relaxed); }
  double value() const { return value_.load(std::memory_order_relaxed); }

 private:
  std::atomic<double> value_{0};
};

// Observations counted in fixed buckets (pass durations), with their sum.
class Histogram {
 public:
  // One consistent reading: observations per bucket (not cumulative; one more
  // than the upper bounds, the last for +Inf), their sum and their count.
  struct Reading {
    std::vector<std::uint64_t> bucket_counts;
    double sum = 0;
    std::uint64_t count = 0;
  };

  // `upper_bounds` must outlive the histogram (its family's).
  explicit Histogram(const std::vector<double>& upper_bounds);

  // Counts `value` in the first bucket whose upper bound is >= value (NaN in +Inf).
  void observe(double value);
  Reading read() const;
  const std::vector<double>& upper_bounds() const { return upper_bounds_; }

 private:
  const std::vector<double>& upper_bounds_;
  mutable std::mutex mutex_;
  Reading reading_;  // Invariant: bucket_counts sum to count.
};

namespace detail {

// What every family has, whatever its kind; rendered by the registry.
class FamilyBase {
 public:
  FamilyBase(std::string name, std::string help, std::vector<std::string> label_names);
  virtual ~FamilyBase() = default;
  // Appends the family's HELP and TYPE lines and its samples.
  virtual void render(std::string& out) const = 0;
  const std::string& name() const { return name_; }

 protected:
  // Throws std::invalid_argument unless `values` has one value per label name.
  void check_label_count(const std::vector<std::string>& values) const;

  std::string name_;
  std::string help_;
  std::vector<std::string> label_names_;
};

}  // namespace detail

// Metrics of one kind under one name, one child per combination of label
// values (`allot_slurm_actions_total{kind="requeue"}`). A family without
// labels has a single child, with({}).
template <class Metric>
class Family : public detail::FamilyBase {
 public:
  Family(std::string name, std::string help, std::vector<std::string> label_names,
         std::vector<double> upper_bounds = {});

  // The child with these label values, one per label name in order, made on
  // first use; the reference stays valid as long as the registry. Throws
  // std::invalid_argument on a wrong number of values.
  Metric& with(const std::vector<std::string>& label_values);
  void render(std::string& out) const override;

 private:
  std::vector<double> upper_bounds_;  // histograms only
  mutable std::mutex mutex_;
  std::map<std::vector<std::string>, std::unique_ptr<Metric>> children_;
};

// Defined in the library, for these three kinds only.
extern template class Family<Counter>;
extern template class Family<Gauge>;
extern template class Family<Histogram>;

// Every metric of a process, and their exposition. Thread-safe: register,
// update and render from any thread.
class Registry {
 public:
  // Registers a family; throws std::invalid_argument for a name that is not
  // [a-zA-Z_:][a-zA-Z0-9_:]* or is taken, a label name that is not
  // [a-zA-Z_][a-zA-Z0-9_]* (or starts with `__`, or repeats), an empty help
  // text, a counter not named `*_total` or another kind that is (or ends in
  // `_count`, `_sum`, `_bucket`: a histogram's sample names).
  Family<Counter>& counter_family(const std::string& name, const std::string& help,
                                  std::vector<std::string> label_names);
  Family<Gauge>& gauge_family(const std::string& name, const std::string& help, std::vector<std::string> label_names);
  // `upper_bounds`: finite and strictly increasing; the +Inf bucket is implicit.
  // `le` may not be a label name.
  Family<Histogram>& histogram_family(const std::string& name, const std::string& help,
                                      std::vector<double> upper_bounds, std::vector<std::string> label_names);

  // A family without labels and its one child, registered together.
  Counter& counter(const std::string& name, const std::string& help);
  Gauge& gauge(const std::string& name, const std::string& help);
  Histogram& histogram(const std::string& name, const std::string& help, std::vector<double> upper_bounds);

  // Every family in name order, children in label-value order, in the text
  // format 0.0.4 (served with kExpositionContentType).
  std::string exposition() const;

 private:
  template <class Metric>
  Family<Metric>& add(std::unique_ptr<Family<Metric>> family);

  mutable std::mutex mutex_;
  std::map<std::string, std::unique_ptr<detail::FamilyBase>> families_;
};

}  // namespace allot::metrics
