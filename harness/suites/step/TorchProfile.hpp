// A few training steps under LibTorch's profiler (Kineto: CPU operators and CUDA kernels), saved
// as the Chrome trace torch.profiler exports, so that splitstep's step and a PyTorch twin can be
// compared kernel by kernel (tests/reference/kernel_table.py).
#pragma once

#include <functional>
#include <string>

#include "device/Device.hpp"

namespace splitstep {

// Runs `step` `steps` times between enabling and disabling the profiler, waits for the device,
// and writes the trace to `path`.
void profileSteps(const std::function<void()>& step, int steps, Device& device,
                  const std::string& path);

}  // namespace splitstep
