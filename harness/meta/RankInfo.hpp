// Where one rank ran: what reports need to name a rank.
#pragma once

#include <algorithm>
#include <map>
#include <string>
#include <vector>

namespace splitstep {

struct RankInfo {
  int rank = 0;
  std::string host;
  int local_rank = 0;
  std::string device;       // "cuda:0" or "cpu"
  std::string device_name;  // "NVIDIA H200"
  // Ranks on the same host share a node; nodes are numbered in the order of their lowest rank.
  int node_index = 0;
  // The physical GPU, whatever CUDA_VISIBLE_DEVICES made of its number: its PCI bus id
  // ("0000:19:00.0") and UUID ("GPU-…", as nvidia-smi names it); empty on the CPU.
  std::string pci_bus_id{};
  std::string uuid{};
  // How this rank's GPU reaches each other GPU of its node (by UUID): "NVLink", or the PCIe
  // path as nvidia-smi topo names it ("PIX", "PXB", "PHB", "NODE", "SYS"); empty without NVML.
  std::map<std::string, std::string> gpu_links{};
};

// The entry of `rank` in `ranks`; null where it has none (a rank whose facts were not gathered).
inline const RankInfo* infoOf(int rank, const std::vector<RankInfo>& ranks) {
  const auto it = std::find_if(ranks.begin(), ranks.end(),
                               [rank](const RankInfo& i) { return i.rank == rank; });
  return it == ranks.end() ? nullptr : &*it;
}

}  // namespace splitstep
