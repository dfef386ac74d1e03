#include "cluster/RankGroups.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <map>
#include <numeric>

namespace splitstep {

std::vector<int> nodeIndices(const std::vector<std::string>& hosts) {
  std::map<std::string, int> nodes;
  std::vector<int> indices;
  for (const std::string& host : hosts) {
    const auto [it, added] = nodes.emplace(host, static_cast<int>(nodes.size()));
    indices.push_back(it->second);
  }
  return indices;
}

std::vector<std::vector<int>> pairsInRounds(int ranks) {
  // The circle method: one seat stays, the others turn by one seat each round, and the seats
  // facing each other pair up. With an odd count one seat is empty and its partner sits out.
  const int seats = ranks + ranks % 2;
  // Evens up one side and odds down the other, so that the first round pairs 0-1, 2-3, ...
  std::vector<int> circle;
  for (int r = 0; r < seats; r += 2) circle.push_back(r);
  for (int r = seats - 1; r > 0; r -= 2) circle.push_back(r);
  std::vector<std::vector<int>> pairs;
  for (int round = 0; round + 1 < seats; ++round) {
    std::vector<std::vector<int>> this_round;
    for (std::size_t i = 0; i < circle.size() / 2; ++i) {
      const int a = circle[i];
      const int b = circle[circle.size() - 1 - i];
      if (a < ranks && b < ranks) this_round.push_back({std::min(a, b), std::max(a, b)});
    }
    std::sort(this_round.begin(), this_round.end());
    pairs.insert(pairs.end(), this_round.begin(), this_round.end());
    std::rotate(circle.begin() + 1, circle.end() - 1, circle.end());
  }
  return pairs;
}

std::vector<std::vector<std::size_t>> scheduleRounds(const std::vector<std::vector<int>>& groups,
                                                     GroupMode mode) {
  std::vector<std::vector<std::size_t>> rounds;
  std::vector<std::vector<int>> busy;  // the ranks of each round so far
  for (std::size_t g = 0; g < groups.size(); ++g) {
    std::size_t round = rounds.size();
    if (mode == GroupMode::Concurrent) {
      round = static_cast<std::size_t>(
          std::find_if(busy.begin(), busy.end(),
                       [&](const std::vector<int>& taken) {
                         return std::none_of(groups[g].begin(), groups[g].end(), [&](int r) {
                           return std::find(taken.begin(), taken.end(), r) != taken.end();
                         });
                       }) -
          busy.begin());
    }
    if (round == rounds.size()) {
      rounds.emplace_back();
      busy.emplace_back();
    }
    rounds[round].push_back(g);
    busy[round].insert(busy[round].end(), groups[g].begin(), groups[g].end());
  }
  return rounds;
}

std::variant<RankGroups, std::string> resolveGroups(const GroupSpec& spec, GroupMode mode,
                                                    const std::vector<std::string>& hosts) {
  const int ranks = static_cast<int>(hosts.size());
  RankGroups resolved;
  resolved.mode = mode;
  switch (spec.kind) {
    case GroupKind::All:
      return resolved;
    case GroupKind::Pairs:
      if (ranks < 2) return std::string("--groups pairs: needs 2 or more ranks");
      resolved.groups = pairsInRounds(ranks);
      break;
    case GroupKind::Nodes: {
      const std::vector<int> nodes = nodeIndices(hosts);
      for (int r = 0; r < ranks; ++r) {
        const auto node = static_cast<std::size_t>(nodes[static_cast<std::size_t>(r)]);
        if (node == resolved.groups.size()) resolved.groups.emplace_back();
        resolved.groups[node].push_back(r);
      }
      for (const std::vector<int>& group : resolved.groups) {
        if (group.size() < 2) {
          return fmt::format("--groups nodes: node {} holds one rank; a group needs two or more",
                             hosts[static_cast<std::size_t>(group.front())]);
        }
      }
      break;
    }
    case GroupKind::Size:
      if (spec.size > ranks || ranks % spec.size != 0) {
        return fmt::format("--groups size:{}: {} ranks do not split into groups of {}", spec.size,
                           ranks, spec.size);
      }
      for (int first = 0; first < ranks; first += spec.size) {
        std::vector<int> group(static_cast<std::size_t>(spec.size));
        std::iota(group.begin(), group.end(), first);
        resolved.groups.push_back(std::move(group));
      }
      break;
    case GroupKind::List:
      for (const std::vector<int>& group : spec.list) {
        for (int r : group) {
          if (r >= ranks) {
            return fmt::format("--groups: rank {} is not in a world of {} ranks", r, ranks);
          }
        }
      }
      resolved.groups = spec.list;
      break;
  }
  resolved.rounds = scheduleRounds(resolved.groups, mode);
  return resolved;
}

std::string groupName(const std::vector<int>& group) {
  return fmt::format("{}", fmt::join(group, ","));
}

}  // namespace splitstep
