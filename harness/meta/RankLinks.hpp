// How the GPUs of the ranks that share a node connect (NVLink, or a PCIe path).
#pragma once

#include <string>
#include <vector>

#include "meta/RankInfo.hpp"

namespace splitstep {

struct RankLink {
  int node = 0;
  int first = 0;     // the lower rank
  int second = 0;    // the higher rank
  std::string link;  // as RankInfo::gpu_links names it, or "same GPU"
};

// Every pair of ranks on one node, by node and then by rank, with how the first rank's GPU
// reaches the second's ("same GPU" where they share one); pairs that NVML could not describe are
// left out.
std::vector<RankLink> linksBetweenRanks(const std::vector<RankInfo>& ranks);

}  // namespace splitstep
