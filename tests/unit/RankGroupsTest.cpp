#include "cluster/RankGroups.hpp"

#include <gtest/gtest.h>

#include <set>

namespace splitstep {
namespace {

using Groups = std::vector<std::vector<int>>;

RankGroups resolved(const GroupSpec& spec, GroupMode mode, const std::vector<std::string>& hosts) {
  auto result = resolveGroups(spec, mode, hosts);
  if (const auto* error = std::get_if<std::string>(&result)) ADD_FAILURE() << *error;
  return std::get<RankGroups>(result);
}

std::string errorOf(const GroupSpec& spec, const std::vector<std::string>& hosts) {
  auto result = resolveGroups(spec, GroupMode::Sequential, hosts);
  const auto* error = std::get_if<std::string>(&result);
  return error ? *error : "<no error>";
}

std::vector<std::string> hosts(std::initializer_list<const char*> names) {
  return {names.begin(), names.end()};
}

TEST(RankGroups, NodesAreNumberedInTheOrderOfTheirLowestRank) {
  EXPECT_EQ(nodeIndices(hosts({"b", "b", "a", "b", "c"})), (std::vector<int>{0, 0, 1, 0, 2}));
  EXPECT_EQ(nodeIndices({}), std::vector<int>{});
}

TEST(RankGroups, PairsFormEveryPairOnceInRoundsOfDisjointPairs) {
  for (int ranks = 2; ranks <= 9; ++ranks) {
    SCOPED_TRACE(ranks);
    const Groups pairs = pairsInRounds(ranks);
    std::set<std::vector<int>> seen(pairs.begin(), pairs.end());
    EXPECT_EQ(seen.size(), pairs.size());  // none twice
    EXPECT_EQ(pairs.size(), static_cast<std::size_t>(ranks * (ranks - 1) / 2));
    for (const auto& pair : pairs) {
      ASSERT_EQ(pair.size(), 2u);
      EXPECT_LT(pair[0], pair[1]);
      EXPECT_GE(pair[0], 0);
      EXPECT_LT(pair[1], ranks);
    }
    // Run together, they take the fewest rounds possible: n - 1 (n when n is odd).
    const auto rounds = scheduleRounds(pairs, GroupMode::Concurrent);
    EXPECT_EQ(rounds.size(), static_cast<std::size_t>(ranks % 2 == 0 ? ranks - 1 : ranks));
  }
  // The first round pairs neighbours.
  const Groups four = pairsInRounds(4);
  EXPECT_EQ(Groups(four.begin(), four.begin() + 2), (Groups{{0, 1}, {2, 3}}));
}

TEST(RankGroups, SequentialRoundsHoldOneGroupConcurrentOnesEveryGroupThatFits) {
  const Groups groups = {{0, 1}, {2, 3}, {1, 2}, {0, 3}, {4, 5}};
  EXPECT_EQ(scheduleRounds(groups, GroupMode::Sequential),
            (std::vector<std::vector<std::size_t>>{{0}, {1}, {2}, {3}, {4}}));
  // {1,2} shares ranks with both groups of the first round; {4,5} fits into the first.
  EXPECT_EQ(scheduleRounds(groups, GroupMode::Concurrent),
            (std::vector<std::vector<std::size_t>>{{0, 1, 4}, {2, 3}}));
}

TEST(RankGroups, EachSpecResolvesAgainstTheLaunch) {
  const auto four = hosts({"a", "a", "b", "b"});
  EXPECT_TRUE(resolved({GroupKind::All, 0, {}}, GroupMode::Sequential, four).groups.empty());
  EXPECT_EQ(resolved({GroupKind::Pairs, 0, {}}, GroupMode::Sequential, four).groups.size(), 6u);
  EXPECT_EQ(resolved({GroupKind::Nodes, 0, {}}, GroupMode::Sequential, four).groups,
            (Groups{{0, 1}, {2, 3}}));
  EXPECT_EQ(resolved({GroupKind::Nodes, 0, {}}, GroupMode::Sequential, hosts({"a", "b", "a", "b"}))
                .groups,
            (Groups{{0, 2}, {1, 3}}));
  const RankGroups sized = resolved({GroupKind::Size, 2, {}}, GroupMode::Concurrent, four);
  EXPECT_EQ(sized.groups, (Groups{{0, 1}, {2, 3}}));
  EXPECT_EQ(sized.rounds, (std::vector<std::vector<std::size_t>>{{0, 1}}));
  EXPECT_EQ(sized.mode, GroupMode::Concurrent);
  const RankGroups listed =
      resolved({GroupKind::List, 0, {{1, 3}, {0, 2}}}, GroupMode::Sequential, four);
  EXPECT_EQ(listed.groups, (Groups{{1, 3}, {0, 2}}));
  EXPECT_EQ(listed.rounds, (std::vector<std::vector<std::size_t>>{{0}, {1}}));
}

TEST(RankGroups, GroupsTheLaunchCannotFormAreRefusedWithTheReason) {
  EXPECT_EQ(errorOf({GroupKind::Pairs, 0, {}}, hosts({"a"})),
            "--groups pairs: needs 2 or more ranks");
  EXPECT_EQ(errorOf({GroupKind::Size, 3, {}}, hosts({"a", "a", "a", "a"})),
            "--groups size:3: 4 ranks do not split into groups of 3");
  EXPECT_EQ(errorOf({GroupKind::Size, 8, {}}, hosts({"a", "a", "a", "a"})),
            "--groups size:8: 4 ranks do not split into groups of 8");
  EXPECT_EQ(errorOf({GroupKind::List, 0, {{0, 1}, {2, 4}}}, hosts({"a", "a", "a", "a"})),
            "--groups: rank 4 is not in a world of 4 ranks");
  EXPECT_EQ(errorOf({GroupKind::Nodes, 0, {}}, hosts({"a", "a", "b"})),
            "--groups nodes: node b holds one rank; a group needs two or more");
}

TEST(RankGroups, AGroupIsNamedByItsRanks) {
  EXPECT_EQ(groupName({0, 1, 5}), "0,1,5");
  EXPECT_EQ(groupName({7}), "7");
}

}  // namespace
}  // namespace splitstep
