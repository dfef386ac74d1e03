// SM clock readings through NVML, loaded at run time: splitstep runs where no driver is.
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "measure/Measurement.hpp"

namespace splitstep {

class NvmlClock {
 public:
  // The GPU with this PCI bus id ("0000:06:00.0", from cudaDeviceGetPCIBusId); empty where
  // NVML cannot be loaded or does not know the GPU.
  static std::unique_ptr<NvmlClock> open(const std::string& pci_bus_id);
  ~NvmlClock();
  NvmlClock(const NvmlClock&) = delete;
  NvmlClock& operator=(const NvmlClock&) = delete;

  std::optional<SmClock> read() const;

 private:
  struct Api;
  NvmlClock(std::unique_ptr<Api> api, void* device);
  std::unique_ptr<Api> api_;
  void* device_;
};

}  // namespace splitstep
