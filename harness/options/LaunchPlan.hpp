// How the ranks start: the device kind, GPU sharing, the deadline of every wait.
#pragma once

#include <array>
#include <string_view>
#include <utility>

#include "common/EnumNames.hpp"

namespace splitstep {

enum class DeviceKind { Auto, Cuda, Cpu };

template <>
struct EnumNames<DeviceKind> {
  static constexpr std::array values = {std::pair{DeviceKind::Auto, std::string_view("auto")},
                                        std::pair{DeviceKind::Cuda, std::string_view("cuda")},
                                        std::pair{DeviceKind::Cpu, std::string_view("cpu")}};
};

struct LaunchPlan {
  DeviceKind device = DeviceKind::Auto;
  bool allow_gpu_sharing = false;
  double timeout = 300;  // seconds any wait on another rank may last
  // Tests of the fault handling only: rank `stall_rank` stops (sleeps without answering) once
  // `stall_after` cases have been gathered.
  int stall_rank = -1;
  int stall_after = 0;
};

}  // namespace splitstep
