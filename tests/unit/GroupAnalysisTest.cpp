#include "derived/GroupAnalysis.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <sstream>
#include <string>

#include "cases/CollectiveCase.hpp"

namespace splitstep {
namespace {

constexpr std::uint64_t kSize = 256ull << 20;

// One rank's sample of an allreduce of 256 MiB within `group`: `seconds` per call where the
// rank is in the group, no values (not measured there) elsewhere.
// "0,1" -> {0, 1}.
IntegerList ranksOf(const std::string& group) {
  IntegerList ranks;
  std::stringstream text(group);
  std::string rank;
  while (std::getline(text, rank, ',')) ranks.push_back(std::stoll(rank));
  return ranks;
}

Sample groupSample(const std::string& group, bool member, double seconds) {
  Sample s;
  s.suite = "allreduce";
  s.case_name = "nccl fp32 256 MiB group " + group;
  s.series = "allreduce";
  CollectiveCase fields{"nccl",
                        "allreduce",
                        CollectiveDtype::Fp32,
                        Placement::OutOfPlace,
                        kSize,
                        kSize,
                        kSize / 4,
                        BufferKind::Device,
                        CaseGroup{ranksOf(group), 0, GroupMode::Sequential}};
  s.fields = fields.encode();
  // A pair's busbw equals its algbw: 2(n-1)/n = 1.
  s.rates = {{"algbw GB/s", static_cast<double>(kSize), 1e9},
             {"busbw GB/s", static_cast<double>(kSize), 1e9}};
  s.measurement.clock = "device (CUDA events)";
  if (member) s.measurement.values = {seconds, seconds};
  return s;
}

// Cases of `groups` (group name -> seconds per call) on `ranks` ranks, as rank 0 summarises them.
std::vector<CaseResult> groupCases(int ranks,
                                   const std::vector<std::pair<std::string, double>>& groups) {
  std::vector<std::vector<Sample>> by_rank(static_cast<std::size_t>(ranks));
  for (const auto& [group, seconds] : groups) {
    for (int r = 0; r < ranks; ++r) {
      const std::string mine = std::to_string(r);
      const bool member = group.starts_with(mine + ",") || group.ends_with("," + mine) ||
                          group.find("," + mine + ",") != std::string::npos;
      by_rank[static_cast<std::size_t>(r)].push_back(groupSample(group, member, seconds));
    }
  }
  return summarizeCases(by_rank);
}

// Four ranks on one node.
std::vector<RankInfo> fourRanks() {
  return {{0, "nodeA", 0, "cuda:0", "NVIDIA H200"},
          {1, "nodeA", 1, "cuda:1", "NVIDIA H200"},
          {2, "nodeA", 2, "cuda:2", "NVIDIA H200"},
          {3, "nodeA", 3, "cuda:3", "NVIDIA H200"}};
}

// Ranks 0 and 1 on nodeA, 2 and 3 on nodeB.
std::vector<RankInfo> twoNodes() {
  std::vector<RankInfo> ranks = fourRanks();
  for (RankInfo& r : ranks) {
    if (r.rank < 2) continue;
    r.host = "nodeB";
    r.node_index = 1;
    r.local_rank = r.rank - 2;
    r.device = "cuda:" + std::to_string(r.local_rank);
  }
  return ranks;
}

std::map<std::string, DerivedFigure> byTag(const DerivedResult& d) {
  std::map<std::string, DerivedFigure> figures;
  for (const DerivedFigure& f : d.figures) figures[f.tag] = f;
  return figures;
}

TEST(GroupAnalysis, TheGroupsOfASlowRankAreFlaggedAndTheRankTheyShareNamed) {
  // Every pair of 4 ranks; pairs with rank 3 take 4 ms instead of 1 ms.
  const auto derived = deriveGroupFigures(groupCases(4, {{"0,1", 1e-3},
                                                         {"2,3", 4e-3},
                                                         {"0,3", 4e-3},
                                                         {"1,2", 1e-3},
                                                         {"0,2", 1e-3},
                                                         {"1,3", 4e-3}}),
                                          fourRanks());
  ASSERT_EQ(derived.size(), 1u);
  const DerivedResult& d = derived.front();
  EXPECT_EQ(d.suite, "allreduce");
  EXPECT_EQ(d.subject, "nccl fp32 256 MiB");
  EXPECT_EQ(d.title, "bus bandwidth by group of ranks (6 groups, one at a time)");
  const auto figures = byTag(d);
  const std::string tag = "groups/busbw/allreduce/nccl/fp32/out-of-place/268435456/";
  // busbw 268.4 GB/s at 1 ms, 67.1 GB/s at 4 ms; the median of three of each is their mean.
  ASSERT_EQ(figures.count(tag + "median/within-a-node"), 1u);
  EXPECT_NEAR(figures.at(tag + "median/within-a-node").value, (268.435456 + 67.108864) / 2, 1e-6);
  EXPECT_EQ(figures.at(tag + "median/within-a-node").unit, "GB/s");
  EXPECT_NEAR(figures.at(tag + "0,1").value, 268.435456, 1e-6);
  EXPECT_EQ(figures.at(tag + "0,1").note, "160% of the median");
  EXPECT_EQ(figures.at(tag + "2,3").note, "40% of the median: far below");
  EXPECT_EQ(d.findings,
            (std::vector<std::string>{
                "group 2,3 reaches 40% of the median group's busbw at 256 MiB: check the link "
                "between rank 2 (nodeA cuda:2) and rank 3 (nodeA cuda:3)",
                "group 0,3 reaches 40% of the median group's busbw at 256 MiB: check the link "
                "between rank 0 (nodeA cuda:0) and rank 3 (nodeA cuda:3)",
                "group 1,3 reaches 40% of the median group's busbw at 256 MiB: check the link "
                "between rank 1 (nodeA cuda:1) and rank 3 (nodeA cuda:3)",
                "rank 3 (nodeA cuda:3) is in every flagged group: suspect its GPU, its links or "
                "its node first"}));
}

TEST(GroupAnalysis, GroupsWithinAQuarterOfTheMedianAreNotFlagged) {
  const auto derived = deriveGroupFigures(
      groupCases(4, {{"0,1", 1e-3}, {"2,3", 1.3e-3}, {"0,1,2,3", 1.1e-3}}), fourRanks());
  ASSERT_EQ(derived.size(), 1u);
  // 1 / 1.3 of the median (1.1 ms) is 85%: not far below.
  EXPECT_EQ(
      byTag(derived.front()).at("groups/busbw/allreduce/nccl/fp32/out-of-place/268435456/2,3").note,
      "85% of the median");
  EXPECT_EQ(derived.front().findings,
            (std::vector<std::string>{
                "every group reaches at least 75% of the median group's busbw at 256 MiB"}));
}

TEST(GroupAnalysis, ASingleGroupIsReportedWithoutAComparison) {
  const auto derived = deriveGroupFigures(groupCases(2, {{"0,1", 1e-3}}), fourRanks());
  ASSERT_EQ(derived.size(), 1u);
  ASSERT_EQ(derived.front().figures.size(), 1u);
  EXPECT_EQ(derived.front().figures.front().tag,
            "groups/busbw/allreduce/nccl/fp32/out-of-place/268435456/0,1");
  EXPECT_EQ(derived.front().figures.front().note, "");
  EXPECT_EQ(derived.front().title, "bus bandwidth by group of ranks (1 group)");
  EXPECT_EQ(derived.front().findings,
            (std::vector<std::string>{
                "a single group within a node: there is no other group to compare it with"}));
}

TEST(GroupAnalysis, GroupsWithinANodeAndAcrossNodesAreComparedWithTheirOwnKind) {
  // Pairs across the two nodes take 4 ms (the network), those within a node 1 ms; one pair
  // across nodes, 1,2, takes 16 ms.
  const auto derived = deriveGroupFigures(groupCases(4, {{"0,1", 1e-3},
                                                         {"2,3", 1e-3},
                                                         {"0,3", 4e-3},
                                                         {"1,2", 16e-3},
                                                         {"0,2", 4e-3},
                                                         {"1,3", 4e-3}}),
                                          twoNodes());
  ASSERT_EQ(derived.size(), 2u);
  EXPECT_EQ(derived[0].subject, "nccl fp32 256 MiB, groups within a node");
  EXPECT_EQ(derived[0].title, "bus bandwidth by group of ranks (2 groups, one at a time)");
  EXPECT_EQ(derived[0].findings,
            (std::vector<std::string>{
                "every group reaches at least 75% of the median group's busbw at 256 MiB"}));
  EXPECT_EQ(derived[1].subject, "nccl fp32 256 MiB, groups across 2 nodes");
  const std::string tag = "groups/busbw/allreduce/nccl/fp32/out-of-place/268435456/";
  // Across nodes: 67.1 GB/s three times and 16.8 GB/s once; the median is 67.1 GB/s.
  EXPECT_NEAR(byTag(derived[1]).at(tag + "median/across-2-nodes").value, 67.108864, 1e-6);
  EXPECT_EQ(derived[1].findings,
            (std::vector<std::string>{
                "group 1,2 reaches 25% of the median group's busbw at 256 MiB: check the link "
                "between rank 1 (nodeA cuda:1) and rank 2 (nodeB cuda:0)"}));
}

TEST(GroupAnalysis, NoisySamplesAreCalledOutBesideTheFlags) {
  std::vector<CaseResult> cases = groupCases(4, {{"0,1", 1e-3}, {"2,3", 4e-3}, {"0,2", 1e-3}});
  cases[1].ranks[1].measurement.noise = 0.40;  // group 2,3, rank 3
  const auto derived = deriveGroupFigures(cases, fourRanks());
  ASSERT_EQ(derived.size(), 1u);
  EXPECT_EQ(derived.front().findings,
            (std::vector<std::string>{
                "group 2,3 reaches 25% of the median group's busbw at 256 MiB: check the link "
                "between rank 2 (nodeA cuda:2) and rank 3 (nodeA cuda:3)",
                "the samples of group 2,3 spread by 40% (std/mean): differences that large can be "
                "noise rather than links; give each case more time (--min-time) or each rank a "
                "core"}));
}

TEST(GroupAnalysis, CasesOfEveryRankTogetherAreNotGroups) {
  Sample world = groupSample("0,1", true, 1e-3);
  world.case_name = "nccl fp32 256 MiB";
  world.fields.values.erase("group");
  world.fields.values.erase("group_index");
  world.fields.values.erase("group_mode");
  EXPECT_TRUE(deriveGroupFigures(summarizeCases({{world}, {world}}), fourRanks()).empty());
}

}  // namespace
}  // namespace splitstep
