// The Measurer's collective decisions across real ranks of different speed: every rank must run
// the body equally often, or the collective inside it would deadlock (the test would time out).
#include "cluster/MpiAgreement.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <thread>

#include "device/Device.hpp"
#include "measure/Measurer.hpp"

namespace splitstep {
namespace {

int worldRank() {
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  return rank;
}

std::vector<long long> gatherToAll(long long value) {
  int size = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  std::vector<long long> all(static_cast<std::size_t>(size));
  MPI_Allgather(&value, 1, MPI_LONG_LONG, all.data(), 1, MPI_LONG_LONG, MPI_COMM_WORLD);
  return all;
}

TEST(MpiAgreement, MaximumOverRanks) {
  Watchdog watchdog(60);
  MpiAgreement agreement(MPI_COMM_WORLD, watchdog);
  int size = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  EXPECT_EQ(agreement.maxOverRanks(10 * worldRank()), 10 * (size - 1));
}

TEST(MpiAgreement, BarrierWaitIsLongestForTheEarliestRank) {
  Watchdog watchdog(60);
  MpiAgreement agreement(MPI_COMM_WORLD, watchdog);
  agreement.barrier();
  // The last rank arrives 200 ms late: every other rank must wait at least about that long.
  int size = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const bool late = worldRank() == size - 1;
  if (late) std::this_thread::sleep_for(std::chrono::milliseconds(200));
  const double waited = agreement.barrier();
  const auto waits = gatherToAll(static_cast<long long>(waited * 1e6));  // microseconds
  for (int r = 0; r + 1 < size; ++r) {
    EXPECT_GT(waits[r], 150'000) << "rank " << r;
    EXPECT_LT(waits[size - 1], waits[r]) << "the late rank waited longer than rank " << r;
  }
}

TEST(MpiAgreement, DeferringRanksLeaveTheDecisionToTheOthers) {
  Watchdog watchdog(60);
  MpiAgreement agreement(MPI_COMM_WORLD, watchdog);
  DeferringAgreement deferring(agreement);
  // Rank 0 wants 5; every other rank would want more, but defers.
  const bool leads = worldRank() == 0;
  const std::int64_t agreed =
      leads ? agreement.maxOverRanks(5) : deferring.maxOverRanks(100 + worldRank());
  EXPECT_EQ(agreed, 5);
}

TEST(MpiAgreement, RanksOfDifferentSpeedRunTheSameLoopsAndSamples) {
  Watchdog watchdog(60);
  MpiAgreement agreement(MPI_COMM_WORLD, watchdog);
  const auto device = openDevice({false, 0}, watchdog);
  MeasureSettings settings;
  settings.warmup = 1;
  settings.min_sample_time = 2e-3;
  settings.min_samples = 5;
  settings.min_time = 0.02;
  settings.max_noise = 0.5;  // generous: the test is about agreement, not precision
  settings.max_time = 20;
  // Rank 0 is fast (0.1 ms per execution); the others are slow (0.3 ms) and noisy, so each rank
  // alone would choose different loop and sample counts.
  const bool slow = worldRank() != 0;
  int executions = 0;
  const Measurement m = Measurer(*device, agreement, settings).measure([&] {
    ++executions;
    const auto pause = std::chrono::microseconds(slow ? 300 + 150 * (executions % 3) : 100);
    std::this_thread::sleep_for(pause);
    MPI_Barrier(MPI_COMM_WORLD);  // a collective in the body, as allreduce has
  });
  const auto loops = gatherToAll(m.loops);
  const auto samples = gatherToAll(static_cast<long long>(m.values.size()));
  const auto runs = gatherToAll(executions);
  for (std::size_t r = 1; r < loops.size(); ++r) {
    EXPECT_EQ(loops[r], loops[0]) << "rank " << r;
    EXPECT_EQ(samples[r], samples[0]) << "rank " << r;
    EXPECT_EQ(runs[r], runs[0]) << "rank " << r;
  }
  EXPECT_GE(samples[0], 5);
}

}  // namespace
}  // namespace splitstep
