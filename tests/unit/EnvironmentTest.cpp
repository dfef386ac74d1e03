#include "meta/Environment.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>

namespace splitstep {
namespace {

TEST(Environment, TheLaunchEnvironmentKeepsTheFourFamiliesWithoutPerProcessVariables) {
  const EnvironmentList all = {{"CUDA_VISIBLE_DEVICES", "0,1"},
                               {"HOME", "/root"},
                               {"NCCL_DEBUG", "WARN"},
                               {"OMPI_COMM_WORLD_RANK", "3"},
                               {"OMPI_COMM_WORLD_SIZE", "4"},
                               {"OMPI_MCA_btl", "^openib"},
                               {"OMPI_MCA_orte_local_daemon_uri", "node2"},
                               {"PMIX_RANK", "3"},
                               {"UCX_TLS", "rc,sm"},
                               {"XNCCL_DEBUG", "INFO"}};
  EXPECT_EQ(launchEnvironment(all), (EnvironmentList{{"CUDA_VISIBLE_DEVICES", "0,1"},
                                                     {"NCCL_DEBUG", "WARN"},
                                                     {"OMPI_COMM_WORLD_SIZE", "4"},
                                                     {"OMPI_MCA_btl", "^openib"},
                                                     {"UCX_TLS", "rc,sm"}}));
}

TEST(Environment, HashesDifferExactlyWhenTheListsDo) {
  const EnvironmentList a = {{"NCCL_DEBUG", "WARN"}, {"NCCL_IB_HCA", "mlx5"}};
  EnvironmentList b = a;
  EXPECT_EQ(environmentHash(a), environmentHash(b));
  b.back().second = "mlx5_1";
  EXPECT_NE(environmentHash(a), environmentHash(b));
  // A name and value are not merely concatenated.
  EXPECT_NE(environmentHash({{"NCCL_A", "BC"}}), environmentHash({{"NCCL_AB", "C"}}));
}

TEST(Environment, ASlurmJobIsNamedByItsIdAndNodes) {
  const JobInfo job = jobInfo({{"SLURM_JOB_ID", "4242"}, {"SLURM_JOB_NODELIST", "node[1-2]"}});
  EXPECT_EQ(job.scheduler, "slurm");
  EXPECT_EQ(job.id, "4242");
  EXPECT_EQ(job.node_list, "node[1-2]");
  EXPECT_EQ(jobInfo({{"HOME", "/root"}}).scheduler, "");
}

TEST(Environment, TheProcessEnvironmentIsReadSorted) {
  ASSERT_EQ(setenv("NCCL_SPLITSTEP_TEST", "1", 1), 0);
  const EnvironmentList mine = processEnvironment();
  unsetenv("NCCL_SPLITSTEP_TEST");
  EXPECT_TRUE(std::is_sorted(mine.begin(), mine.end()));
  EXPECT_NE(std::find(mine.begin(), mine.end(),
                      std::pair<std::string, std::string>{"NCCL_SPLITSTEP_TEST", "1"}),
            mine.end());
}

}  // namespace
}  // namespace splitstep
