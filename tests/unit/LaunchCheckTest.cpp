#include "cluster/LaunchCheck.hpp"

#include <gtest/gtest.h>

namespace splitstep {
namespace {

TEST(LaunchCheck, AgreementOrNoLauncherIsFine) {
  EXPECT_FALSE(checkLaunchSize({}, 1));
  EXPECT_FALSE(checkLaunchSize({"4", std::nullopt, std::nullopt}, 4));
  EXPECT_FALSE(checkLaunchSize({std::nullopt, "2", "2"}, 2));
}

TEST(LaunchCheck, CopiesOfSizeOneUnderMpirunAreNamed) {
  const auto message = checkLaunchSize({"4", std::nullopt, std::nullopt}, 1);
  ASSERT_TRUE(message);
  EXPECT_NE(message->find("started 4 processes (OMPI_COMM_WORLD_SIZE=4)"), std::string::npos);
  EXPECT_NE(message->find("1 rank(s)"), std::string::npos);
}

TEST(LaunchCheck, CopiesOfSizeOneUnderSrunAreNamed) {
  const auto message = checkLaunchSize({std::nullopt, std::nullopt, "8"}, 1);
  ASSERT_TRUE(message);
  EXPECT_NE(message->find("SLURM_NTASKS=8"), std::string::npos);
}

TEST(LaunchCheck, MpirunCountWinsOverTheAllocationsTaskCount) {
  // mpirun -np 2 inside an allocation of 8 tasks is a legitimate launch.
  EXPECT_FALSE(checkLaunchSize({"2", std::nullopt, "8"}, 2));
  // The step's own count wins over the allocation's.
  EXPECT_FALSE(checkLaunchSize({std::nullopt, "2", "8"}, 2));
}

TEST(LaunchCheck, UnreadableCountsAreIgnored) {
  EXPECT_FALSE(checkLaunchSize({"", std::nullopt, "x"}, 3));
}

}  // namespace
}  // namespace splitstep
