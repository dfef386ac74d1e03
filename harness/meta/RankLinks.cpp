#include "meta/RankLinks.hpp"

#include <algorithm>

namespace splitstep {

std::vector<RankLink> linksBetweenRanks(const std::vector<RankInfo>& ranks) {
  std::vector<const RankInfo*> ordered;
  for (const RankInfo& r : ranks) ordered.push_back(&r);
  std::sort(ordered.begin(), ordered.end(), [](const RankInfo* a, const RankInfo* b) {
    return a->node_index != b->node_index ? a->node_index < b->node_index : a->rank < b->rank;
  });
  std::vector<RankLink> links;
  for (std::size_t i = 0; i < ordered.size(); ++i) {
    for (std::size_t j = i + 1; j < ordered.size(); ++j) {
      const RankInfo& a = *ordered[i];
      const RankInfo& b = *ordered[j];
      if (a.node_index != b.node_index || a.uuid.empty() || b.uuid.empty()) continue;
      if (a.uuid == b.uuid) {
        links.push_back({a.node_index, a.rank, b.rank, "same GPU"});
        continue;
      }
      const auto link = a.gpu_links.find(b.uuid);
      if (link != a.gpu_links.end()) links.push_back({a.node_index, a.rank, b.rank, link->second});
    }
  }
  return links;
}

}  // namespace splitstep
