// Points LibTorch at a splitstep Device: its torch::Device, and its working stream as current.
#pragma once

#include <c10/core/Device.h>
#include <c10/cuda/CUDAGuard.h>

#include <optional>

#include "device/Device.hpp"

namespace splitstep {

// While alive, LibTorch queues CUDA work on the device's working stream, the stream the
// Measurer's events are recorded on.
class TorchScope {
 public:
  explicit TorchScope(const Device& device);
  // Hands LibTorch's cached GPU memory back, so that the next suite sees the memory as free.
  ~TorchScope();
  TorchScope(const TorchScope&) = delete;
  TorchScope& operator=(const TorchScope&) = delete;
  c10::Device device() const { return device_; }

 private:
  c10::Device device_;
  std::optional<c10::cuda::CUDAStreamGuard> stream_guard_;
};

}  // namespace splitstep
