// The messages ranks exchange about a fault, across real ranks: a roll call that finds the rank
// that does not answer, a notice that reaches every waiting rank, and farewells.
#include "fault/FaultChannel.hpp"

#include <gtest/gtest.h>
#include <mpi.h>

#include <chrono>
#include <thread>

#include "MpiWorld.hpp"

namespace splitstep {
namespace {

// Polls the channel, as every wait does, for `seconds`.
void pollFor(Watchdog& watchdog, double seconds) {
  const auto until = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  watchdog.waitUntil([until] { return std::chrono::steady_clock::now() >= until; }, "the test");
}

TEST(FaultChannel, ARollCallFindsTheRankThatDoesNotAnswer) {
  const testing::MpiWorld world;
  Watchdog watchdog(30);
  watchdog.setOperation("allreduce mpi fp32 8 B");
  FaultChannel channel(MPI_COMM_WORLD, watchdog, [&watchdog] {
    return FaultChannel::Answer{watchdog.activity(), 0};
  });
  const int silent = world.size - 1;
  if (world.rank == 0) {
    const FaultChannel::Answers answers = channel.rollCall(1.0, "ending after a timeout");
    EXPECT_EQ(answers.silent, std::vector<int>{silent});
    for (int r = 1; r < silent; ++r) {
      ASSERT_EQ(answers.answers.count(r), 1u) << "rank " << r;
      EXPECT_EQ(answers.answers.at(r).activity,
                "waiting for the test during allreduce mpi fp32 8 B");
      EXPECT_EQ(answers.answers.at(r).stopped_for, 0);
    }
  } else if (world.rank == silent) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1500));  // polls nothing
  } else {
    pollFor(watchdog, 1.5);
  }
  MPI_Barrier(MPI_COMM_WORLD);
}

TEST(FaultChannel, ARankThatWasStoppedSaysSoInItsAnswer) {
  const testing::MpiWorld world;
  Watchdog watchdog(30);
  FaultChannel channel(MPI_COMM_WORLD, watchdog, [&watchdog, &world] {
    return FaultChannel::Answer{watchdog.activity(), world.rank == 1 ? 9.5 : 0};
  });
  if (world.rank == 0) {
    const FaultChannel::Answers answers = channel.rollCall(5.0, "ending");
    EXPECT_TRUE(answers.silent.empty());
    ASSERT_EQ(answers.answers.count(1), 1u);
    EXPECT_EQ(answers.answers.at(1).stopped_for, 9.5);
  } else {
    pollFor(watchdog, 1.0);
  }
  MPI_Barrier(MPI_COMM_WORLD);
}

TEST(FaultChannel, ANoticeEndsTheWaitOfEveryOtherRankNamingTheCulprits) {
  const testing::MpiWorld world;
  Watchdog watchdog(30);
  FaultChannel channel(MPI_COMM_WORLD, watchdog, [] { return FaultChannel::Answer{}; });
  if (world.rank == 0) {
    channel.giveUp("rank 1 (node7) did not answer", {1}, 5.0);
  } else {
    try {
      watchdog.waitUntil([] { return false; }, "rank 0");
      FAIL() << "expected PeerGaveUp";
    } catch (const PeerGaveUp& notice) {
      EXPECT_EQ(notice.from(), 0);
      EXPECT_EQ(notice.culprits(), std::vector<int>{1});
      EXPECT_STREQ(notice.what(), "rank 1 (node7) did not answer");
    }
    // Once is enough: a rank ending after a notice may wait again without being stopped.
    EXPECT_NO_THROW(pollFor(watchdog, 0.01));
  }
  MPI_Barrier(MPI_COMM_WORLD);
}

TEST(FaultChannel, RankZeroHearsEveryFarewell) {
  const testing::MpiWorld world;
  Watchdog watchdog(30);
  FaultChannel channel(MPI_COMM_WORLD, watchdog, [] { return FaultChannel::Answer{}; });
  if (world.rank == 0) {
    std::vector<int> others;
    for (int r = 1; r < world.size; ++r) others.push_back(r);
    const auto start = std::chrono::steady_clock::now();
    channel.awaitFarewells(others, 20.0);
    EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(10))
        << "every farewell arrived, so the wait ended before its limit";
  } else {
    channel.sayFarewell();
    channel.flush(5.0);
  }
  MPI_Barrier(MPI_COMM_WORLD);
}

}  // namespace
}  // namespace splitstep
