#include "device/GpuTopology.hpp"

#include <array>
#include <memory>
#include <optional>

#include "device/NvmlLibrary.hpp"

namespace splitstep {
namespace {

// The NVML declarations used here besides NvmlLibrary's, as nvml.h gives them.
constexpr int NVML_P2P_CAPS_INDEX_NVLINK = 2;
constexpr int NVML_P2P_STATUS_OK = 0;
constexpr unsigned NVML_DEVICE_UUID_V2_BUFFER_SIZE = 96;
using CountFn = NvmlReturn (*)(unsigned*);
using ByIndexFn = NvmlReturn (*)(unsigned, NvmlDevice*);
using ByPciBusIdFn = NvmlReturn (*)(const char*, NvmlDevice*);
using UuidFn = NvmlReturn (*)(NvmlDevice, char*, unsigned);
using P2PStatusFn = NvmlReturn (*)(NvmlDevice, NvmlDevice, int, int*);
using CommonAncestorFn = NvmlReturn (*)(NvmlDevice, NvmlDevice, int*);

struct Nvml {
  std::shared_ptr<const NvmlLibrary> library;
  CountFn count = nullptr;
  ByIndexFn by_index = nullptr;
  ByPciBusIdFn by_pci = nullptr;
  UuidFn uuid = nullptr;
  P2PStatusFn p2p = nullptr;
  CommonAncestorFn ancestor = nullptr;
};

std::optional<Nvml> openNvml() {
  Nvml nvml;
  nvml.library = NvmlLibrary::open();
  if (!nvml.library || !nvml.library->bind("nvmlDeviceGetCount_v2", nvml.count) ||
      !nvml.library->bind("nvmlDeviceGetHandleByIndex_v2", nvml.by_index) ||
      !nvml.library->bind("nvmlDeviceGetHandleByPciBusId_v2", nvml.by_pci) ||
      !nvml.library->bind("nvmlDeviceGetUUID", nvml.uuid) ||
      !nvml.library->bind("nvmlDeviceGetP2PStatus", nvml.p2p) ||
      !nvml.library->bind("nvmlDeviceGetTopologyCommonAncestor", nvml.ancestor)) {
    return std::nullopt;
  }
  return nvml;
}

}  // namespace

std::string gpuLinkName(bool nvlink, int topology_level) {
  if (nvlink) return "NVLink";
  switch (topology_level) {
    case 0:
      return "board";
    case 10:
      return "PIX";
    case 20:
      return "PXB";
    case 30:
      return "PHB";
    case 40:
      return "NODE";
    case 50:
      return "SYS";
    default:
      return "?";
  }
}

std::map<std::string, std::string> gpuLinksFrom(const std::string& pci_bus_id) {
  std::map<std::string, std::string> links;
  const std::optional<Nvml> nvml = openNvml();
  NvmlDevice mine = nullptr;
  unsigned count = 0;
  if (!nvml || nvml->by_pci(pci_bus_id.c_str(), &mine) != NVML_SUCCESS ||
      nvml->count(&count) != NVML_SUCCESS) {
    return links;
  }
  for (unsigned i = 0; i < count; ++i) {
    NvmlDevice other = nullptr;
    std::array<char, NVML_DEVICE_UUID_V2_BUFFER_SIZE> uuid{};
    if (nvml->by_index(i, &other) != NVML_SUCCESS || other == mine ||
        nvml->uuid(other, uuid.data(), NVML_DEVICE_UUID_V2_BUFFER_SIZE) != NVML_SUCCESS) {
      continue;
    }
    int p2p = -1;
    const bool nvlink = nvml->p2p(mine, other, NVML_P2P_CAPS_INDEX_NVLINK, &p2p) == NVML_SUCCESS &&
                        p2p == NVML_P2P_STATUS_OK;
    int level = -1;
    if (!nvlink && nvml->ancestor(mine, other, &level) != NVML_SUCCESS) level = -1;
    links[uuid.data()] = gpuLinkName(nvlink, level);
  }
  return links;
}

}  // namespace splitstep
