#include "stats/Statistics.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>
#include <vector>

namespace splitstep {
namespace {

double sortedQuantile(const std::vector<double>& sorted, double q) {
  const double position = q * static_cast<double>(sorted.size() - 1);
  const auto below = static_cast<std::size_t>(std::floor(position));
  const std::size_t above = std::min(below + 1, sorted.size() - 1);
  const double fraction = position - static_cast<double>(below);
  return sorted[below] + (sorted[above] - sorted[below]) * fraction;
}

}  // namespace

double quantile(std::span<const double> values, double q) {
  if (values.empty()) throw std::invalid_argument("quantile of an empty sample");
  if (q < 0.0 || q > 1.0) throw std::invalid_argument("quantile outside [0, 1]");
  std::vector<double> sorted(values.begin(), values.end());
  std::sort(sorted.begin(), sorted.end());
  return sortedQuantile(sorted, q);
}

Summary summarize(std::span<const double> values) {
  Summary s;
  if (values.empty()) return s;
  std::vector<double> sorted(values.begin(), values.end());
  std::sort(sorted.begin(), sorted.end());
  s.n = sorted.size();
  s.min = sorted.front();
  s.max = sorted.back();
  s.mean = std::accumulate(sorted.begin(), sorted.end(), 0.0) / static_cast<double>(s.n);
  if (s.n > 1) {
    double squares = 0;
    for (double v : sorted) squares += (v - s.mean) * (v - s.mean);
    s.stddev = std::sqrt(squares / static_cast<double>(s.n - 1));
  }
  s.median = sortedQuantile(sorted, 0.5);
  s.p5 = sortedQuantile(sorted, 0.05);
  s.p95 = sortedQuantile(sorted, 0.95);
  s.iqr = sortedQuantile(sorted, 0.75) - sortedQuantile(sorted, 0.25);
  s.cv = s.mean != 0 ? s.stddev / s.mean : 0;
  return s;
}

}  // namespace splitstep
