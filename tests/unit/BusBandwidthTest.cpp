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

}  // namespace
}  // namespace splitstep
