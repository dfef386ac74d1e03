#include "suites/TorchScope.hpp"

#include <c10/cuda/CUDACachingAllocator.h>
#include <c10/cuda/CUDAStream.h>

namespace splitstep {

TorchScope::TorchScope(const Device& device)
    : device_(device.isCuda() ? c10::Device(c10::DeviceType::CUDA,
                                            static_cast<c10::DeviceIndex>(device.index()))
                              : c10::Device(c10::DeviceType::CPU)) {
  if (device.isCuda()) {
    stream_guard_.emplace(c10::cuda::getStreamFromExternal(device.stream(), device_.index()));
  }
}

TorchScope::~TorchScope() {
  if (device_.is_cuda()) {
    stream_guard_.reset();
    c10::cuda::CUDACachingAllocator::emptyCache();
  }
}

}  // namespace splitstep
