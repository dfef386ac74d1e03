#include "cluster/ClockSync.hpp"

#include <gtest/gtest.h>

#include <stdexcept>

namespace splitstep {
namespace {

TEST(ClockSync, TheShortestRoundTripGivesTheOffset) {
  // This rank's clock is 5 s ahead of rank 0's. The second round was delayed on the way back
  // (rank 0's answer seems early): only the shortest round is trusted.
  const std::vector<PingPong> rounds = {
      {105.000, 100.0004, 105.001}, {106.000, 101.0001, 106.010}, {107.000, 102.0002, 107.0004}};
  const ClockOffset offset = offsetFromRounds(rounds);
  EXPECT_NEAR(offset.offset, 5.0, 1e-9);
  EXPECT_NEAR(offset.uncertainty, 0.0002, 1e-12);
  EXPECT_NEAR(offset.measured_at, 107.0002, 1e-9);
  EXPECT_THROW(offsetFromRounds({}), std::invalid_argument);
}

TEST(ClockSync, DriftBetweenTwoMeasurementsIsInterpolated) {
  const ClockOffset start{5.0, 1e-6, 100};
  const ClockOffset end{5.010, 1e-6, 200};  // 100 ppm faster than rank 0's
  EXPECT_NEAR(onRootClock(100, start, end), 95.0, 1e-9);
  EXPECT_NEAR(onRootClock(150, start, end), 150 - 5.005, 1e-9);
  EXPECT_NEAR(onRootClock(200, start, end), 200 - 5.010, 1e-9);
  // One measurement, or two at the same time: the offset alone.
  EXPECT_NEAR(onRootClock(150, start, start), 145.0, 1e-9);
}

}  // namespace
}  // namespace splitstep
