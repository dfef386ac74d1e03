#include "stats/MedianInterval.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <stdexcept>
#include <vector>

namespace splitstep {

MedianRanks medianRanks(std::size_t n, double confidence) {
  if (!(confidence > 0 && confidence < 1)) {
    throw std::invalid_argument("median interval: confidence outside (0, 1)");
  }
  if (n == 0) return {};
  // The interval [x(j), x(n + 1 - j)] misses the median when at most j - 1 values fall below it
  // or at most j - 1 above: coverage = 1 - 2 P(B <= j - 1). Walk j up while the tail P(B <= j - 1)
  // stays within (1 - confidence) / 2, adding the binomial terms in log space (2^-n underflows).
  const double allowed_tail = (1 - confidence) / 2;
  const auto count = static_cast<double>(n);
  double log_term = -count * std::numbers::ln2;  // log P(B = 0)
  double tail = 0;                               // P(B <= j - 1)
  std::size_t j = 0;
  while (j + 1 <= n / 2) {
    const double next_tail = tail + std::exp(log_term);  // P(B <= j)
    if (next_tail > allowed_tail) break;
    tail = next_tail;
    const auto i = static_cast<double>(j);
    log_term += std::log(count - i) - std::log(i + 1);  // P(B = j + 1) from P(B = j)
    ++j;
  }
  if (j == 0) {
    // Too few values for the confidence asked: the widest interval there is.
    return {1, n, 1 - 2 * std::exp(-count * std::numbers::ln2)};
  }
  // The last tail that fit belongs to ranks j and n + 1 - j.
  return {j, n + 1 - j, 1 - 2 * tail};
}

MedianInterval medianInterval(std::span<const double> values, double confidence) {
  if (values.empty()) throw std::invalid_argument("median interval of an empty sample");
  const MedianRanks ranks = medianRanks(values.size(), confidence);
  std::vector<double> sorted(values.begin(), values.end());
  const auto lower = sorted.begin() + static_cast<std::ptrdiff_t>(ranks.lower - 1);
  std::nth_element(sorted.begin(), lower, sorted.end());
  const double low = *lower;
  const auto upper = sorted.begin() + static_cast<std::ptrdiff_t>(ranks.upper - 1);
  // Everything past `lower` is at least as large, so the upper rank is found among those.
  std::nth_element(lower, upper, sorted.end());
  return {low, *upper, ranks.coverage};
}

double relativeReach(const MedianInterval& interval, double median) {
  if (median == 0) return 0;
  return std::max(median - interval.low, interval.high - median) / std::abs(median);
}

}  // namespace splitstep
