#include "stats/MedianInterval.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>
#include <vector>

#include "SyntheticTimings.hpp"

namespace splitstep {
namespace {

// Coverage of ranks j and n + 1 - j, summed term by term: 1 - 2 P(B <= j - 1), B ~ Bin(n, 1/2).
double coverageByHand(std::size_t n, std::size_t j) {
  double tail = 0;
  double term = std::pow(0.5, static_cast<double>(n));  // P(B = 0)
  for (std::size_t i = 0; i < j; ++i) {
    tail += term;
    term *= static_cast<double>(n - i) / static_cast<double>(i + 1);
  }
  return 1 - 2 * tail;
}

TEST(MedianInterval, RanksMatchTheBinomialTables) {
  // The order statistics of the 95% interval in the tables of distribution-free statistics.
  struct Row {
    std::size_t n, lower, upper;
  };
  for (const Row row :
       {Row{6, 1, 6}, Row{10, 2, 9}, Row{20, 6, 15}, Row{100, 40, 61}, Row{1000, 469, 532}}) {
    const MedianRanks ranks = medianRanks(row.n, 0.95);
    EXPECT_EQ(ranks.lower, row.lower) << row.n;
    EXPECT_EQ(ranks.upper, row.upper) << row.n;
    EXPECT_NEAR(ranks.coverage, coverageByHand(row.n, row.lower), 1e-12) << row.n;
    EXPECT_GE(ranks.coverage, 0.95) << row.n;
    // The next narrower pair would fall short: these are the narrowest ranks that reach 95%.
    EXPECT_LT(coverageByHand(row.n, row.lower + 1), 0.95) << row.n;
  }
  EXPECT_NEAR(medianRanks(10, 0.95).coverage, 1002.0 / 1024.0, 1e-12);
}

TEST(MedianInterval, TooFewValuesGiveTheWidestIntervalAndSaySo) {
  const MedianRanks five = medianRanks(5, 0.95);
  EXPECT_EQ(five.lower, 1u);
  EXPECT_EQ(five.upper, 5u);
  EXPECT_DOUBLE_EQ(five.coverage, 1 - 2.0 / 32);  // below the 95% asked for
  const MedianRanks one = medianRanks(1, 0.95);
  EXPECT_EQ(one.lower, 1u);
  EXPECT_EQ(one.upper, 1u);
  EXPECT_DOUBLE_EQ(one.coverage, 0);
}

TEST(MedianInterval, BoundsAreTheOrderStatisticsOfTheValues) {
  const std::vector<double> values = {13, 8, 10, 12, 10, 9, 10, 11, 10, 10};  // unsorted
  const MedianInterval interval = medianInterval(values, 0.95);
  EXPECT_DOUBLE_EQ(interval.low, 9);    // 2nd smallest
  EXPECT_DOUBLE_EQ(interval.high, 12);  // 9th smallest
  EXPECT_NEAR(interval.coverage, 0.9785, 1e-4);
  EXPECT_DOUBLE_EQ(relativeReach(interval, 10), 0.2);
  EXPECT_DOUBLE_EQ(relativeReach(interval, 0), 0);
}

TEST(MedianInterval, NarrowsAsOneOverTheRootOfTheSampleCount) {
  // Normal samples: the interval's half-width approaches 1.96 * 1.2533 * sigma / sqrt(n).
  const double sigma = 0.01;
  for (std::size_t n : {400u, 1600u, 6400u}) {
    const std::vector<double> values = testing::stableSeries(n, 1.0, sigma, 3);
    const MedianInterval interval = medianInterval(values, kMedianConfidence);
    const double expected = 1.96 * 1.2533 * sigma / std::sqrt(static_cast<double>(n));
    EXPECT_NEAR((interval.high - interval.low) / 2, expected, 0.25 * expected) << n;
  }
}

TEST(MedianInterval, RefusesWhatHasNoInterval) {
  EXPECT_THROW(medianInterval(std::vector<double>{}, 0.95), std::invalid_argument);
  EXPECT_THROW(medianRanks(10, 1.0), std::invalid_argument);
  EXPECT_THROW(medianRanks(10, 0.0), std::invalid_argument);
}

}  // namespace
}  // namespace splitstep
