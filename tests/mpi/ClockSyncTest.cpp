// Clock offsets to rank 0 measured across real ranks. The ranks of these tests share one host,
// whose steady clock every process reads alike: the true offset is 0, so each measured offset
// must lie within its own uncertainty of it.
#include "cluster/ClockSync.hpp"

#include <gtest/gtest.h>

#include <cmath>

namespace splitstep {
namespace {

TEST(ClockSync, RanksOfOneHostAreWithinTheirUncertaintyOfRankZero) {
  Watchdog watchdog(60);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  const ClockOffset offset = measureClockOffset(MPI_COMM_WORLD, watchdog);
  if (rank == 0) {
    EXPECT_EQ(offset.offset, 0);
    EXPECT_EQ(offset.uncertainty, 0);
    return;
  }
  EXPECT_GT(offset.uncertainty, 0);
  // A round trip between processes of one host takes microseconds; oversubscribed ranks may
  // wait for a core, but the shortest of 20 rounds stays far below a tenth of a second.
  EXPECT_LT(offset.uncertainty, 0.1);
  EXPECT_LE(std::abs(offset.offset), offset.uncertainty + 1e-9)
      << "offset " << offset.offset << " s, uncertainty " << offset.uncertainty << " s";
}

TEST(ClockSync, RepeatedMeasurementsAgreeWithinTheirUncertainties) {
  Watchdog watchdog(60);
  const ClockOffset first = measureClockOffset(MPI_COMM_WORLD, watchdog, 5);
  const ClockOffset second = measureClockOffset(MPI_COMM_WORLD, watchdog, 5);
  EXPECT_LE(std::abs(first.offset - second.offset), first.uncertainty + second.uncertainty + 1e-9);
  EXPECT_LE(first.measured_at, second.measured_at);
}

}  // namespace
}  // namespace splitstep
