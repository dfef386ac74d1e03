#include "derived/NodeSpread.hpp"

#include <algorithm>
#include <map>
#include <set>

namespace splitstep {

std::vector<NodeSpread> spreadByNode(const CaseResult& result, const std::vector<RankInfo>& ranks) {
  std::map<int, NodeSpread> nodes;
  std::map<int, std::vector<double>> medians;
  for (const RankResult& r : result.ranks) {
    const auto info = std::find_if(ranks.begin(), ranks.end(),
                                   [&r](const RankInfo& i) { return i.rank == r.rank; });
    if (info == ranks.end()) continue;
    NodeSpread& node = nodes[info->node_index];
    node.node = info->node_index;
    node.host = info->host;
    node.ranks.push_back(r.rank);
    medians[info->node_index].push_back(r.summary.median);
  }
  std::vector<NodeSpread> spread;
  for (auto& [index, node] : nodes) {
    std::sort(node.ranks.begin(), node.ranks.end());
    node.across = summarize(medians[index]);
    spread.push_back(std::move(node));
  }
  const auto slowest = std::max_element(
      spread.begin(), spread.end(),
      [](const NodeSpread& a, const NodeSpread& b) { return a.across.median < b.across.median; });
  if (slowest != spread.end()) slowest->slowest = true;
  return spread;
}

std::size_t nodeCount(const std::vector<RankInfo>& ranks) {
  std::set<int> nodes;
  for (const RankInfo& r : ranks) nodes.insert(r.node_index);
  return nodes.size();
}

}  // namespace splitstep
