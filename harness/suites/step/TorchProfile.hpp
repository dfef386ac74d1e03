// A few training steps under LibTorch's profiler (Kineto: CPU operators and CUDA kernels), saved
// as the Chrome trace torch.profiler exports, so that splitstep's step and a PyTorch twin can be
// compared kernel by kernel (tests/reference/kernel_table.py); and a few steps profiled in
// memory for the GPU's busy time per phase.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "device/Device.hpp"
#include "suites/step/BusyTime.hpp"

namespace splitstep {

// Runs `step` `steps` times between enabling and disabling the profiler, waits for the device,
// and writes the trace to `path`.
void profileSteps(const std::function<void()>& step, int steps, Device& device,
                  const std::string& path);

// Runs `step` `steps` times under the profiler (CUDA activities, on a GPU rank), waits for the
// device, and returns each step's GPU busy time by phase: the phases are the scopes the step
// records (phaseScope), the work the kernels, copies and memsets launched within them.
std::vector<StepBusy> profileBusy(const std::function<void()>& step, int steps, Device& device);

// Runs `replay` (a graphed step) `steps` times under the profiler, each in replayScope(), and
// returns each replay's GPU busy seconds.
std::vector<double> profileReplays(const std::function<void()>& replay, int steps, Device& device);

}  // namespace splitstep
