#include "meta/RankLinks.hpp"

#include <gtest/gtest.h>

#include <tuple>

namespace splitstep {
namespace {

RankInfo gpuRank(int rank, int node, const std::string& uuid,
                 std::map<std::string, std::string> links) {
  RankInfo info{rank, node == 0 ? "nodeA" : "nodeB", 0, "cuda:0", "NVIDIA H200"};
  info.node_index = node;
  info.uuid = uuid;
  info.gpu_links = std::move(links);
  return info;
}

TEST(RankLinks, PairsOfRanksOnANodeTakeTheLinkTheFirstRankSees) {
  const std::vector<RankInfo> ranks = {
      gpuRank(0, 0, "GPU-a", {{"GPU-b", "NVLink"}, {"GPU-c", "SYS"}}),
      gpuRank(1, 0, "GPU-b", {{"GPU-a", "NVLink"}, {"GPU-c", "SYS"}}),
      gpuRank(2, 1, "GPU-x", {{"GPU-y", "PIX"}}), gpuRank(3, 1, "GPU-y", {{"GPU-x", "PIX"}}),
      gpuRank(4, 0, "GPU-c", {{"GPU-a", "SYS"}, {"GPU-b", "SYS"}})};
  const std::vector<RankLink> links = linksBetweenRanks(ranks);
  ASSERT_EQ(links.size(), 4u);  // three pairs on nodeA, one on nodeB; none across nodes
  EXPECT_EQ(links[0].node, 0);
  EXPECT_EQ(std::tie(links[0].first, links[0].second, links[0].link),
            std::make_tuple(0, 1, std::string("NVLink")));
  EXPECT_EQ(std::tie(links[1].first, links[1].second, links[1].link),
            std::make_tuple(0, 4, std::string("SYS")));
  EXPECT_EQ(std::tie(links[2].first, links[2].second, links[2].link),
            std::make_tuple(1, 4, std::string("SYS")));
  EXPECT_EQ(links[3].node, 1);
  EXPECT_EQ(std::tie(links[3].first, links[3].second, links[3].link),
            std::make_tuple(2, 3, std::string("PIX")));
}

TEST(RankLinks, RanksSharingAGpuAndUndescribedPairsAreToldApart) {
  const std::vector<RankInfo> ranks = {gpuRank(0, 0, "GPU-a", {}), gpuRank(1, 0, "GPU-a", {}),
                                       gpuRank(2, 0, "GPU-b", {})};
  const std::vector<RankLink> links = linksBetweenRanks(ranks);
  ASSERT_EQ(links.size(), 1u);  // 0-2 and 1-2: NVML described nothing
  EXPECT_EQ(links[0].link, "same GPU");
  // CPU ranks have no GPU to link.
  EXPECT_TRUE(
      linksBetweenRanks({RankInfo{0, "h", 0, "cpu", "CPU"}, RankInfo{1, "h", 1, "cpu", "CPU"}})
          .empty());
}

}  // namespace
}  // namespace splitstep
