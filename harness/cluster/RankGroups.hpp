// The groups of ranks that run collectives together (--groups), resolved against the launch,
// and the rounds they take turns in (--group-mode). Pure functions: every rank resolves the same
// groups from the same plan and host names, so every rank makes the same collective calls.
#pragma once

#include <cstddef>
#include <string>
#include <variant>
#include <vector>

#include "options/CollectivesPlan.hpp"

namespace splitstep {

struct RankGroups {
  // Each group's ranks, ascending, in the order they run; empty: every rank together.
  std::vector<std::vector<int>> groups;
  // Indices into `groups`: the groups of one round run at the same time, rounds one by one.
  std::vector<std::vector<std::size_t>> rounds;
  GroupMode mode = GroupMode::Sequential;
};

// The node of each rank: ranks with the same host name share a node, numbered in the order of
// their lowest rank.
std::vector<int> nodeIndices(const std::vector<std::string>& hosts);

// Every pair of `ranks` ranks, in ranks - 1 rounds of disjoint pairs (ranks rounds when odd), as
// a round-robin tournament orders them; each pair ascending, each round by its first rank.
std::vector<std::vector<int>> pairsInRounds(int ranks);

// `groups` in rounds: sequential, one group per round; concurrent, each group in the first round
// none of whose groups shares a rank with it.
std::vector<std::vector<std::size_t>> scheduleRounds(const std::vector<std::vector<int>>& groups,
                                                     GroupMode mode);

// The groups `spec` names on a launch whose rank r runs on `hosts[r]`, with their rounds; or why
// they cannot be formed there (a one-line error naming --groups).
std::variant<RankGroups, std::string> resolveGroups(const GroupSpec& spec, GroupMode mode,
                                                    const std::vector<std::string>& hosts);

// "0,1,2": a group's ranks as params and reports name it.
std::string groupName(const std::vector<int>& group);

}  // namespace splitstep
