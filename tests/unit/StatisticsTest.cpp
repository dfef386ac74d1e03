#include "stats/Statistics.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

namespace splitstep {
namespace {

TEST(Statistics, SummaryOfKnownSampleMatchesHandComputedValues) {
  // Sorted: 1 2 3 4 10. Mean 4; deviations -3 -2 -1 0 6, squares sum 50, / 4 = 12.5.
  const std::vector<double> values = {4, 1, 10, 3, 2};
  const Summary s = summarize(values);
  EXPECT_EQ(s.n, 5u);
  EXPECT_DOUBLE_EQ(s.min, 1);
  EXPECT_DOUBLE_EQ(s.max, 10);
  EXPECT_DOUBLE_EQ(s.mean, 4);
  EXPECT_DOUBLE_EQ(s.stddev, std::sqrt(12.5));
  EXPECT_DOUBLE_EQ(s.median, 3);
  // Linear interpolation: p25 at position 1 -> 2, p75 at position 3 -> 4.
  EXPECT_DOUBLE_EQ(s.iqr, 2);
  // p5 at position 0.2 -> 1 + 0.2 * (2 - 1); p95 at 3.8 -> 4 + 0.8 * (10 - 4).
  EXPECT_DOUBLE_EQ(s.p5, 1.2);
  EXPECT_DOUBLE_EQ(s.p95, 8.8);
  EXPECT_DOUBLE_EQ(s.cv, std::sqrt(12.5) / 4);
}

TEST(Statistics, MedianOfEvenCountIsMeanOfMiddlePair) {
  const std::vector<double> values = {8, 2, 6, 4};
  EXPECT_DOUBLE_EQ(summarize(values).median, 5);
}

TEST(Statistics, SingleValueHasNoSpread) {
  const std::vector<double> values = {2.5};
  const Summary s = summarize(values);
  EXPECT_EQ(s.n, 1u);
  EXPECT_DOUBLE_EQ(s.median, 2.5);
  EXPECT_DOUBLE_EQ(s.stddev, 0);
  EXPECT_DOUBLE_EQ(s.iqr, 0);
}

TEST(Statistics, EmptySampleGivesZeroSummary) {
  const Summary s = summarize(std::vector<double>{});
  EXPECT_EQ(s.n, 0u);
  EXPECT_DOUBLE_EQ(s.mean, 0);
}

TEST(Statistics, QuantileRejectsEmptySampleAndOutOfRangeQ) {
  EXPECT_THROW(quantile(std::vector<double>{}, 0.5), std::invalid_argument);
  EXPECT_THROW(quantile(std::vector<double>{1.0}, 1.5), std::invalid_argument);
  EXPECT_DOUBLE_EQ(quantile(std::vector<double>{3, 1, 2}, 1.0), 3);
}

}  // namespace
}  // namespace splitstep
