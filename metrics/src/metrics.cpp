// Counters, gauges, histograms, their families and the registry (metrics.h).
#include "allot/metrics.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include <fmt/format.h>

#include "names.h"
#include "text_format.h"

namespace allot::metrics {
namespace {

template <class Metric>
constexpr Kind kind_of();
template <>
constexpr Kind kind_of<Counter>() {
  return Kind::counter;
}
template <>
constexpr Kind kind_of<Gauge>() {
  return Kind::gauge;
}
template <>
constexpr Kind kind_of<Histogram>() {
  return Kind::histogram;
}

// A histogram child's samples: cumulative buckets ending in +Inf (equal to
// _count, since both come from one reading), then _sum and _count.
void append_histogram(std::string& out, const std::string& name, const std::vector<std::string>& label_names,
                      const std::vector<std::string>& label_values, const Histogram& histogram) {
  const Histogram::Reading reading = histogram.read();
  const std::vector<double>& bounds = histogram.upper_bounds();
  std::uint64_t cumulative = 0;
  for (std::size_t i = 0; i < reading.bucket_counts.size(); ++i) {
    cumulative += reading.bucket_counts[i];
    const ExtraLabel le{"le", i < bounds.size() ? format_value(bounds[i]) : "+Inf"};
    append_sample(out, name + "_bucket", label_names, label_values, &le, static_cast<double>(cumulative));
  }
  append_sample(out, name + "_sum", label_names, label_values, nullptr, reading.sum);
  append_sample(out, name + "_count", label_names, label_values, nullptr, static_cast<double>(reading.count));
}

}  // namespace

void Counter::inc(double amount) {
  if (!(amount >= 0)) throw std::invalid_argument(fmt::format("a counter cannot grow by {}", amount));
  value_.fetch_add(amount, std::memory_order_relaxed);
}

Histogram::Histogram(const std::vector<double>& upper_bounds) : upper_bounds_(upper_bounds) {
  reading_.bucket_counts.assign(upper_bounds.size() + 1, 0);
}

void Histogram::observe(double value) {
  // lower_bound: the first bound >= value, so a value on a bound counts in it (`le`).
  const auto bound =
      std::isnan(value) ? upper_bounds_.end() : std::lower_bound(upper_bounds_.begin(), upper_bounds_.end(), value);
  const auto bucket = static_cast<std::size_t>(bound - upper_bounds_.begin());
  std::lock_guard lock(mutex_);
  ++reading_.bucket_counts[bucket];
  reading_.sum += value;
  ++reading_.count;
}

Histogram::Reading Histogram::read() const {
  std::lock_guard lock(mutex_);
  return reading_;
}

namespace detail {

FamilyBase::FamilyBase(std::string name, std::string help, std::vector<std::string> label_names)
    : name_(std::move(name)), help_(std::move(help)), label_names_(std::move(label_names)) {}

void FamilyBase::check_label_count(const std::vector<std::string>& values) const {
  if (values.size() == label_names_.size()) return;
  throw std::invalid_argument(
      fmt::format("metric `{}` has {} labels, given {} values", name_, label_names_.size(), values.size()));
}

}  // namespace detail

template <class Metric>
Family<Metric>::Family(std::string name, std::string help, std::vector<std::string> label_names,
                       std::vector<double> upper_bounds)
    : FamilyBase(std::move(name), std::move(help), std::move(label_names)), upper_bounds_(std::move(upper_bounds)) {
  check_family(kind_of<Metric>(), name_, help_, label_names_);
  check_upper_bounds(upper_bounds_);
}

template <class Metric>
Metric& Family<Metric>::with(const std::vector<std::string>& label_values) {
  check_label_count(label_values);
  std::lock_guard lock(mutex_);
  std::unique_ptr<Metric>& child = children_[label_values];
  if (!child) {
    if constexpr (std::is_same_v<Metric, Histogram>) {
      child = std::make_unique<Histogram>(upper_bounds_);
    } else {
      child = std::make_unique<Metric>();
    }
  }
  return *child;
}

template <class Metric>
void Family<Metric>::render(std::string& out) const {
  fmt::format_to(std::back_inserter(out), "# HELP {} {}\n# TYPE {} {}\n", name_, escape_help(help_), name_,
                 kind_name(kind_of<Metric>()));
  std::lock_guard lock(mutex_);
  for (const auto& [label_values, child] : children_) {
    if constexpr (std::is_same_v<Metric, Histogram>) {
      append_histogram(out, name_, label_names_, label_values, *child);
    } else {
      append_sample(out, name_, label_names_, label_values, nullptr, child->value());
    }
  }
}

template class Family<Counter>;
template class Family<Gauge>;
template class Family<Histogram>;

template <class Metric>
Family<Metric>& Registry::add(std::unique_ptr<Family<Metric>> family) {
  std::lock_guard lock(mutex_);
  auto [slot, added] = families_.try_emplace(family->name());
  if (!added) throw std::invalid_argument(fmt::format("metric `{}` is registered twice", family->name()));
  Family<Metric>& result = *family;
  slot->second = std::move(family);
  return result;
}

Family<Counter>& Registry::counter_family(const std::string& name, const std::string& help,
                                          std::vector<std::string> label_names) {
  return add(std::make_unique<Family<Counter>>(name, help, std::move(label_names)));
}

Family<Gauge>& Registry::gauge_family(const std::string& name, const std::string& help,
                                      std::vector<std::string> label_names) {
  return add(std::make_unique<Family<Gauge>>(name, help, std::move(label_names)));
}

Family<Histogram>& Registry::histogram_family(const std::string& name, const std::string& help,
                                              std::vector<double> upper_bounds, std::vector<std::string> label_names) {
  return add(std::make_unique<Family<Histogram>>(name, help, std::move(label_names), std::move(upper_bounds)));
}

Counter& Registry::counter(const std::string& name, const std::string& help) {
  return counter_family(name, help, {}).with({});
}

Gauge& Registry::gauge(const std::string& name, const std::string& help) {
  return gauge_family(name, help, {}).with({});
}

Histogram& Registry::histogram(const std::string& name, const std::string& help, std::vector<double> upper_bounds) {
  return histogram_family(name, help, std::move(upper_bounds), {}).with({});
}

std::string Registry::exposition() const {
  std::string out;
  std::lock_guard lock(mutex_);
  for (const auto& [name, family] : families_) family->render(out);
  return out;
}

}  // namespace allot::metrics
