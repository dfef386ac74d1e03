// The uncertainty of a median, as a pure function: a distribution-free confidence interval from
// order statistics, so that it holds for the skewed, heavy-tailed samples timings produce.
#pragma once

#include <cstddef>
#include <span>

namespace splitstep {

// The confidence at which splitstep states every median's interval.
inline constexpr double kMedianConfidence = 0.95;

// Ranks (1-based, in sorted order) of the order statistics that bound the interval, and the
// probability that the interval holds the true median (the binomial coverage).
struct MedianRanks {
  std::size_t lower = 0;
  std::size_t upper = 0;
  double coverage = 0;
};

// For n values: the narrowest ranks j and n + 1 - j whose coverage, the probability that
// j <= B <= n - j for B ~ Binomial(n, 1/2), is at least `confidence`. Where n is too small
// for any (n < 6 at 95%), ranks 1 and n with their smaller coverage 1 - 2^(1 - n).
// n = 10 at 95%: ranks 2 and 9, coverage 0.979.
MedianRanks medianRanks(std::size_t n, double confidence);

struct MedianInterval {
  double low = 0;
  double high = 0;
  double coverage = 0;  // below the confidence asked for when there were too few values
};

// The interval of `values`' median at `confidence`: the order statistics at medianRanks().
// Throws std::invalid_argument for an empty span or a confidence outside (0, 1).
MedianInterval medianInterval(std::span<const double> values, double confidence);

// How far the interval reaches from `median`, on its wider side, relative to the median:
// max(median - low, high - median) / |median|; 0 when the median is 0.
double relativeReach(const MedianInterval& interval, double median);

}  // namespace splitstep
