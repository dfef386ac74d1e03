#include "device/NvmlLibrary.hpp"

#include <dlfcn.h>

#include <map>
#include <mutex>

namespace splitstep {

std::shared_ptr<const NvmlLibrary> NvmlLibrary::open(const std::string& library) {
  static std::mutex mutex;
  static std::map<std::string, std::weak_ptr<const NvmlLibrary>> opened;
  const std::lock_guard lock(mutex);
  if (auto shared = opened[library].lock()) return shared;
  void* handle = dlopen(library.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) return nullptr;
  // From here on the destructor closes the library (and shuts NVML down once it is up).
  std::shared_ptr<NvmlLibrary> nvml(new NvmlLibrary(handle));
  NvmlReturn (*init)() = nullptr;
  if (!nvml->bind("nvmlInit_v2", init) || init() != NVML_SUCCESS) return nullptr;
  nvml->bind("nvmlShutdown", nvml->shutdown_);  // only once init succeeded
  opened[library] = nvml;
  return nvml;
}

NvmlLibrary::NvmlLibrary(void* handle) : handle_(handle) {}

NvmlLibrary::~NvmlLibrary() {
  if (shutdown_ != nullptr) shutdown_();
  dlclose(handle_);
}

void* NvmlLibrary::symbol(const char* name) const { return dlsym(handle_, name); }

}  // namespace splitstep
