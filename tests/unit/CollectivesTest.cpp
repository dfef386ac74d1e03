#include <gtest/gtest.h>

#include <set>
#include <stdexcept>

#include "comm/Collective.hpp"

namespace splitstep {
namespace {

const CollectiveDescriptor& named(std::string_view name) {
  const CollectiveDescriptor* c = findCollective(name);
  if (c == nullptr) throw std::invalid_argument(std::string(name));
  return *c;
}

TEST(Collectives, BusBandwidthFactorsFollowNcclTests) {
  EXPECT_DOUBLE_EQ(*busBandwidthFactor(named("allreduce"), 2), 1.0);
  EXPECT_DOUBLE_EQ(*busBandwidthFactor(named("allreduce"), 8), 2.0 * 7 / 8);
  EXPECT_DOUBLE_EQ(*busBandwidthFactor(named("reduce_scatter"), 4), 3.0 / 4);
  EXPECT_DOUBLE_EQ(*busBandwidthFactor(named("allgather"), 4), 3.0 / 4);
  EXPECT_DOUBLE_EQ(*busBandwidthFactor(named("broadcast"), 16), 1.0);
  EXPECT_DOUBLE_EQ(*busBandwidthFactor(named("alltoall"), 4), 3.0 / 4);
  EXPECT_DOUBLE_EQ(*busBandwidthFactor(named("sendrecv"), 4), 1.0);
  EXPECT_DOUBLE_EQ(*busBandwidthFactor(named("reduce"), 4), 1.0);
  EXPECT_DOUBLE_EQ(*busBandwidthFactor(named("gather"), 4), 3.0 / 4);
  EXPECT_DOUBLE_EQ(*busBandwidthFactor(named("scatter"), 4), 3.0 / 4);
  // hypercube_perf's algbw counts the ranks - 1 blocks a rank receives, and busbw is that.
  EXPECT_DOUBLE_EQ(*busBandwidthFactor(named("hypercube"), 8), 7.0 / 8);
}

TEST(Collectives, TheFirstAlgorithmMovesWhatBusBandwidthAssumes) {
  // busbw = algbw x the bus factor is the link's bandwidth exactly when the first algorithm's
  // bandwidth share is the bus factor: the projection derives the link from that algorithm.
  for (const CollectiveDescriptor* c : collectives()) {
    ASSERT_FALSE(c->algorithms.empty()) << c->name;
    for (int ranks : {2, 3, 4, 8, 72, 1024}) {
      EXPECT_DOUBLE_EQ(c->algorithms.front().bandwidth_share(ranks), c->bus_factor(ranks))
          << c->name << " at " << ranks;
      for (const AlgorithmCost& a : c->algorithms) {
        EXPECT_GE(a.latency_steps(ranks), 1) << c->name << " " << a.name;
      }
    }
  }
}

TEST(Collectives, AllreduceRunsByRingOrTree) {
  const auto& algorithms = allReduce().algorithms;
  ASSERT_EQ(algorithms.size(), 2u);
  EXPECT_EQ(algorithms[0].name, "ring");
  EXPECT_DOUBLE_EQ(algorithms[0].latency_steps(8), 14);
  EXPECT_EQ(algorithms[1].name, "tree");
  EXPECT_DOUBLE_EQ(algorithms[1].latency_steps(8), 6);
  EXPECT_DOUBLE_EQ(algorithms[1].latency_steps(9), 8);  // a tree of depth ceil(log2 9) = 4
  EXPECT_DOUBLE_EQ(algorithms[1].bandwidth_share(1024), 2);
}

TEST(Collectives, BusBandwidthIsUndefinedForOneRank) {
  EXPECT_FALSE(busBandwidthFactor(allReduce(), 1).has_value());
  EXPECT_THROW(busBandwidthFactor(allReduce(), 0), std::invalid_argument);
}

TEST(Collectives, AllreduceAndBroadcastSendAndReceiveTheWholeMessage) {
  for (const CollectiveDescriptor* c : {&allReduce(), &broadcast()}) {
    const CollectiveLayout l = layoutFor(*c, 1 << 20, 4, 8, 3);
    EXPECT_EQ(l.count, (1u << 20) / 4);
    EXPECT_EQ(l.send, l.count);
    EXPECT_EQ(l.recv, l.count);
    EXPECT_EQ(l.call_count, l.count);
    EXPECT_EQ(l.bytes, 1u << 20);
    EXPECT_EQ(l.send_offset_in_place, 0u);
    EXPECT_EQ(l.recv_offset_in_place, 0u);
  }
}

TEST(Collectives, ReduceScatterReceivesOneBlockAtItsRanksOffset) {
  // 1000 fp32 elements over 3 ranks: 999 used, blocks of 333; rank 2's block starts at 666.
  const CollectiveLayout l = layoutFor(named("reduce_scatter"), 4000, 4, 3, 2);
  EXPECT_EQ(l.count, 999u);
  EXPECT_EQ(l.send, 999u);
  EXPECT_EQ(l.recv, 333u);
  EXPECT_EQ(l.call_count, 333u);
  EXPECT_EQ(l.bytes, 3996u);
  EXPECT_EQ(l.recv_offset_in_place, 666u);
}

TEST(Collectives, AllgatherSendsOneBlockFromItsRanksOffset) {
  const CollectiveLayout l = layoutFor(named("allgather"), 4096, 2, 4, 1);
  EXPECT_EQ(l.count, 2048u);
  EXPECT_EQ(l.send, 512u);
  EXPECT_EQ(l.recv, 2048u);
  EXPECT_EQ(l.call_count, 512u);
  EXPECT_EQ(l.send_offset_in_place, 512u);
}

TEST(Collectives, AlltoallExchangesOneBlockWithEachRank) {
  // 1000 fp32 elements over 3 ranks: blocks of 333 to and from each rank.
  const CollectiveLayout l = layoutFor(named("alltoall"), 4000, 4, 3, 1);
  EXPECT_EQ(l.count, 999u);
  EXPECT_EQ(l.send, 999u);
  EXPECT_EQ(l.recv, 999u);
  EXPECT_EQ(l.call_count, 333u);
  EXPECT_EQ(l.bytes, 3996u);
  // Rank 1's block 2 is rank 2's block 1: rank 2's elements 333..665.
  const kernels::ExpectSpec spec = named("alltoall").expect(l, 1, 3);
  EXPECT_EQ(kernels::expectedValue(spec, 2 * 333 + 5), kernels::patternValue(333 + 5, 2));
  EXPECT_EQ(kernels::expectedValue(spec, 0), kernels::patternValue(333, 0));
  EXPECT_FALSE(named("alltoall").in_place_refusal.empty());
}

TEST(Collectives, SendrecvReceivesThePreviousRanksBufferAroundTheRing) {
  const CollectiveLayout l = layoutFor(named("sendrecv"), 4000, 4, 3, 0);
  EXPECT_EQ(l.count, 1000u);
  EXPECT_EQ(l.send, 1000u);
  EXPECT_EQ(l.recv, 1000u);
  EXPECT_EQ(l.call_count, 1000u);
  EXPECT_EQ(kernels::expectedValue(named("sendrecv").expect(l, 0, 3), 7),
            kernels::patternValue(7, 2));
  EXPECT_EQ(kernels::expectedValue(named("sendrecv").expect(l, 2, 3), 7),
            kernels::patternValue(7, 1));
  // On one rank it receives its own buffer.
  EXPECT_EQ(named("sendrecv").expect(l, 0, 1).source_rank, 0);
  EXPECT_FALSE(named("sendrecv").in_place_refusal.empty());
}

// An allgather in log2(ranks) exchanges: its buffers and result are allgather's, and it runs on
// a power of two of ranks only, as hypercube_perf does.
TEST(Collectives, HypercubeGathersEveryBlockOnAPowerOfTwoOfRanks) {
  const CollectiveDescriptor& hypercube = named("hypercube");
  const CollectiveLayout l = layoutFor(hypercube, 4096, 2, 4, 3);
  EXPECT_EQ(l.send, 512u);
  EXPECT_EQ(l.recv, 2048u);
  EXPECT_EQ(l.call_count, 512u);
  EXPECT_EQ(l.send_offset_in_place, 3u * 512u);
  // Rank 2's block, element 1, lands at 2 x 512 + 1 on every rank.
  EXPECT_EQ(kernels::expectedValue(hypercube.expect(l, 0, 4), 1025), kernels::patternValue(1, 2));
  EXPECT_DOUBLE_EQ(hypercube.algorithms.front().latency_steps(8), 3);
  for (int ranks : {1, 2, 4, 8, 1024}) EXPECT_EQ(hypercube.rank_count_refusal(ranks), "");
  for (int ranks : {3, 6, 12}) {
    EXPECT_EQ(hypercube.rank_count_refusal(ranks),
              "a hypercube needs a power-of-two number of ranks");
  }
  for (const CollectiveDescriptor* c : collectives()) {
    if (c != &hypercube) {
      EXPECT_EQ(c->rank_count_refusal, nullptr) << c->name;
    }
  }
}

TEST(Collectives, ReduceLeavesTheSumOnTheRootOnly) {
  const CollectiveDescriptor& reduce = named("reduce");
  const CollectiveLayout l = layoutFor(reduce, 4000, 4, 3, 1);
  EXPECT_EQ(l.count, 1000u);
  EXPECT_EQ(l.send, 1000u);
  EXPECT_EQ(l.recv, 1000u);
  EXPECT_EQ(l.call_count, 1000u);
  EXPECT_TRUE(reduce.result_at_root_only);
  EXPECT_EQ(reduce.reduction, Reduction::Sum);
  EXPECT_EQ(reduce.root, 0);
  EXPECT_EQ(kernels::expectedValue(reduce.expect(l, 0, 3), 9), kernels::patternSum(9, 3));
}

TEST(Collectives, GatherCollectsEveryBlockOnTheRoot) {
  const CollectiveDescriptor& gather = named("gather");
  // 1000 fp32 elements over 3 ranks: each sends 333, the root receives 999.
  const CollectiveLayout l = layoutFor(gather, 4000, 4, 3, 2);
  EXPECT_EQ(l.count, 999u);
  EXPECT_EQ(l.send, 333u);
  EXPECT_EQ(l.recv, 999u);
  EXPECT_EQ(l.call_count, 333u);
  EXPECT_EQ(l.send_offset_in_place, 666u);
  EXPECT_TRUE(gather.result_at_root_only);
  // Block 1 of the root's result is rank 1's input.
  EXPECT_EQ(kernels::expectedValue(gather.expect(l, 0, 3), 333 + 4), kernels::patternValue(4, 1));
}

TEST(Collectives, ScatterHandsEachRankItsBlockOfTheRoots) {
  const CollectiveDescriptor& scatter = named("scatter");
  const CollectiveLayout l = layoutFor(scatter, 4000, 4, 3, 2);
  EXPECT_EQ(l.count, 999u);
  EXPECT_EQ(l.send, 999u);
  EXPECT_EQ(l.recv, 333u);
  EXPECT_EQ(l.call_count, 333u);
  EXPECT_EQ(l.recv_offset_in_place, 666u);
  EXPECT_FALSE(scatter.result_at_root_only);
  // Rank 2 holds rank 0's elements 666..998.
  EXPECT_EQ(kernels::expectedValue(scatter.expect(l, 2, 3), 4), kernels::patternValue(670, 0));
}

// nccl-tests' roots (-r 0) and binaries; a collective with a result on the root only has one.
TEST(Collectives, EachNamesItsRootAndItsNcclTestsBinary) {
  for (const std::string_view rooted : {"broadcast", "reduce", "gather", "scatter"}) {
    EXPECT_EQ(named(rooted).root, 0) << rooted;
  }
  std::set<std::string_view> binaries;
  for (const CollectiveDescriptor* c : collectives()) {
    EXPECT_TRUE(!c->result_at_root_only || c->root.has_value()) << c->name;
    EXPECT_TRUE(c->nccl_tests_binary.ends_with("_perf")) << c->name;
    binaries.insert(c->nccl_tests_binary);
  }
  EXPECT_EQ(binaries.size(), collectives().size());
  EXPECT_FALSE(allReduce().root.has_value());
  EXPECT_EQ(allReduce().nccl_tests_binary, "all_reduce_perf");
  EXPECT_EQ(named("reduce_scatter").nccl_tests_binary, "reduce_scatter_perf");
}

// The node verdict holds one collective's busbw to the reference figures, which are allreduce's.
TEST(Collectives, OnlyAllreducesBusbwIsJudgedBeyondItsCases) {
  for (const CollectiveDescriptor* c : collectives()) {
    const bool allreduce = c == &allReduce();
    EXPECT_EQ(c->judgedBy(CollectiveVerdict::NodeBusbw), allreduce) << c->name;
    EXPECT_EQ(c->judgedBy(CollectiveVerdict::ScalingBusbw), allreduce) << c->name;
  }
}

TEST(Collectives, OneAllocationHoldsBothBuffers) {
  const CollectiveLayout gather = layoutFor(named("allgather"), 4096, 2, 4, 1);
  EXPECT_EQ(gather.allocation(false), 512u + 2048u);
  EXPECT_EQ(gather.allocation(true), 2048u);  // the send block lives inside the receive buffer
  const CollectiveLayout scatter = layoutFor(named("reduce_scatter"), 4000, 4, 3, 2);
  EXPECT_EQ(scatter.allocation(true), 999u);
}

TEST(Collectives, TooSmallForOneElementPerRankIsEmpty) {
  EXPECT_EQ(layoutFor(named("reduce_scatter"), 8, 4, 4, 0).count, 0u);
  EXPECT_EQ(layoutFor(named("allgather"), 8, 4, 4, 0).count, 0u);
  EXPECT_EQ(layoutFor(allReduce(), 8, 4, 4, 0).count, 2u);
}

TEST(Collectives, ChecksExpectEachCollectivesResult) {
  // Three ranks, 12 elements: blocks of 4.
  const CollectiveLayout scatter = layoutFor(named("reduce_scatter"), 48, 4, 3, 2);
  EXPECT_EQ(kernels::expectedValue(named("reduce_scatter").expect(scatter, 2, 3), 1),
            kernels::patternSum(9, 3));
  const CollectiveLayout gather = layoutFor(named("allgather"), 48, 4, 3, 0);
  EXPECT_EQ(kernels::expectedValue(named("allgather").expect(gather, 0, 3), 6),
            kernels::patternValue(2, 1));
  const CollectiveLayout whole = layoutFor(broadcast(), 48, 4, 3, 2);
  EXPECT_EQ(kernels::expectedValue(broadcast().expect(whole, 2, 3), 7),
            kernels::patternValue(7, 0));
  EXPECT_EQ(kernels::expectedValue(allReduce().expect(whole, 1, 3), 5), kernels::patternSum(5, 3));
}

TEST(Collectives, EachIsDeclaredOnceUnderTheNameOfItsSuite) {
  std::set<std::string_view> names;
  for (const CollectiveDescriptor* c : collectives()) {
    EXPECT_TRUE(names.insert(c->name).second) << c->name;
    EXPECT_EQ(findCollective(c->name), c);
    EXPECT_FALSE(c->help.empty()) << c->name;
    EXPECT_NE(c->bus_factor, nullptr);
    EXPECT_NE(c->layout, nullptr);
    EXPECT_NE(c->expect, nullptr);
    EXPECT_NE(c->nccl, nullptr);
    EXPECT_NE(c->mpi, nullptr);
  }
  EXPECT_EQ(allReduce().name, "allreduce");
  EXPECT_EQ(broadcast().name, "broadcast");
  EXPECT_EQ(findCollective("nonsense"), nullptr);
}

}  // namespace
}  // namespace splitstep
