#include "device/NvmlClock.hpp"

#include <dlfcn.h>

namespace splitstep {
namespace {

// The few NVML declarations used here, as nvml.h gives them (a stable C ABI): NVML is loaded at
// run time, so neither its header nor its library is needed to build.
using NvmlReturn = int;
using NvmlDevice = struct NvmlDeviceOpaque*;
constexpr NvmlReturn NVML_SUCCESS = 0;
constexpr int NVML_CLOCK_SM = 1;
using InitFn = NvmlReturn (*)();
using ShutdownFn = NvmlReturn (*)();
using ByPciBusIdFn = NvmlReturn (*)(const char*, NvmlDevice*);
using ClockInfoFn = NvmlReturn (*)(NvmlDevice, int, unsigned*);
using ReasonsFn = NvmlReturn (*)(NvmlDevice, unsigned long long*);

// nvmlClocksEventReasons bits (formerly "throttle reasons") that hold the SM clock down.
struct Reason {
  unsigned long long bit;
  const char* text;
};
constexpr Reason kReasons[] = {{0x4, "power cap"},           {0x8, "hardware slowdown"},
                               {0x20, "thermal (software)"}, {0x40, "thermal (hardware)"},
                               {0x80, "power brake"},        {0x2, "application clocks"},
                               {0x10, "sync boost"}};

std::string describeReasons(unsigned long long bits) {
  std::string text;
  for (const Reason& reason : kReasons) {
    if ((bits & reason.bit) == 0) continue;
    if (!text.empty()) text += ", ";
    text += reason.text;
  }
  return text;
}

}  // namespace

struct NvmlClock::Api {
  void* library = nullptr;
  InitFn init = nullptr;
  ShutdownFn shutdown = nullptr;
  ByPciBusIdFn by_pci = nullptr;
  ClockInfoFn clock = nullptr;
  ClockInfoFn max_clock = nullptr;
  ReasonsFn reasons = nullptr;  // optional

  ~Api() {
    if (shutdown != nullptr) shutdown();
    if (library != nullptr) dlclose(library);
  }
};

namespace {

template <typename Function>
bool bind(void* library, const char* name, Function& function) {
  function = reinterpret_cast<Function>(dlsym(library, name));
  return function != nullptr;
}

}  // namespace

std::unique_ptr<NvmlClock> NvmlClock::open(const std::string& pci_bus_id) {
  auto api = std::make_unique<Api>();
  api->library = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
  if (api->library == nullptr) return nullptr;
  NvmlDevice device = nullptr;
  if (!bind(api->library, "nvmlInit_v2", api->init) ||
      !bind(api->library, "nvmlDeviceGetHandleByPciBusId_v2", api->by_pci) ||
      !bind(api->library, "nvmlDeviceGetClockInfo", api->clock) ||
      !bind(api->library, "nvmlDeviceGetMaxClockInfo", api->max_clock) ||
      api->init() != NVML_SUCCESS) {
    return nullptr;
  }
  bind(api->library, "nvmlShutdown", api->shutdown);  // only once init succeeded
  // Renamed in CUDA 12.2's NVML; drivers keep the old name too.
  if (!bind(api->library, "nvmlDeviceGetCurrentClocksEventReasons", api->reasons)) {
    bind(api->library, "nvmlDeviceGetCurrentClocksThrottleReasons", api->reasons);
  }
  if (api->by_pci(pci_bus_id.c_str(), &device) != NVML_SUCCESS) return nullptr;
  return std::unique_ptr<NvmlClock>(new NvmlClock(std::move(api), device));
}

NvmlClock::NvmlClock(std::unique_ptr<Api> api, void* device)
    : api_(std::move(api)), device_(device) {}

NvmlClock::~NvmlClock() = default;

std::optional<SmClock> NvmlClock::read() const {
  SmClock clock;
  const auto device = static_cast<NvmlDevice>(device_);
  if (api_->clock(device, NVML_CLOCK_SM, &clock.current_mhz) != NVML_SUCCESS ||
      api_->max_clock(device, NVML_CLOCK_SM, &clock.max_mhz) != NVML_SUCCESS) {
    return std::nullopt;
  }
  unsigned long long reasons = 0;
  if (api_->reasons != nullptr && api_->reasons(device, &reasons) == NVML_SUCCESS) {
    clock.limited_by = describeReasons(reasons);
  }
  return clock;
}

}  // namespace splitstep
