#include "comm/CollectiveLayout.hpp"

#include <gtest/gtest.h>

namespace splitstep {
namespace {

TEST(CollectiveLayout, AllreduceAndBroadcastSendAndReceiveTheWholeMessage) {
  for (Collective c : {Collective::AllReduce, Collective::Broadcast}) {
    const CollectiveLayout l = layoutFor(c, 1 << 20, 4, 8, 3);
    EXPECT_EQ(l.count, (1u << 20) / 4);
    EXPECT_EQ(l.send, l.count);
    EXPECT_EQ(l.recv, l.count);
    EXPECT_EQ(l.call_count, l.count);
    EXPECT_EQ(l.bytes, 1u << 20);
    EXPECT_EQ(l.send_offset_in_place, 0u);
    EXPECT_EQ(l.recv_offset_in_place, 0u);
  }
}

TEST(CollectiveLayout, ReduceScatterReceivesOneBlockAtItsRanksOffset) {
  // 1000 fp32 elements over 3 ranks: 999 used, blocks of 333; rank 2's block starts at 666.
  const CollectiveLayout l = layoutFor(Collective::ReduceScatter, 4000, 4, 3, 2);
  EXPECT_EQ(l.count, 999u);
  EXPECT_EQ(l.send, 999u);
  EXPECT_EQ(l.recv, 333u);
  EXPECT_EQ(l.call_count, 333u);
  EXPECT_EQ(l.bytes, 3996u);
  EXPECT_EQ(l.recv_offset_in_place, 666u);
}

TEST(CollectiveLayout, AllgatherSendsOneBlockFromItsRanksOffset) {
  const CollectiveLayout l = layoutFor(Collective::AllGather, 4096, 2, 4, 1);
  EXPECT_EQ(l.count, 2048u);
  EXPECT_EQ(l.send, 512u);
  EXPECT_EQ(l.recv, 2048u);
  EXPECT_EQ(l.call_count, 512u);
  EXPECT_EQ(l.send_offset_in_place, 512u);
}

TEST(CollectiveLayout, OneAllocationHoldsBothBuffers) {
  const CollectiveLayout gather = layoutFor(Collective::AllGather, 4096, 2, 4, 1);
  EXPECT_EQ(gather.allocation(false), 512u + 2048u);
  EXPECT_EQ(gather.allocation(true), 2048u);  // the send block lives inside the receive buffer
  const CollectiveLayout scatter = layoutFor(Collective::ReduceScatter, 4000, 4, 3, 2);
  EXPECT_EQ(scatter.allocation(true), 999u);
}

TEST(CollectiveLayout, TooSmallForOneElementPerRankIsEmpty) {
  EXPECT_EQ(layoutFor(Collective::ReduceScatter, 8, 4, 4, 0).count, 0u);
  EXPECT_EQ(layoutFor(Collective::AllGather, 8, 4, 4, 0).count, 0u);
  EXPECT_EQ(layoutFor(Collective::AllReduce, 8, 4, 4, 0).count, 2u);
}

TEST(CollectiveLayout, NamesAreTheSuiteNames) {
  EXPECT_EQ(toString(Collective::AllReduce), "allreduce");
  EXPECT_EQ(toString(Collective::ReduceScatter), "reduce_scatter");
  EXPECT_EQ(toString(Collective::AllGather), "allgather");
  EXPECT_EQ(toString(Collective::Broadcast), "broadcast");
}

}  // namespace
}  // namespace splitstep
