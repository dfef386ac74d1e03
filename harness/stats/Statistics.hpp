// Summary statistics of a sample vector, as pure functions.
#pragma once

#include <cstddef>
#include <span>

namespace splitstep {

struct Summary {
  std::size_t n = 0;
  double min = 0;
  double max = 0;
  double mean = 0;
  double stddev = 0;  // sample standard deviation (n - 1); 0 when n < 2
  double median = 0;
  double p5 = 0;
  double p95 = 0;
  double iqr = 0;  // p75 - p25
  double cv = 0;   // stddev / mean; 0 when mean is 0
};

// Quantile q in [0, 1] with linear interpolation between order statistics (numpy's default,
// "type 7"), so figures match what users compute in pandas. `values` need not be sorted.
double quantile(std::span<const double> values, double q);

// Summary of `values`; all fields are 0 for an empty span.
Summary summarize(std::span<const double> values);

}  // namespace splitstep
