#include "derived/StepProjection.hpp"

#include <gtest/gtest.h>

#include <stdexcept>
#include <vector>

namespace splitstep {
namespace {

TEST(StepProjection, SequentialAddsEveryBucketsReductionToTheComputeTime) {
  const std::vector<double> seconds = {1e-3, 2e-3, 0.5e-3};
  EXPECT_DOUBLE_EQ(sequentialStepTime(40e-3, seconds), 43.5e-3);
  EXPECT_DOUBLE_EQ(sequentialStepTime(40e-3, {}), 40e-3);
}

TEST(StepProjection, OverlappedLeavesOnlyTheTailAfterBackwardExposed) {
  // Backward 30 ms produces 4 equal buckets, ready at 7.5, 15, 22.5 and 30 ms.
  const std::vector<double> bytes = {1, 1, 1, 1};
  // Short reductions: each done before the next is ready; only the last one's 1 ms is exposed.
  EXPECT_DOUBLE_EQ(overlappedStepTime(50e-3, 30e-3, bytes, std::vector<double>(4, 1e-3)), 51e-3);
  // Long reductions queue up: starts at 7.5, then back to back, 10 ms each, ending at 47.5 ms:
  // 17.5 ms after backward.
  EXPECT_DOUBLE_EQ(overlappedStepTime(50e-3, 30e-3, bytes, std::vector<double>(4, 10e-3)), 67.5e-3);
}

TEST(StepProjection, OverlappedFollowsTheBucketsShareOfTheGradients) {
  // A small first bucket (the last layers' gradients) is ready early: 1 of 9 bytes at 1 ms of
  // 9 ms, then 8 of 9 at 9 ms. Reductions of 2 ms and 4 ms: 1 + 2 = 3, then 9 + 4 = 13.
  EXPECT_DOUBLE_EQ(
      overlappedStepTime(20e-3, 9e-3, std::vector<double>{1, 8}, std::vector<double>{2e-3, 4e-3}),
      24e-3);
  EXPECT_THROW(overlappedStepTime(1, 1, std::vector<double>{1}, std::vector<double>{}),
               std::invalid_argument);
}

TEST(StepProjection, NeverFasterThanComputeNorSlowerThanSequential) {
  const std::vector<double> bytes = {1, 4, 4, 2};
  const std::vector<double> seconds = {1e-3, 3e-3, 3e-3, 2e-3};
  const double overlapped = overlappedStepTime(40e-3, 25e-3, bytes, seconds);
  EXPECT_GE(overlapped, 40e-3);
  EXPECT_LE(overlapped, sequentialStepTime(40e-3, seconds));
}

}  // namespace
}  // namespace splitstep
