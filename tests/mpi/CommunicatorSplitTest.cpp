// Groups of ranks on their own communicators (Communicator::split) across real ranks: each group
// reduces among its own ranks only, and a rank outside every group takes part in the split and
// gets no communicator. NCCL's split runs where there are GPUs (tests/gpu, and the GPU runs).
#include <gtest/gtest.h>
#include <mpi.h>

#include <vector>

#include "MpiWorld.hpp"
#include "comm/Collective.hpp"
#include "comm/MpiCommunicator.hpp"

namespace splitstep {
namespace {

// This rank's sum over its communicator of (world rank + 1).
float sumOfWorldRanks(Communicator& comm, int world_rank) {
  const float mine = static_cast<float>(world_rank + 1);
  float sum = 0;
  comm.run(*findCollective("allreduce"), &mine, &sum, 1, DataType::Float32, nullptr);
  return sum;
}

TEST(CommunicatorSplit, EachGroupReducesAmongItsOwnRanks) {
  const testing::MpiWorld world;
  Watchdog watchdog(60);
  MpiCommunicator comm(MPI_COMM_WORLD, watchdog);
  EXPECT_EQ(comm.rank(), world.rank);
  EXPECT_EQ(comm.size(), world.size);
  // Pairs of neighbours: {0,1}, {2,3}, ...; the last rank of an odd world stays out.
  const bool paired = world.rank / 2 * 2 + 1 < world.size;
  const auto group = comm.split(paired ? std::optional(world.rank / 2) : std::nullopt);
  if (!paired) {
    EXPECT_EQ(group, nullptr);
    return;
  }
  ASSERT_NE(group, nullptr);
  EXPECT_EQ(group->backend(), "mpi");
  EXPECT_EQ(group->size(), 2);
  EXPECT_EQ(group->rank(), world.rank % 2);
  const int first = world.rank / 2 * 2;
  EXPECT_EQ(sumOfWorldRanks(*group, world.rank), static_cast<float>(first + 1 + first + 2));
  // The world's communicator still spans every rank.
  EXPECT_EQ(sumOfWorldRanks(comm, world.rank),
            static_cast<float>(world.size * (world.size + 1) / 2));
}

TEST(CommunicatorSplit, RanksOutsideEveryGroupGetNone) {
  const testing::MpiWorld world;
  Watchdog watchdog(60);
  MpiCommunicator comm(MPI_COMM_WORLD, watchdog);
  // One group of ranks 0 and 1; the others pass no color.
  const auto group = comm.split(world.rank < 2 ? std::optional(0) : std::nullopt);
  if (world.rank >= 2) {
    EXPECT_EQ(group, nullptr);
    return;
  }
  ASSERT_NE(group, nullptr);
  EXPECT_EQ(group->size(), 2);
  EXPECT_EQ(sumOfWorldRanks(*group, world.rank), 3.0f);
}

}  // namespace
}  // namespace splitstep
