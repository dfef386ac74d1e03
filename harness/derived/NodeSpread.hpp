// A case's per-rank medians grouped by node: where one node is slower than the others, the
// figures across all ranks show only its slowest rank; by node it stands out as a whole.
#pragma once

#include <string>
#include <vector>

#include "derived/CaseResult.hpp"
#include "meta/RankInfo.hpp"

namespace splitstep {

struct NodeSpread {
  int node = 0;
  std::string host;
  std::vector<int> ranks;  // the node's ranks that measured the case, ascending
  Summary across;          // of those ranks' medians
  bool slowest = false;    // the highest median of medians among the nodes
};

// Per node that measured `result`, in node order (RankInfo::node_index). Empty for a skipped
// case; exactly one node is the slowest otherwise.
std::vector<NodeSpread> spreadByNode(const CaseResult& result, const std::vector<RankInfo>& ranks);

// How many nodes `ranks` ran on.
std::size_t nodeCount(const std::vector<RankInfo>& ranks);

}  // namespace splitstep
