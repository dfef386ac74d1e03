#include "device/GpuTopology.hpp"

#include <dlfcn.h>

#include <array>
#include <memory>

namespace splitstep {
namespace {

// The few NVML declarations used here, as nvml.h gives them (a stable C ABI; enums are ints):
// NVML is loaded at run time, so neither its header nor its library is needed to build.
using NvmlReturn = int;
using NvmlDevice = struct NvmlDeviceOpaque*;
constexpr NvmlReturn NVML_SUCCESS = 0;
constexpr int NVML_P2P_CAPS_INDEX_NVLINK = 2;
constexpr int NVML_P2P_STATUS_OK = 0;
constexpr unsigned NVML_DEVICE_UUID_V2_BUFFER_SIZE = 96;
using InitFn = NvmlReturn (*)();
using ShutdownFn = NvmlReturn (*)();
using CountFn = NvmlReturn (*)(unsigned*);
using ByIndexFn = NvmlReturn (*)(unsigned, NvmlDevice*);
using ByPciBusIdFn = NvmlReturn (*)(const char*, NvmlDevice*);
using UuidFn = NvmlReturn (*)(NvmlDevice, char*, unsigned);
using P2PStatusFn = NvmlReturn (*)(NvmlDevice, NvmlDevice, int, int*);
using CommonAncestorFn = NvmlReturn (*)(NvmlDevice, NvmlDevice, int*);

struct Nvml {
  void* library = nullptr;
  ShutdownFn shutdown = nullptr;
  CountFn count = nullptr;
  ByIndexFn by_index = nullptr;
  ByPciBusIdFn by_pci = nullptr;
  UuidFn uuid = nullptr;
  P2PStatusFn p2p = nullptr;
  CommonAncestorFn ancestor = nullptr;

  Nvml() = default;
  Nvml(const Nvml&) = delete;
  Nvml& operator=(const Nvml&) = delete;
  ~Nvml() {
    if (shutdown != nullptr) shutdown();
    if (library != nullptr) dlclose(library);
  }
};

template <typename Function>
bool bind(void* library, const char* name, Function& function) {
  function = reinterpret_cast<Function>(dlsym(library, name));
  return function != nullptr;
}

std::unique_ptr<Nvml> openNvml() {
  auto nvml = std::make_unique<Nvml>();
  nvml->library = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
  if (nvml->library == nullptr) return nullptr;
  InitFn init = nullptr;
  if (!bind(nvml->library, "nvmlInit_v2", init) ||
      !bind(nvml->library, "nvmlDeviceGetCount_v2", nvml->count) ||
      !bind(nvml->library, "nvmlDeviceGetHandleByIndex_v2", nvml->by_index) ||
      !bind(nvml->library, "nvmlDeviceGetHandleByPciBusId_v2", nvml->by_pci) ||
      !bind(nvml->library, "nvmlDeviceGetUUID", nvml->uuid) ||
      !bind(nvml->library, "nvmlDeviceGetP2PStatus", nvml->p2p) ||
      !bind(nvml->library, "nvmlDeviceGetTopologyCommonAncestor", nvml->ancestor) ||
      init() != NVML_SUCCESS) {
    return nullptr;
  }
  bind(nvml->library, "nvmlShutdown", nvml->shutdown);  // only once init succeeded
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
  const std::unique_ptr<Nvml> nvml = openNvml();
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
