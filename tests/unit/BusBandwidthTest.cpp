#include "comm/BusBandwidth.hpp"

#include <gtest/gtest.h>

namespace splitstep {
namespace {

TEST(BusBandwidth, FactorsFollowNcclTests) {
  EXPECT_DOUBLE_EQ(*busBandwidthFactor(Collective::AllReduce, 2), 1.0);
  EXPECT_DOUBLE_EQ(*busBandwidthFactor(Collective::AllReduce, 8), 2.0 * 7 / 8);
  EXPECT_DOUBLE_EQ(*busBandwidthFactor(Collective::ReduceScatter, 4), 3.0 / 4);
  EXPECT_DOUBLE_EQ(*busBandwidthFactor(Collective::AllGather, 4), 3.0 / 4);
  EXPECT_DOUBLE_EQ(*busBandwidthFactor(Collective::Broadcast, 16), 1.0);
}

TEST(BusBandwidth, UndefinedForOneRank) {
  EXPECT_FALSE(busBandwidthFactor(Collective::AllReduce, 1).has_value());
  EXPECT_THROW(busBandwidthFactor(Collective::AllReduce, 0), std::invalid_argument);
}

TEST(BusBandwidth, AlgorithmBandwidthUsesDecimalGigabytes) {
  // The reference table: 1 GiB in 3328.66 us is 322.58 GB/s.
  EXPECT_NEAR(algorithmBandwidthGBps(1073741824.0, 3328.66e-6), 322.58, 0.01);
  EXPECT_THROW(algorithmBandwidthGBps(8, 0), std::invalid_argument);
}

}  // namespace
}  // namespace splitstep
