// Which device a rank uses, from its place on the node. Pure, so made-up nodes can be tested.
#pragma once

#include <string>
#include <variant>

#include "options/LaunchPlan.hpp"

namespace splitstep {

struct DeviceRequest {
  DeviceKind kind = DeviceKind::Auto;
  int local_rank = 0;  // rank among the processes of this node
  int local_size = 1;  // processes on this node
  int visible_gpus = 0;
  bool allow_sharing = false;
};

struct AssignedDevice {
  bool cuda = false;
  int index = 0;  // CUDA device ordinal; 0 for the CPU

  bool operator==(const AssignedDevice&) const = default;
};

// One GPU per node-local rank (device = local rank). With --device auto and no GPU, the CPU.
// More ranks than GPUs on a node is an error unless sharing is allowed (then round-robin).
// The string alternative is the error message.
std::variant<AssignedDevice, std::string> assignDevice(const DeviceRequest& request);

}  // namespace splitstep
