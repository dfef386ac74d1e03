#include "device/DeviceAssignment.hpp"

#include <fmt/format.h>

namespace splitstep {

std::variant<AssignedDevice, std::string> assignDevice(const DeviceRequest& request) {
  if (request.kind == DeviceKind::Cpu) return AssignedDevice{false, 0};
  if (request.visible_gpus == 0) {
    if (request.kind == DeviceKind::Auto) return AssignedDevice{false, 0};
    return std::string("--device cuda: no CUDA device is visible on this node");
  }
  if (request.local_size > request.visible_gpus && !request.allow_sharing) {
    return fmt::format(
        "{} ranks on this node but {} visible GPU(s): start one rank per GPU, or pass "
        "--allow-gpu-sharing to time ranks that share a GPU",
        request.local_size, request.visible_gpus);
  }
  return AssignedDevice{true, request.local_rank % request.visible_gpus};
}

}  // namespace splitstep
