// Made-up timings for the stopping rule's tests: the same numbers on every platform (the
// standard library's distributions are not specified bit for bit, so they are not used).
#pragma once

#include <cmath>
#include <cstdint>
#include <numbers>
#include <vector>

namespace splitstep::testing {

// Normally distributed numbers from a fixed seed (xorshift64* and Box-Muller).
class NormalNumbers {
 public:
  explicit NormalNumbers(std::uint64_t seed) : state_(seed | 1) {}

  double next() {
    const double u1 = uniform();
    const double u2 = uniform();
    return std::sqrt(-2 * std::log(u1)) * std::cos(2 * std::numbers::pi * u2);
  }

 private:
  // In (0, 1]: the logarithm above never sees 0.
  double uniform() {
    state_ ^= state_ >> 12;
    state_ ^= state_ << 25;
    state_ ^= state_ >> 27;
    const std::uint64_t bits = (state_ * 0x2545F4914F6CDD1Dull) >> 11;
    return (static_cast<double>(bits) + 1) / 9007199254740992.0;  // 2^53
  }

  std::uint64_t state_;
};

// A stationary series: `seconds` with a relative spread of `noise`, as a GEMM under a power cap
// or a small collective shows.
inline std::vector<double> stableSeries(std::size_t n, double seconds, double noise,
                                        std::uint64_t seed) {
  NormalNumbers normal(seed);
  std::vector<double> values;
  for (std::size_t i = 0; i < n; ++i) values.push_back(seconds * (1 + noise * normal.next()));
  return values;
}

// The same, slowing down by `drift_per_sample` of `seconds` with every sample: a device warming
// up, a clock ramping down.
inline std::vector<double> driftingSeries(std::size_t n, double seconds, double noise,
                                          double drift_per_sample, std::uint64_t seed) {
  std::vector<double> values = stableSeries(n, seconds, noise, seed);
  for (std::size_t i = 0; i < n; ++i) {
    values[i] += seconds * drift_per_sample * static_cast<double>(i);
  }
  return values;
}

// A series that wanders without a trend, as the latency of a small collective does: every
// `period` samples it moves to a new level, normally distributed around `seconds` with a
// relative spread of `shift`, and each sample spreads by `noise` around its level.
inline std::vector<double> wanderingSeries(std::size_t n, double seconds, double noise,
                                           double shift, std::size_t period, std::uint64_t seed) {
  std::vector<double> values = stableSeries(n, seconds, noise, seed);
  NormalNumbers levels(seed + 1);
  double level = 0;
  for (std::size_t i = 0; i < n; ++i) {
    if (i % period == 0) level = shift * levels.next();
    values[i] += seconds * level;
  }
  return values;
}

// `values` with its first `count` samples `factor` times as long: a start-up transient.
inline std::vector<double> withTransient(std::vector<double> values, std::size_t count,
                                         double factor) {
  for (std::size_t i = 0; i < count && i < values.size(); ++i) values[i] *= factor;
  return values;
}

}  // namespace splitstep::testing
