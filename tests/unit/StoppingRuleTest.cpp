#include "measure/StoppingRule.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

namespace splitstep {
namespace {

MeasureSettings rule() {
  MeasureSettings s;
  s.min_samples = 4;
  s.min_time = 1.0;
  s.max_noise = 0.01;
  s.max_time = 10;
  return s;
}

TEST(StoppingRule, RelativeNoiseIsSampleStdOverMean) {
  // mean 10, sample std sqrt((1 + 1) / 1) = sqrt(2).
  EXPECT_DOUBLE_EQ(relativeNoise(std::vector<double>{9, 11}), std::sqrt(2.0) / 10);
  EXPECT_DOUBLE_EQ(relativeNoise(std::vector<double>{5}), 0);
}

TEST(StoppingRule, NeedsMinSamplesAndMinTimeBeforeJudgingNoise) {
  const std::vector<double> quiet(3, 1.0);
  EXPECT_EQ(evaluateStop(rule(), quiet, 5.0, 5.0), StopState::Continue);  // 3 < 4 samples
  const std::vector<double> four(4, 1.0);
  EXPECT_EQ(evaluateStop(rule(), four, 0.5, 5.0), StopState::Continue);  // 0.5 s < min_time
  EXPECT_EQ(evaluateStop(rule(), four, 1.0, 5.0), StopState::Done);
}

TEST(StoppingRule, NoisySamplesContinueUntilMaxTime) {
  const std::vector<double> noisy = {1, 2, 1, 2, 1, 2};
  EXPECT_EQ(evaluateStop(rule(), noisy, 9.0, 9.9), StopState::Continue);
  EXPECT_EQ(evaluateStop(rule(), noisy, 9.0, 10.0), StopState::TimeLimit);
}

TEST(StoppingRule, FixedCountOverridesEverythingElse) {
  MeasureSettings fixed = rule();
  fixed.samples = 3;
  EXPECT_EQ(evaluateStop(fixed, std::vector<double>{1, 2}, 0, 100), StopState::Continue);
  EXPECT_EQ(evaluateStop(fixed, std::vector<double>{1, 2, 9}, 0, 100), StopState::Done);
}

TEST(StoppingRule, TheMaximumOverRanksIsTheJobsDecision) {
  EXPECT_GT(static_cast<int>(StopState::Continue), static_cast<int>(StopState::Done));
  EXPECT_GT(static_cast<int>(StopState::TimeLimit), static_cast<int>(StopState::Continue));
}

TEST(StoppingRule, NextLoopCountReachesTheTargetWithMargin) {
  // 1 loop took 0.1 ms; 2 ms wanted: 20 loops, 24 with the 20% margin.
  EXPECT_EQ(nextLoopCount(1, 1e-4, 2e-3, 1 << 20), 24);
  // Long enough already: keep.
  EXPECT_EQ(nextLoopCount(24, 2.4e-3, 2e-3, 1 << 20), 24);
  // At least double, at most 100x, never past the cap.
  EXPECT_EQ(nextLoopCount(10, 1.9e-3, 2e-3, 1 << 20), 20);
  EXPECT_EQ(nextLoopCount(1, 1e-9, 2e-3, 1 << 20), 100);
  EXPECT_EQ(nextLoopCount(1, 0, 2e-3, 1 << 20), 100);
  EXPECT_EQ(nextLoopCount(1000, 1e-9, 2e-3, 5000), 5000);
}

}  // namespace
}  // namespace splitstep
