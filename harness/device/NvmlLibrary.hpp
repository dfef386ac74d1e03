// NVML, loaded at run time: splitstep runs where no driver is, so neither NVML's header nor its
// library is needed to build. One loaded and initialised library is shared by every unit that
// reads NVML (NvmlGpu, GpuTopology); NVML is shut down when the last of them lets it go.
#pragma once

#include <memory>
#include <string>

namespace splitstep {

// The few NVML declarations every user needs, as nvml.h gives them (a stable C ABI; enums are
// ints).
using NvmlReturn = int;
using NvmlDevice = struct NvmlDeviceOpaque*;
inline constexpr NvmlReturn NVML_SUCCESS = 0;

class NvmlLibrary {
 public:
  static constexpr const char* kDriverLibrary = "libnvidia-ml.so.1";

  // The library, initialised (nvmlInit_v2): the one already open under this name, or a newly
  // loaded one; nullptr where it cannot be loaded or initialised.
  static std::shared_ptr<const NvmlLibrary> open(const std::string& library = kDriverLibrary);
  ~NvmlLibrary();
  NvmlLibrary(const NvmlLibrary&) = delete;
  NvmlLibrary& operator=(const NvmlLibrary&) = delete;

  // The function of this name; nullptr where this driver's NVML lacks it.
  void* symbol(const char* name) const;

  // Sets `function` to symbol(name) and says whether the driver has it.
  template <typename Function>
  bool bind(const char* name, Function& function) const {
    function = reinterpret_cast<Function>(symbol(name));
    return function != nullptr;
  }

 private:
  explicit NvmlLibrary(void* handle);
  void* handle_;
  NvmlReturn (*shutdown_)() = nullptr;
};

}  // namespace splitstep
