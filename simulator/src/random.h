// Seeded randomness for workload generators. std::mt19937_64 is specified
// bit for bit by the standard, but the std:: distributions are not, so the
// draws are computed here: the same seed gives the same workload everywhere.
#pragma once

#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

namespace allot::simulator {

class Random {
 public:
  explicit Random(std::uint64_t seed) : engine_(seed) {}

  // Uniform in [0, 1), 53 bits.
  double uniform() { return static_cast<double>(engine_() >> 11) * 0x1.0p-53; }
  // Uniform in [low, high).
  double uniform(double low, double high) { return low + (high - low) * uniform(); }
  // Exponential with the given mean (Poisson inter-arrival times).
  double exponential(double mean) { return -mean * std::log1p(-uniform()); }
  // Log-uniform in [low, high): as many jobs of 1-2 hours as of 4-8 hours.
  double log_uniform(double low, double high) { return low * std::exp(std::log(high / low) * uniform()); }
  // An index drawn with the given (non-negative) weights.
  std::size_t pick(const std::vector<double>& weights) {
    double total = 0;
    for (double weight : weights) total += weight;
    double point = uniform() * total;
    for (std::size_t i = 0; i < weights.size(); ++i) {
      if (point < weights[i]) return i;
      point -= weights[i];
    }
    return weights.empty() ? 0 : weights.size() - 1;
  }

 private:
  std::mt19937_64 engine_;
};

}  // namespace allot::simulator
