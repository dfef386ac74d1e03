// One GPU seen through NVML, loaded at run time: splitstep runs where no driver is.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "measure/Measurement.hpp"
#include "telemetry/TelemetrySampler.hpp"

namespace splitstep {

class NvmlGpu {
 public:
  // The GPU with this PCI bus id ("0000:06:00.0", from cudaDeviceGetPCIBusId); empty where
  // NVML cannot be loaded or does not know the GPU.
  static std::unique_ptr<NvmlGpu> open(const std::string& pci_bus_id);
  ~NvmlGpu();
  NvmlGpu(const NvmlGpu&) = delete;
  NvmlGpu& operator=(const NvmlGpu&) = delete;

  std::optional<SmClock> smClock() const;

  // Sources for a TelemetrySampler, each read on a thread of its own: clocks, power,
  // temperature, clock limits and NVLink throughput, each quick to read; and PCIe throughput,
  // which NVML measures over 20 ms per direction and would otherwise hold the others up. They
  // share this GPU's NVML handle and may outlive this object.
  std::vector<std::unique_ptr<TelemetrySource>> telemetrySources() const;

  struct Api;  // the loaded library (NvmlGpu.cpp)

 private:
  NvmlGpu(std::shared_ptr<const Api> api, void* device);
  std::shared_ptr<const Api> api_;
  void* device_;
};

}  // namespace splitstep
