// How one GPU reaches the other GPUs of its node, from NVML (loaded at run time through
// NvmlLibrary: splitstep runs where no driver is).
#pragma once

#include <map>
#include <string>

namespace splitstep {

// nvidia-smi topo's name for how two GPUs connect: "NVLink" where they are NVLink peers;
// otherwise their closest common PCIe ancestor, from NVML's topology level (0 one board, 10 PIX,
// 20 PXB, 30 PHB, 40 NODE, 50 SYS): "board", "PIX", "PXB", "PHB", "NODE", "SYS"; "?" for
// another level.
std::string gpuLinkName(bool nvlink, int topology_level);

// Every other GPU NVML lists on this node, by UUID ("GPU-…"), with gpuLinkName() of its
// connection to the GPU at `pci_bus_id`; empty where NVML cannot be loaded or does not know it.
std::map<std::string, std::string> gpuLinksFrom(const std::string& pci_bus_id);

}  // namespace splitstep
