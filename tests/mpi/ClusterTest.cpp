#include "cluster/Cluster.hpp"

#include <gtest/gtest.h>

namespace splitstep {
namespace {

TEST(Cluster, RanksAndNodeLocalRanksMatchTheWorld) {
  Cluster cluster(MPI_COMM_WORLD);
  int world_rank = 0;
  int world_size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &world_size);
  EXPECT_EQ(cluster.rank(), world_rank);
  EXPECT_EQ(cluster.size(), world_size);
  ASSERT_EQ(cluster.hosts().size(), static_cast<std::size_t>(world_size));
  // The tests run on one machine: every rank is on rank 0's node, local rank = world rank.
  EXPECT_EQ(cluster.localSize(), world_size);
  EXPECT_EQ(cluster.localRank(), world_rank);
  for (const std::string& host : cluster.hosts()) EXPECT_EQ(host, cluster.hosts()[0]);
  EXPECT_FALSE(cluster.host().empty());
}

TEST(Cluster, AllgatherReturnsEveryRanksValueInRankOrder) {
  Cluster cluster(MPI_COMM_WORLD);
  const auto values = cluster.allgather(100u + static_cast<std::uint64_t>(cluster.rank()));
  ASSERT_EQ(values.size(), static_cast<std::size_t>(cluster.size()));
  for (int r = 0; r < cluster.size(); ++r) EXPECT_EQ(values[r], 100u + r);
}

TEST(Cluster, NoErrorAnywherePasses) {
  Cluster cluster(MPI_COMM_WORLD);
  EXPECT_NO_THROW(cluster.requireAllOk(std::nullopt));
}

TEST(Cluster, OneFailingRankRefusesEveryRankAndOnlyItPrints) {
  Cluster cluster(MPI_COMM_WORLD);
  const int failing = cluster.size() - 1;
  const std::optional<std::string> error =
      cluster.rank() == failing ? std::optional<std::string>("disk full") : std::nullopt;
  try {
    cluster.requireAllOk(error);
    FAIL() << "every rank must be refused";
  } catch (const StartupRefused& e) {
    EXPECT_EQ(e.shouldPrint(), cluster.rank() == failing);
    if (cluster.rank() == failing) {
      // Ranks disagree, so the message says where it failed.
      EXPECT_EQ(std::string(e.what()),
                "disk full (rank " + std::to_string(failing) + " on " + cluster.host() + ")");
    }
  }
}

TEST(Cluster, ErrorOnEveryRankIsPrintedOnceWithoutLocation) {
  Cluster cluster(MPI_COMM_WORLD);
  try {
    cluster.requireAllOk(std::string("--samples: bad"));
    FAIL() << "every rank must be refused";
  } catch (const StartupRefused& e) {
    EXPECT_EQ(e.shouldPrint(), cluster.rank() == 0);
    if (cluster.rank() == 0) {
      EXPECT_EQ(std::string(e.what()), "--samples: bad");
    }
  }
}

}  // namespace
}  // namespace splitstep
