#include "derived/NodeSpread.hpp"

#include <gtest/gtest.h>

namespace splitstep {
namespace {

// Rank r's sample of one case, `median` seconds in each of three samples.
Sample caseOf(double median) {
  Sample s;
  s.suite = "matmul";
  s.case_name = "bf16 n=8192";
  s.series = "mm";
  s.measurement.values = {median, median, median};
  return s;
}

// Ranks 0-2 on nodeB and 3-4 on nodeA, nodes numbered as the launch found them.
std::vector<RankInfo> fiveRanksOnTwoNodes() {
  std::vector<RankInfo> ranks;
  for (int r = 0; r < 5; ++r) {
    RankInfo info{r, r < 3 ? "nodeB" : "nodeA", r < 3 ? r : r - 3, "cuda:0", "NVIDIA H200"};
    info.node_index = r < 3 ? 0 : 1;
    ranks.push_back(info);
  }
  return ranks;
}

TEST(NodeSpread, EachNodeSpreadsItsRanksMediansAndTheSlowestNodeIsMarked) {
  const CaseResult result =
      summarizeCases({{caseOf(1.0)}, {caseOf(1.2)}, {caseOf(1.1)}, {caseOf(2.0)}, {caseOf(2.2)}})
          .front();
  const std::vector<NodeSpread> nodes = spreadByNode(result, fiveRanksOnTwoNodes());
  ASSERT_EQ(nodes.size(), 2u);
  EXPECT_EQ(nodes[0].node, 0);
  EXPECT_EQ(nodes[0].host, "nodeB");
  EXPECT_EQ(nodes[0].ranks, (std::vector<int>{0, 1, 2}));
  EXPECT_DOUBLE_EQ(nodes[0].across.min, 1.0);
  EXPECT_DOUBLE_EQ(nodes[0].across.median, 1.1);
  EXPECT_DOUBLE_EQ(nodes[0].across.max, 1.2);
  EXPECT_FALSE(nodes[0].slowest);
  EXPECT_EQ(nodes[1].host, "nodeA");
  EXPECT_EQ(nodes[1].ranks, (std::vector<int>{3, 4}));
  EXPECT_DOUBLE_EQ(nodes[1].across.median, 2.1);
  EXPECT_TRUE(nodes[1].slowest);
}

TEST(NodeSpread, RanksThatDidNotMeasureTheCaseAreLeftOut) {
  Sample not_measured = caseOf(0);
  not_measured.measurement.values.clear();
  const CaseResult result =
      summarizeCases({{not_measured}, {not_measured}, {not_measured}, {caseOf(2.0)}, {caseOf(2.2)}})
          .front();
  const std::vector<NodeSpread> nodes = spreadByNode(result, fiveRanksOnTwoNodes());
  ASSERT_EQ(nodes.size(), 1u);
  EXPECT_EQ(nodes[0].host, "nodeA");
  EXPECT_TRUE(nodes[0].slowest);
}

TEST(NodeSpread, ASkippedCaseHasNoNodes) {
  Sample skipped = caseOf(0);
  skipped.measurement.values.clear();
  EXPECT_TRUE(spreadByNode(summarizeCases({{skipped}}).front(), fiveRanksOnTwoNodes()).empty());
}

TEST(NodeSpread, NodesAreCountedByIndex) {
  EXPECT_EQ(nodeCount(fiveRanksOnTwoNodes()), 2u);
  EXPECT_EQ(nodeCount({}), 0u);
}

}  // namespace
}  // namespace splitstep
